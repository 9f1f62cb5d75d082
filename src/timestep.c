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
#include "trig.h"

#define DEFAULT_MAX_PERIOD 10000.0

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
    if (!out || (!timesteps && n > 0))
        return POSENC_ERR_NULL_POINTER;
    if (max_period == 0.0)
        max_period = DEFAULT_MAX_PERIOD;
    size_t half = dim / 2;
    double denom = (double)half - downscale_freq_shift;
    if (dim == 0 || (flip_sin_to_cos != 0 && flip_sin_to_cos != 1) || !isfinite(downscale_freq_shift) ||
        !isfinite(scale) || !(max_period > 0.0) || !isfinite(max_period) || (half > 0 && denom == 0.0))
        return POSENC_ERR_INVALID_ARGUMENT;
    if (checked_mul(n, dim, &need))
        return POSENC_ERR_SIZE_OVERFLOW;
    if (out_len < need)
        return POSENC_ERR_BUFFER_TOO_SMALL;
    if (need == 0)
        return POSENC_OK;
    /* every block of frequencies reads the timesteps again: out must not cover them */
    if (posenc_overlaps(out, posenc_bytes(need, sizeof *out), timesteps, posenc_bytes(n, sizeof *timesteps)))
        return POSENC_ERR_INVALID_ARGUMENT;

    /* Every angle must be finite: |scale t| w_k is largest at the largest |t|
     * and at an end of k (w_k is monotone in k); rounding is monotone too. */
    double neg_log_period = -fmath_log(max_period), t_max = 0.0;
    for (size_t r = 0; r < n; r++) {
        if (!isfinite(timesteps[r]))
            return POSENC_ERR_INVALID_ARGUMENT;
        t_max = fmax(t_max, fabs(timesteps[r]));
    }
    if (half > 0) {
        double w_max = fmax(1.0, timestep_freq(neg_log_period, (double)(half - 1), denom));
        if (!isfinite(w_max) || !isfinite(fabs(scale) * t_max * w_max))
            return POSENC_ERR_INVALID_ARGUMENT;
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
