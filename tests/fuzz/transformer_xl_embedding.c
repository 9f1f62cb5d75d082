/* Fuzz target: posenc_transformer_xl_embedding. On success every value is
 * finite, |v| <= 1, sin^2 + cos^2 = 1 per pair, and the last row (position 0)
 * is [0 .. 0 | 1 .. 1] within 2^-23 (it is stepped to, not anchored). */
#include <math.h>

#include "decode.h"
#include "posenc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = { data, size };
    size_t key_len = take_size(&in), d = take_size(&in), need;
    int32_t clamp_length = take_i32(&in);
    int null = take_null(&in);
    int need_ok = mul2(key_len, d, &need);
    size_t out_len = take_len(&in, need, need_ok);
    int must_fail = fuzz_plan(&out_len, need, need_ok);
    fuzz_buf out;
    buf_new(&out, out_len, must_fail ? FUZZ_CAP : need, sizeof(float));

    int status = posenc_transformer_xl_embedding(null ? NULL : (float *)(void *)out.p, out_len, key_len, d,
                                                 clamp_length);
    check_status(status);
    FUZZ_ASSERT(!null || status == POSENC_ERR_NULL_POINTER);
    FUZZ_ASSERT(status != POSENC_OK || !must_fail);
    if (status != POSENC_OK) {
        FUZZ_ASSERT(buf_unchanged(&out));
    } else if (need > 0) {
        const float *v = (const float *)(const void *)out.p;
        size_t half = d / 2;
        for (size_t r = 0; r < key_len; r++)
            for (size_t c = 0; c < half; c++) {
                double s = v[r * d + c], co = v[r * d + half + c];
                FUZZ_ASSERT(isfinite(s) && isfinite(co) && fabs(s) <= 1.0 && fabs(co) <= 1.0);
                FUZZ_ASSERT(fabs(s * s + co * co - 1.0) <= 0x1p-21);
                FUZZ_ASSERT(r + 1 < key_len || (fabs(s) <= 0x1p-23 && fabs(co - 1.0) <= 0x1p-23));
            }
    }
    buf_free(&out);
    return 0;
}
