/*
 * rope_freq.c: RoPE inverse frequencies and attention factors, transcribed
 * from Hugging Face transformers' modeling_rope_utils.py (formulas and the
 * function of each type in posenc.h). The order of operations follows the
 * Python so that double results match a float64 run of HF's code.
 */
#include "posenc.h"

#include <math.h>
#include <stddef.h>

#include "checked.h"
#include "fmath.h"

#define DEFAULT_BASE 10000.0
#define TWO_PI (2.0 * 3.14159265358979323846)

/* Everything a type needs, defaults resolved, checked. */
typedef struct rope_plan {
    int type;
    size_t dim;            /* rotary_dim                                    */
    double base;           /* after DYNAMIC's rescaling                     */
    double factor;
    double original_max;   /* O                                             */
    double attention;      /* A                                             */
    double low, high;      /* YaRN correction range, or llama3's freq factors */
    const double *ext;     /* LongRoPE's factor list in use                  */
} rope_plan;

static int finite_positive(double v)
{
    return isfinite(v) && v > 0.0;
}

/* 0 (the default) or an integral count >= 1. */
static int optional_count(double v)
{
    return v == 0.0 || (isfinite(v) && v >= 1.0 && floor(v) == v);
}

/* HF _compute_yarn_parameters.get_mscale */
static double yarn_get_mscale(double scale, double mscale)
{
    if (scale <= 1.0)
        return 1.0;
    return 0.1 * mscale * fmath_log(scale) + 1.0;
}

/* HF _compute_yarn_parameters.find_correction_dim */
static double yarn_correction_dim(double num_rotations, double dim, double base, double max_pos)
{
    return (dim * fmath_log(max_pos / (num_rotations * TWO_PI))) / (2.0 * fmath_log(base));
}

/* factor and O for YaRN / LongRoPE: O defaults to M, factor to M / O. */
static int resolve_extension(const posenc_rope_scaling *s, rope_plan *p)
{
    double m = s->max_position_embeddings;
    if (!optional_count(m) || !optional_count(s->original_max_position_embeddings) ||
        !(s->factor == 0.0 || finite_positive(s->factor)))
        return POSENC_ERR_INVALID_ARGUMENT;
    p->original_max = s->original_max_position_embeddings != 0.0 ? s->original_max_position_embeddings : m;
    if (p->original_max == 0.0)
        return POSENC_ERR_INVALID_ARGUMENT;
    if (s->factor != 0.0)
        p->factor = s->factor;
    else if (m != 0.0)
        p->factor = m / p->original_max;
    else
        return POSENC_ERR_INVALID_ARGUMENT;
    if (!(s->attention_factor == 0.0 || finite_positive(s->attention_factor)))
        return POSENC_ERR_INVALID_ARGUMENT;
    return POSENC_OK;
}

static int plan_yarn(const posenc_rope_scaling *s, rope_plan *p)
{
    int status = resolve_extension(s, p);
    if (status)
        return status;
    double beta_fast = s->beta_fast != 0.0 ? s->beta_fast : 32.0; /* `or 32` */
    double beta_slow = s->beta_slow != 0.0 ? s->beta_slow : 1.0;  /* `or 1`  */
    if (!finite_positive(beta_fast) || !finite_positive(beta_slow) || beta_fast < beta_slow ||
        !isfinite(s->mscale) || s->mscale < 0.0 || !isfinite(s->mscale_all_dim) ||
        s->mscale_all_dim < 0.0)
        return POSENC_ERR_INVALID_ARGUMENT;
    if (s->attention_factor != 0.0)
        p->attention = s->attention_factor;
    else if (s->mscale != 0.0 && s->mscale_all_dim != 0.0)
        p->attention = yarn_get_mscale(p->factor, s->mscale) / yarn_get_mscale(p->factor, s->mscale_all_dim);
    else
        p->attention = yarn_get_mscale(p->factor, 1.0);
    double dim = (double)p->dim;
    double low = yarn_correction_dim(beta_fast, dim, p->base, p->original_max);
    double high = yarn_correction_dim(beta_slow, dim, p->base, p->original_max);
    if (!s->no_truncate) {
        low = floor(low);
        high = ceil(high);
    }
    p->low = low > 0.0 ? low : 0.0;
    p->high = high < dim - 1.0 ? high : dim - 1.0;
    if (p->low == p->high)
        p->high += 0.001; /* linear_ramp_factor: "Prevent singularity" */
    return POSENC_OK;
}

