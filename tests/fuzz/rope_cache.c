/* Fuzz target: posenc_rope_cache, positions by offset or listed, outputs
 * that overlap each other, positions or inv_freq. On success every value is
 * finite, |v| <= A, and cos^2 + sin^2 = A^2 within float rounding; on error
 * nothing is written. */
#include <math.h>

#include "decode.h"
#include "posenc.h"
#include "rope_calls.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = { data, size };
    size_t length = take_size(&in);
    /* inv_freq holds rotary_dim / 2 doubles: an honest caller allocates them */
    size_t rotary_dim = take_size(&in) % (2 * FUZZ_CAP + 2);
    int32_t offset = take_i32(&in);
    double attention = take_double(&in);
    int precision = take_enum(&in, 2), null = take_u8(&in) % 64;
    int listed = take_u8(&in) % 2 && length <= FUZZ_CAP, overlap = take_u8(&in) % 16 == 0;

    size_t half = rotary_dim / 2, need;
    fuzz_buf freq, positions;
    buf_new(&freq, half, half, sizeof(double));
    double *f = (double *)(void *)freq.p;
    for (size_t k = 0; k < half; k++)
        f[k] = take_u8(&in) % 4 ? pow(10000.0, -(double)(2 * k) / (double)rotary_dim) : take_double(&in);
    buf_snapshot(&freq);
    buf_new(&positions, listed ? length : 0, listed ? length : 0, sizeof(int32_t));
    for (size_t r = 0; r < positions.alloc; r++)
        ((int32_t *)(void *)positions.p)[r] = take_i32(&in);
    buf_snapshot(&positions);

    int need_ok = mul2(length, half, &need);
    size_t out_len = take_len(&in, need, need_ok);
    int must_fail = fuzz_plan(&out_len, need, need_ok);
    size_t limit = must_fail ? FUZZ_CAP : need;
    /* overlap: sin starts `shift` < need elements into cos, in one allocation */
    size_t shift = need > 0 ? take_u8(&in) % need : 0;
    overlap = overlap && need > 0 && out_len <= FUZZ_CAP / 2;
    fuzz_buf cos_buf, sin_buf;
    buf_new(&cos_buf, out_len + (overlap ? shift : 0), overlap ? FUZZ_CAP : limit, sizeof(float));
    buf_new(&sin_buf, overlap ? 0 : out_len, limit, sizeof(float));
    float *cos_out = (float *)(void *)cos_buf.p;
    float *sin_out = overlap ? cos_out + shift : (float *)(void *)sin_buf.p;
    /* positions or inv_freq inside an output (cos, or sin when it has its own memory) */
    fuzz_buf *host = take_u8(&in) % 2 ? &cos_buf : &sin_buf;
    const int32_t *pos = listed ? fuzz_alias(&in, host, positions.p, positions.alloc, sizeof(int32_t), &overlap) : NULL;
    const double *inv_freq = fuzz_alias(&in, host, f, half, sizeof(double), &overlap);

    posenc_rope rope = rope_given(rotary_dim, 0, inv_freq, attention, precision);
    int status = posenc_rope_cache(null == 0 ? NULL : cos_out, null == 1 ? NULL : sin_out, out_len, length,
                                   offset, pos, null == 2 ? NULL : &rope);
    attention = attention != 0.0 ? attention : 1.0; /* 0 selects 1 */
    check_status(status);
    FUZZ_ASSERT(null > 2 || status == POSENC_ERR_NULL_POINTER);
    FUZZ_ASSERT(status != POSENC_OK || (!must_fail && !overlap));
    FUZZ_ASSERT(buf_unchanged(&freq) && buf_unchanged(&positions));
    if (status != POSENC_OK) {
        FUZZ_ASSERT(buf_unchanged(&cos_buf) && buf_unchanged(&sin_buf));
    } else {
        double a = attention, tolerance = 0x1p-20 * a * a;
        /* the float32 recipe scales by float(A): a subnormal A may round up */
        double bound = fmax(a, (double)(float)a) * (1 + 0x1p-22) + 0x1p-149;
        for (size_t i = 0; i < need; i++) {
            double c = cos_out[i], s = sin_out[i];
            FUZZ_ASSERT(isfinite(c) && isfinite(s));
            FUZZ_ASSERT(fabs(c) <= bound && fabs(s) <= bound);
            if (a < 0x1p60 && a > 0x1p-60)
                FUZZ_ASSERT(fabs(c * c + s * s - a * a) <= tolerance);
        }
    }
    buf_free(&freq);
    buf_free(&positions);
    buf_free(&cos_buf);
    buf_free(&sin_buf);
    return 0;
}
