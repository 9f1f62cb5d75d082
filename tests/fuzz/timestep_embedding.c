/* Fuzz target: posenc_timestep_embedding, real timesteps (NaN, inf, huge,
 * runs of consecutive integers). On success every value is finite, |v| <= 1,
 * sin^2 + cos^2 = 1 per pair, an odd dim ends on zeros, t = 0 gives
 * [0 | 1] within 2^-23 (flipped [1 | 0]) when every angle is in the
 * contract's range; the timesteps are never written. */
#include <math.h>

#include "decode.h"
#include "posenc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = { data, size };
    size_t n = take_small(&in), dim = take_size(&in), need;
    int flip = take_enum(&in, 2);
    double shift = take_u8(&in) % 2 ? (double)(take_u8(&in) % 3) : take_double(&in);
    double scale = take_u8(&in) % 2 ? 1.0 : take_double(&in);
    double max_period = take_u8(&in) % 2 ? 0.0 : take_double(&in);
    int null = take_u8(&in) % 64, run = take_u8(&in) % 2;

    fuzz_buf steps;
    buf_new(&steps, n, n, sizeof(double));
    double *t = (double *)(void *)steps.p;
    for (size_t r = 0; r < n; r++) /* a run of consecutive integers, or decoded values */
        t[r] = run && r > 0 && take_u8(&in) % 8 ? t[r - 1] + 1.0 : (take_u8(&in) % 2 ? (double)take_i32(&in) : take_double(&in));
    buf_snapshot(&steps);

    int need_ok = mul2(n, dim, &need);
    size_t out_len = take_len(&in, need, need_ok);
    int must_fail = fuzz_plan(&out_len, need, need_ok);
    fuzz_buf out;
    buf_new(&out, out_len, must_fail ? FUZZ_CAP : need, sizeof(float));

    int status = posenc_timestep_embedding(null == 0 ? NULL : (float *)(void *)out.p, out_len,
                                           null == 1 && n > 0 ? NULL : t, n, dim, flip, shift, scale, max_period);
    check_status(status);
    FUZZ_ASSERT(null > 1 || (null == 1 && n == 0) || status == POSENC_ERR_NULL_POINTER);
    FUZZ_ASSERT(status != POSENC_OK || !must_fail);
    FUZZ_ASSERT(buf_unchanged(&steps));
    if (status != POSENC_OK) {
        FUZZ_ASSERT(buf_unchanged(&out));
    } else {
        const float *v = (const float *)(const void *)out.p;
        size_t half = dim / 2, sin_at = flip ? half : 0, cos_at = flip ? 0 : half;
        /* the contract's range: every angle |scale t w_k| <= 2^24 (beyond, a
         * recurrence stepping to t = 0 carries its anchor's rounding, ulp(angle)) */
        double mp = max_period == 0.0 ? 10000.0 : max_period, t_max = 0.0;
        for (size_t r = 0; r < n; r++)
            t_max = fmax(t_max, fabs(t[r]));
        double w_max = half > 0 ? fmax(1.0, exp(-log(mp) * (double)(half - 1) / ((double)half - shift))) : 1.0;
        int in_range = fabs(scale) * t_max * w_max <= 0x1p24;
        for (size_t i = 0; i < need; i++)
            FUZZ_ASSERT(isfinite(v[i]) && fabsf(v[i]) <= 1.0f);
        for (size_t r = 0; r < n; r++) {
            const float *row = v + r * dim;
            for (size_t k = 0; k < half; k++) {
                double s = row[sin_at + k], c = row[cos_at + k];
                FUZZ_ASSERT(fabs(s * s + c * c - 1.0) <= 0x1p-21);
                FUZZ_ASSERT(t[r] != 0.0 || !in_range || (fabs(s) <= 0x1p-23 && fabs(c - 1.0) <= 0x1p-23));
            }
            FUZZ_ASSERT(dim % 2 == 0 || row[dim - 1] == 0.0f);
        }
    }
    buf_free(&steps);
    buf_free(&out);
    return 0;
}