static int plan_longrope(const posenc_rope_scaling *s, size_t seq_len, rope_plan *p)
{
    int status = resolve_extension(s, p);
    if (status)
        return status;
    size_t half = p->dim / 2;
    if (!s->short_factor || !s->long_factor)
        return POSENC_ERR_NULL_POINTER;
    if (s->factors_len != half)
        return POSENC_ERR_INVALID_ARGUMENT;
    for (size_t k = 0; k < half; k++)
        if (!finite_positive(s->short_factor[k]) || !finite_positive(s->long_factor[k]))
            return POSENC_ERR_INVALID_ARGUMENT;
    if (s->attention_factor != 0.0)
        p->attention = s->attention_factor;
    else if (p->factor <= 1.0)
        p->attention = 1.0;
    else
        p->attention = sqrt(1.0 + fmath_log(p->factor) / fmath_log(p->original_max));
    /* `if seq_len and seq_len > original_max_position_embeddings` */
    p->ext = seq_len != 0 && (double)seq_len > p->original_max ? s->long_factor : s->short_factor;
    return POSENC_OK;
}

static int plan_rope(rope_plan *p, size_t rotary_dim, double base, const posenc_rope_scaling *s,
                     size_t seq_len)
{
    static const posenc_rope_scaling none = { 0 };
    if (!s)
        s = &none;
    if (base == 0.0)
        base = DEFAULT_BASE;
    if (rotary_dim < 2 || rotary_dim % 2 || !isfinite(base) || !(base > 1.0))
        return POSENC_ERR_INVALID_ARGUMENT;
    *p = (rope_plan){ s->type, rotary_dim, base, 1.0, 0.0, 1.0, 0.0, 0.0, NULL };
    switch (s->type) {
    case POSENC_ROPE_DEFAULT:
        return POSENC_OK;
    case POSENC_ROPE_LINEAR:
        p->factor = s->factor;
        return finite_positive(p->factor) ? POSENC_OK : POSENC_ERR_INVALID_ARGUMENT;
    case POSENC_ROPE_DYNAMIC: {
        double m = s->max_position_embeddings;
        p->factor = s->factor;
        /* r / (r - 2) divides by zero at r = 2 */
        if (rotary_dim < 4 || !finite_positive(p->factor) || m == 0.0 || !optional_count(m))
            return POSENC_ERR_INVALID_ARGUMENT;
        double len = (double)seq_len > m ? (double)seq_len : m;
        double d = (double)rotary_dim;
        p->base = base * fmath_pow((p->factor * len / m) - (p->factor - 1.0), d / (d - 2.0));
        return isfinite(p->base) && p->base > 1.0 ? POSENC_OK : POSENC_ERR_INVALID_ARGUMENT;
    }
    case POSENC_ROPE_YARN:
        return plan_yarn(s, p);
    case POSENC_ROPE_LLAMA3:
        p->factor = s->factor;
        p->original_max = s->original_max_position_embeddings;
        p->low = s->low_freq_factor;
        p->high = s->high_freq_factor;
        /* high == low empties the smooth band (Llama 4 Scout: 1 and 1; HF accepts it with a
           warning); a wavelength exactly on its edge would divide 0 by 0: NaN, refused below */
        if (!finite_positive(p->factor) || p->original_max == 0.0 || !optional_count(p->original_max) ||
            !finite_positive(p->low) || !finite_positive(p->high) || !(p->high >= p->low))
            return POSENC_ERR_INVALID_ARGUMENT;
        return POSENC_OK;
    case POSENC_ROPE_LONGROPE:
        return plan_longrope(s, seq_len, p);
    default:
        return POSENC_ERR_INVALID_ARGUMENT;
    }
}

