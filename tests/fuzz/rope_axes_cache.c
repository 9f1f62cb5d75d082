/* Fuzz target: posenc_rope_axes_cache, positions [n_axes][length], sections
 * that split the pairs or not (sectioned or interleaved), outputs that overlap each other, positions,
 * sections or inv_freq (refused). On success every value is
 * finite, |v| <= A, cos^2 + sin^2 = A^2 within float rounding, and with every
 * axis at the same positions the cache is posenc_rope_cache's bit for bit; on
 * error nothing is written. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "posenc.h"
#include "rope_calls.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = { data, size };
    size_t length = take_size(&in);
    size_t rotary_dim = take_size(&in) % (2 * FUZZ_CAP + 2);
    size_t n_axes = take_u8(&in) % 6, sections[8] = { 0 }, half = rotary_dim / 2, left = half;
    int valid = take_u8(&in) % 4 != 0;
    for (size_t a = 0; a < n_axes; a++) {
        sections[a] = !valid ? take_size(&in) : a + 1 == n_axes ? left : (left ? take_u8(&in) % (left + 1) : 0);
        left -= valid ? sections[a] : 0;
    }
    double attention = take_u8(&in) % 2 ? 1.0 : take_double(&in);
    int arrangement = take_enum(&in, 2); /* sectioned or interleaved (Qwen3-VL) */
    int precision = take_enum(&in, 2), null = take_u8(&in) % 64, equal = take_u8(&in) % 2;
    int overlap = take_u8(&in) % 16 == 0;

    fuzz_buf freq, positions;
    buf_new(&freq, half, half, sizeof(double));
    double *f = (double *)(void *)freq.p;
    for (size_t k = 0; k < half; k++)
        f[k] = take_u8(&in) % 4 ? pow(10000.0, -(double)(2 * k) / (double)rotary_dim) : take_double(&in);
    buf_snapshot(&freq);
    size_t positions_len = 0;
    int len_ok = mul2(n_axes ? n_axes : 1, length, &positions_len);
    int must_fail_positions = !len_ok || positions_len > FUZZ_CAP;
    buf_new(&positions, len_ok ? positions_len : 0, FUZZ_CAP, sizeof(int32_t));
    int32_t *pos = (int32_t *)(void *)positions.p;
    for (size_t r = 0; r < positions.alloc; r++)
        pos[r] = equal && length && r >= length ? pos[r % length] : take_i32(&in);
    buf_snapshot(&positions);

    size_t need;
    int need_ok = mul2(length, half, &need);
    size_t out_len = take_len(&in, need, need_ok);
    int must_fail = fuzz_plan(&out_len, need, need_ok) || (must_fail_positions && need > 0);
    size_t limit = must_fail ? FUZZ_CAP : need;
    size_t shift = need > 0 ? take_u8(&in) % need : 0;
    overlap = overlap && need > 0 && out_len <= FUZZ_CAP / 2;
    fuzz_buf cos_buf, sin_buf;
    buf_new(&cos_buf, out_len + (overlap ? shift : 0), overlap ? FUZZ_CAP : limit, sizeof(float));
    buf_new(&sin_buf, overlap ? 0 : out_len, limit, sizeof(float));
    float *cos_out = (float *)(void *)cos_buf.p;
    float *sin_out = overlap ? cos_out + shift : (float *)(void *)sin_buf.p;
    /* positions or inv_freq inside an output (cos, or sin when it has its own memory) */
    fuzz_buf *host = take_u8(&in) % 2 ? &cos_buf : &sin_buf;
    const int32_t *pos_in = fuzz_alias(&in, host, pos, positions.alloc, sizeof(int32_t), &overlap);
    const double *f_in = fuzz_alias(&in, host, f, half, sizeof(double), &overlap);

    posenc_rope rope = rope_given(rotary_dim, 0, f_in, attention, precision);
    posenc_rope_axes axes = rope_axes_of(n_axes, sections, arrangement);
    int status = posenc_rope_axes_cache(null == 0 ? NULL : cos_out, null == 1 ? NULL : sin_out, out_len, length,
                                        null == 2 ? NULL : pos_in, null == 3 ? NULL : &axes, null == 4 ? NULL : &rope);
    attention = attention != 0.0 ? attention : 1.0; /* 0 selects 1 */
    check_status(status);
    FUZZ_ASSERT(null > 4 || status == POSENC_ERR_NULL_POINTER || (null == 2 && length == 0));
    FUZZ_ASSERT(status != POSENC_OK || (!must_fail && !overlap));
    FUZZ_ASSERT(buf_unchanged(&freq) && buf_unchanged(&positions));
    if (status != POSENC_OK) {
        FUZZ_ASSERT(buf_unchanged(&cos_buf) && buf_unchanged(&sin_buf));
    } else if (need > 0) {
        double a = attention, tolerance = 0x1p-20 * a * a;
        double bound = fmax(a, (double)(float)a) * (1 + 0x1p-22) + 0x1p-149;
        for (size_t i = 0; i < need; i++) {
            double c = cos_out[i], s = sin_out[i];
            FUZZ_ASSERT(isfinite(c) && isfinite(s) && fabs(c) <= bound && fabs(s) <= bound);
            if (a < 0x1p60 && a > 0x1p-60)
                FUZZ_ASSERT(fabs(c * c + s * s - a * a) <= tolerance);
        }
        if (equal) { /* every axis at axis 0's positions: posenc_rope_cache */
            float *c = malloc(need * sizeof *c), *s = malloc(need * sizeof *s);
            FUZZ_ASSERT(rope_cache_with(c, s, need, length, 0, pos, rotary_dim, f, attention, precision) == POSENC_OK);
            FUZZ_ASSERT(memcmp(c, cos_out, need * sizeof *c) == 0 && memcmp(s, sin_out, need * sizeof *s) == 0);
            free(c);
            free(s);
        }
    }
    buf_free(&freq);
    buf_free(&positions);
    buf_free(&cos_buf);
    buf_free(&sin_buf);
    return 0;
}
