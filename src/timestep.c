/*
 * timestep.c: diffusers' sinusoidal timestep embedding (formula, source and
 * layout in posenc.h).
 *
 * Timesteps are real numbers. Each row's angles (scale t) w_k are formed in
 * double and evaluated directly; a run of consecutive integral scale * t
 * (embedding every training timestep, say) steps the exact recurrence
 * instead, as the integer-position tables do.
 */
#include "posenc.h"

#include <math.h>

#include "checked.h"
#include "fmath.h"
#include "params.h"
#include "trig.h"

/* get_timestep_embedding: exponent = -ln(max_period) * k, then / (half - shift), then exp. */
static double timestep_freq(double neg_log_period, double k, double denom)
{
    return fmath_exp(neg_log_period * k / denom);
}

/* Positions the recurrence steps through: integers in int32's range, where
 * p + 1 is exact and runs of consecutive ones occur (a schedule's timesteps). */
static int on_grid(double p)
{
    return floor(p) == p && fabs(p) <= 2147483647.0;
}

int posenc_timestep_embedding(float *out, size_t out_len, const double *timesteps, size_t n,
                              size_t dim, int flip_sin_to_cos, double downscale_freq_shift,
                              double scale, double max_period)
{
    size_t need;
    int status;
    if (!out)
        return fail_null(1, "out");
    if (!timesteps && n > 0)
        return fail_null(3, "timesteps");
    max_period = param_or_default(POSENC_PARAM_MAX_PERIOD, max_period);
    size_t half = dim / 2;
    double denom = (double)half - downscale_freq_shift;
    if ((status = param_check(POSENC_PARAM_DIM, 5, (double)dim)) ||
        (status = param_check(POSENC_PARAM_FLIP_SIN_TO_COS, 6, flip_sin_to_cos)) ||
        (status = param_check(POSENC_PARAM_DOWNSCALE_FREQ_SHIFT, 7, downscale_freq_shift)) ||
        (status = param_check(POSENC_PARAM_TIMESTEP_SCALE, 8, scale)) ||
        (status = param_check(POSENC_PARAM_MAX_PERIOD, 9, max_period)))
        return status;
    if (half > 0 && denom == 0.0)
        return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_DOWNSCALE_FREQ_SHIFT, 7,
                                 "downscale_freq_shift", POSENC_RULE_RESULT, downscale_freq_shift, (double)half,
                                 (double)half, NULL,
                                 "must differ from floor(dim / 2) = % (the frequencies divide by their "
                                 "difference)");
    if (checked_mul(n, dim, &need))
        return fail_size(4, "n * dim", n, dim);
    if (out_len < need)
        return fail_length(2, "out_len", out_len, need);
    if (need == 0)
        return POSENC_OK;
    /* every block of frequencies reads the timesteps again: out must not cover them */
    if (posenc_overlaps(out, posenc_bytes(need, sizeof *out), timesteps, posenc_bytes(n, sizeof *timesteps)))
        return fail_overlap(1, "out", "timesteps");

    /* Every angle must be finite: |scale t| w_k is largest at the largest |t|
     * and at an end of k (w_k is monotone in k); rounding is monotone too. */
    double neg_log_period = -fmath_log(max_period), t_max = 0.0;
    size_t r_max = 0;
    for (size_t r = 0; r < n; r++) {
        if ((status = param_check_element(POSENC_PARAM_TIMESTEPS, 3, r, timesteps[r])))
            return status;
        if (fabs(timesteps[r]) > t_max)
            t_max = fabs(timesteps[r]), r_max = r;
    }
    if (half > 0) {
        double w_max = fmax(1.0, timestep_freq(neg_log_period, (double)(half - 1), denom));
        if (!isfinite(w_max))
            return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_DOWNSCALE_FREQ_SHIFT, 7,
                                     "downscale_freq_shift", POSENC_RULE_RESULT, downscale_freq_shift, 0.0, 0.0,
                                     NULL,
                                     "gives a frequency max_period^(-k / (floor(dim / 2) - "
                                     "downscale_freq_shift)) that overflows to infinity");
        if (n > 0 && !isfinite(fabs(scale) * t_max * w_max))
            return param_element(param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_TIMESTEPS, 3,
                                                   "timesteps", POSENC_RULE_RESULT, timesteps[r_max], 0.0, 0.0,
                                                   NULL,
                                                   "gives an angle scale * t * w that overflows, the "
                                                   "frequencies w up to max(1, exp(ln(max_period) * (floor(dim "
                                                   "/ 2) - 1) / (downscale_freq_shift - floor(dim / 2))))"),
                                 r_max);
    }

    /* [sin | cos], or [cos | sin] flipped; an odd dim ends on a zero column */
    size_t sin_col = flip_sin_to_cos ? half : 0, cos_col = flip_sin_to_cos ? 0 : half;
    double w[TRIG_BLOCK];
    trig_stream stream;
    for (size_t k0 = 0; k0 < half; k0 += TRIG_BLOCK) {
        size_t nk = half - k0;
        if (nk > TRIG_BLOCK)
            nk = TRIG_BLOCK;
        for (size_t k = 0; k < nk; k++)
            w[k] = timestep_freq(neg_log_period, (double)(k0 + k), denom);
        trig_stream_start(&stream, w, nk, 0.0);
        double prev = 0.5; /* not on the grid: the first row starts afresh */
        for (size_t r = 0; r < n; r++) {
            double p = scale * timesteps[r];
            float *row = out + r * dim;
            if (on_grid(p)) {
                /* a run of consecutive integers steps; any other starts a new run */
                if (!(on_grid(prev) && p == prev + 1.0))
                    trig_stream_seek(&stream, p);
                trig_stream_row(&stream, row + cos_col + k0, row + sin_col + k0, 1.0);
            } else {
                trig_point(w, nk, p, row + cos_col + k0, row + sin_col + k0, 1.0);
            }
            prev = p;
        }
    }
    if (dim % 2)
        for (size_t r = 0; r < n; r++)
            out[r * dim + dim - 1] = 0.0f;
    return POSENC_OK;
}