/* HF _compute_llama3_parameters, one frequency. */
static double llama3_frequency(const rope_plan *p, double f)
{
    double old_context_len = p->original_max;
    double low_freq_wavelen = old_context_len / p->low;
    double high_freq_wavelen = old_context_len / p->high;
    double wavelen = TWO_PI / f;
    if (wavelen > low_freq_wavelen)
        return f / p->factor;
    if (wavelen < high_freq_wavelen)
        return f;
    double smooth = (old_context_len / wavelen - p->low) / (p->high - p->low);
    return (1.0 - smooth) * f / p->factor + smooth * f;
}

static double frequency(const rope_plan *p, size_t k)
{
    /* base ** (arange(0, dim, 2) / dim) */
    double pos_freq = fmath_pow(p->base, (double)(2 * k) / (double)p->dim);
    switch (p->type) {
    case POSENC_ROPE_LINEAR:
        return 1.0 / pos_freq / p->factor;
    case POSENC_ROPE_YARN: {
        double ramp = ((double)k - p->low) / (p->high - p->low);
        ramp = ramp < 0.0 ? 0.0 : ramp > 1.0 ? 1.0 : ramp;
        double extrapolation_factor = 1.0 - ramp;
        double interpolation = 1.0 / (p->factor * pos_freq);
        double extrapolation = 1.0 / pos_freq;
        return interpolation * (1.0 - extrapolation_factor) + extrapolation * extrapolation_factor;
    }
    case POSENC_ROPE_LLAMA3:
        return llama3_frequency(p, 1.0 / pos_freq);
    case POSENC_ROPE_LONGROPE:
        return 1.0 / (p->ext[k] * pos_freq);
    default: /* DEFAULT, DYNAMIC (its base is already rescaled) */
        return 1.0 / pos_freq;
    }
}

int posenc_rope_frequencies(double *inv_freq, size_t n, size_t rotary_dim, double base,
                            const posenc_rope_scaling *s, size_t seq_len, double *attention_factor)
{
    rope_plan plan;
    int status;
    if (!inv_freq || !attention_factor)
        return POSENC_ERR_NULL_POINTER;
    if ((status = plan_rope(&plan, rotary_dim, base, s, seq_len)))
        return status;
    /* the ranges posenc_rope_cache and posenc_rope_apply accept (posenc.h) */
    if (!(plan.attention > 0.0 && plan.attention <= POSENC_ROPE_ATTENTION_MAX))
        return POSENC_ERR_INVALID_ARGUMENT;
    size_t half = rotary_dim / 2;
    if (n < half)
        return POSENC_ERR_BUFFER_TOO_SMALL;
    /* the two outputs must be two places; LongRoPE's factors are read while
     * inv_freq is written */
    size_t freq_bytes = posenc_bytes(half, sizeof *inv_freq);
    if (posenc_overlaps(inv_freq, freq_bytes, attention_factor, sizeof *attention_factor))
        return POSENC_ERR_INVALID_ARGUMENT;
    if (plan.type == POSENC_ROPE_LONGROPE) {
        size_t factor_bytes = posenc_bytes(s->factors_len, sizeof *s->short_factor);
        if (posenc_overlaps(inv_freq, freq_bytes, s->short_factor, factor_bytes) ||
            posenc_overlaps(inv_freq, freq_bytes, s->long_factor, factor_bytes))
            return POSENC_ERR_INVALID_ARGUMENT;
    }
    /* a pass without writing first, so that an unusable value writes nothing */
    for (size_t k = 0; k < half; k++)
        if (!(fabs(frequency(&plan, k)) <= POSENC_ROPE_FREQUENCY_MAX))
            return POSENC_ERR_INVALID_ARGUMENT;
    for (size_t k = 0; k < half; k++)
        inv_freq[k] = frequency(&plan, k);
    *attention_factor = plan.attention;
    return POSENC_OK;
}
