/* Fuzz target: posenc_sinusoidal. On success every value is finite, |v| <= 1,
 * and each sine/cosine pair has sin^2 + cos^2 = 1 (within float rounding). */
#include <math.h>

#include "decode.h"
#include "posenc.h"

/* Sine columns and the distance to each one's cosine, by layout (posenc.h). */
static void pairs(size_t d, int layout, size_t *n_pairs, size_t *sin_step, size_t *cos_at)
{
    if (layout == POSENC_LAYOUT_INTERLEAVED) {
        *n_pairs = d / 2, *sin_step = 2, *cos_at = 1;
    } else if (layout == POSENC_LAYOUT_CONCATENATED) {
        *n_pairs = d / 2, *sin_step = 1, *cos_at = d - d / 2;
    } else {
        *n_pairs = d / 2, *sin_step = 1, *cos_at = d / 2;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = { data, size };
    size_t length = take_size(&in), d = take_size(&in), need;
    double base = take_double(&in);
    int32_t offset = take_i32(&in);
    int layout = take_enum(&in, 4), null = take_null(&in);
    int need_ok = mul2(length, d, &need);
    size_t out_len = take_len(&in, need, need_ok);
    int must_fail = fuzz_plan(&out_len, need, need_ok);
    fuzz_buf out;
    buf_new(&out, out_len, must_fail ? FUZZ_CAP : need, sizeof(float));

    int status = posenc_sinusoidal(null ? NULL : (float *)(void *)out.p, out_len, length, d, base,
                                   offset, layout);
    check_status(status);
    FUZZ_ASSERT(!null || status == POSENC_ERR_NULL_POINTER);
    FUZZ_ASSERT(status != POSENC_OK || !must_fail);
    if (status != POSENC_OK) {
        FUZZ_ASSERT(buf_unchanged(&out));
    } else {
        const float *v = (const float *)(const void *)out.p;
        size_t n_pairs, sin_step, cos_at;
        pairs(d, layout, &n_pairs, &sin_step, &cos_at);
        for (size_t i = 0; i < need; i++)
            FUZZ_ASSERT(isfinite(v[i]) && fabsf(v[i]) <= 1.0f);
        for (size_t r = 0; r < length; r++)
            for (size_t k = 0; k < n_pairs; k++) {
                double s = v[r * d + k * sin_step], c = v[r * d + k * sin_step + cos_at];
                FUZZ_ASSERT(fabs(s * s + c * c - 1.0) <= 0x1p-21);
            }
    }
    buf_free(&out);
    return 0;
}
