/*
 * rope_freq.c: RoPE inverse frequencies and attention factors, transcribed
 * from Hugging Face transformers' modeling_rope_utils.py (formulas and the
 * function of each type in posenc.h), and the checks of a posenc_rope. The
 * order of operations follows the Python so that double results match a
 * float64 run of HF's code.
 */
#include "posenc.h"

#include <math.h>
#include <stddef.h>

#include "checked.h"
#include "fmath.h"
#include "params.h"
#include "rope_plan.h"
#include "trig.h"

#define TWO_PI (2.0 * 3.14159265358979323846)

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

/* A scaling field checked against its row, when set (0: absent). */
static int check_set(int id, int index, double value)
{
    return value == 0.0 ? POSENC_OK : param_check(id, index, value);
}

/* The reason an extension type needs its lengths (posenc.h: factor = M / O). */
static const char *const NEEDS_LENGTHS =
    "needed (or scaling.max_position_embeddings, its default: factor = max_position_embeddings / "
    "original_max_position_embeddings, as Hugging Face derives it)";

/* factor and O for YaRN / LongRoPE: O defaults to M, factor to M / O. */
static int resolve_extension(const posenc_rope_scaling *s, rope_plan *p, int index)
{
    double m = s->max_position_embeddings;
    int status;
    if ((status = check_set(POSENC_PARAM_MAX_POSITION, index, m)) ||
        (status = check_set(POSENC_PARAM_ORIGINAL_MAX_POSITION, index, s->original_max_position_embeddings)) ||
        (status = check_set(POSENC_PARAM_FACTOR, index, s->factor)) ||
        (status = check_set(POSENC_PARAM_SCALING_ATTENTION, index, s->attention_factor)))
        return status;
    p->original_max = s->original_max_position_embeddings != 0.0 ? s->original_max_position_embeddings : m;
    if (p->original_max == 0.0)
        return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_ORIGINAL_MAX_POSITION, index,
                                 "scaling.original_max_position_embeddings", POSENC_RULE_INTEGER, 0.0, 1.0,
                                 POSENC_POSITION_MAX, NULL, NEEDS_LENGTHS);
    if (s->factor != 0.0)
        p->factor = s->factor;
    else if (m != 0.0)
        p->factor = m / p->original_max;
    else
        return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_FACTOR, index, "scaling.factor",
                                 POSENC_RULE_ABOVE, 0.0, 0.0, POSENC_REAL_MAX, NULL, NEEDS_LENGTHS);
    return POSENC_OK;
}

static int plan_yarn(const posenc_rope_scaling *s, rope_plan *p, int index)
{
    int status = resolve_extension(s, p, index);
    if (status)
        return status;
    double beta_fast = param_or_default(POSENC_PARAM_BETA_FAST, s->beta_fast); /* `or 32` */
    double beta_slow = param_or_default(POSENC_PARAM_BETA_SLOW, s->beta_slow); /* `or 1`  */
    if ((status = param_check(POSENC_PARAM_BETA_FAST, index, beta_fast)) ||
        (status = param_check(POSENC_PARAM_BETA_SLOW, index, beta_slow)) ||
        (status = param_check(POSENC_PARAM_MSCALE, index, s->mscale)) ||
        (status = param_check(POSENC_PARAM_MSCALE_ALL_DIM, index, s->mscale_all_dim)) ||
        (status = param_check(POSENC_PARAM_NO_TRUNCATE, index, s->no_truncate)))
        return status;
    if (beta_fast < beta_slow)
        return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_BETA_FAST, index, "scaling.beta_fast",
                                 POSENC_RULE_AT_LEAST, beta_fast, beta_slow, POSENC_REAL_MAX, "scaling.beta_slow", NULL);
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

static int plan_longrope(const posenc_rope_scaling *s, size_t seq_len, rope_plan *p, int index)
{
    int status = resolve_extension(s, p, index);
    if (status)
        return status;
    if (!s->short_factor)
        return fail_null(index, "scaling.short_factor");
    if (!s->long_factor)
        return fail_null(index, "scaling.long_factor");
    if (s->factors_len != p->half)
        return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_FACTORS_LEN, index, "scaling.short_factor",
                                 POSENC_RULE_RESULT, (double)s->factors_len, (double)p->half, (double)p->half, NULL,
                                 "and scaling.long_factor must have rotary_dim / 2 = % values each");
    for (size_t k = 0; k < p->half; k++)
        if ((status = param_check_element(POSENC_PARAM_SHORT_FACTOR, index, k, s->short_factor[k])) ||
            (status = param_check_element(POSENC_PARAM_LONG_FACTOR, index, k, s->long_factor[k])))
            return status;
    if (s->attention_factor != 0.0)
        p->attention = s->attention_factor;
    else if (p->factor <= 1.0)
        p->attention = 1.0;
    else if (p->original_max == 1.0) /* sqrt(1 + ln(factor) / ln(O)) divides by ln 1 = 0 */
        return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_ORIGINAL_MAX_POSITION, index,
                                 "scaling.original_max_position_embeddings", POSENC_RULE_INTEGER, 1.0, 2.0,
                                 POSENC_POSITION_MAX, NULL,
                                 "LongRoPE's attention factor divides by ln(original_max_position_embeddings)");
    else
        p->attention = sqrt(1.0 + fmath_log(p->factor) / fmath_log(p->original_max));
    /* `if seq_len and seq_len > original_max_position_embeddings` */
    p->ext = seq_len != 0 && (double)seq_len > p->original_max ? s->long_factor : s->short_factor;
    return POSENC_OK;
}

static int plan_scaling(const posenc_rope_scaling *s, size_t seq_len, rope_plan *p, int index)
{
    /* every type may carry max_position_embeddings (HF validates it even where
       the formula does not read it): set, it is a position count */
    int status = check_set(POSENC_PARAM_MAX_POSITION, index, s->max_position_embeddings);
    if (status)
        return status;
    switch (s->type) {
    case POSENC_ROPE_DEFAULT:
        return POSENC_OK;
    case POSENC_ROPE_LINEAR:
        p->factor = s->factor;
        return param_check(POSENC_PARAM_FACTOR, index, p->factor);
    case POSENC_ROPE_DYNAMIC: {
        double m = s->max_position_embeddings;
        p->factor = s->factor;
        /* r / (r - 2) divides by zero at r = 2 */
        if (p->dim < 4)
            return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_ROTARY_DIM, index, "rotary_dim",
                                     POSENC_RULE_EVEN, (double)p->dim, 4.0, POSENC_POSITION_MAX, NULL,
                                     "for scaling type DYNAMIC: its exponent rotary_dim / (rotary_dim - 2) divides by zero at 2");
        if ((status = param_check(POSENC_PARAM_FACTOR, index, p->factor)) ||
            (status = param_check(POSENC_PARAM_MAX_POSITION, index, m)))
            return status;
        double len = (double)seq_len > m ? (double)seq_len : m;
        double d = (double)p->dim;
        p->base = p->base * fmath_pow((p->factor * len / m) - (p->factor - 1.0), d / (d - 2.0));
        if (!(isfinite(p->base) && p->base > 1.0))
            return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_FACTOR, index, "scaling.factor",
                                     POSENC_RULE_RESULT, p->factor, 0.0, 0.0, NULL,
                                     "gives DYNAMIC's scaled base a value that is not finite or not above 1");
        return POSENC_OK;
    }
    case POSENC_ROPE_YARN:
        return plan_yarn(s, p, index);
    case POSENC_ROPE_LLAMA3:
        p->factor = s->factor;
        p->original_max = s->original_max_position_embeddings;
        p->low = s->low_freq_factor;
        p->high = s->high_freq_factor;
        if ((status = param_check(POSENC_PARAM_FACTOR, index, p->factor)) ||
            (status = param_check(POSENC_PARAM_ORIGINAL_MAX_POSITION, index, p->original_max)) ||
            (status = param_check(POSENC_PARAM_LOW_FREQ_FACTOR, index, p->low)) ||
            (status = param_check(POSENC_PARAM_HIGH_FREQ_FACTOR, index, p->high)))
            return status;
        /* high == low empties the smooth band (Llama 4 Scout: 1 and 1; HF accepts it with a
           warning); a wavelength exactly on its edge would divide 0 by 0: NaN, refused later */
        if (!(p->high >= p->low))
            return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_HIGH_FREQ_FACTOR, index,
                                     "scaling.high_freq_factor", POSENC_RULE_AT_LEAST, p->high, p->low, POSENC_REAL_MAX,
                                     "scaling.low_freq_factor", "equal: no smooth band, as Llama 4");
        return POSENC_OK;
    case POSENC_ROPE_LONGROPE:
        return plan_longrope(s, seq_len, p, index);
    default:
        return param_fail(POSENC_PARAM_SCALING_TYPE, index, s->type);
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

/* f_k of the scaling, before any 2-D arrangement. */
static double frequency(const rope_plan *p, size_t k)
{
    if (p->given)
        return p->given[k];
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

/* The frequency of pair k as the rotation uses it: 2-D forms take f_{2k}
 * (and f_{2k+1}) of r / 4 pairs per axis (posenc.h, posenc_rope_2d). */
static double arranged(const rope_plan *p, size_t k)
{
    size_t q = p->half / 2;
    switch (p->form) {
    case POSENC_ROPE_2D_PIXTRAL:
        return k < q ? frequency(p, 2 * k) : frequency(p, 2 * (k - q) + 1);
    case POSENC_ROPE_2D_AXIAL:
        return frequency(p, 2 * (k < q ? k : k - q));
    default:
        return frequency(p, k);
    }
}

void rope_plan_block(const rope_plan *p, size_t k0, size_t n, double *w)
{
    for (size_t i = 0; i < n; i++)
        w[i] = arranged(p, k0 + i);
}

/*
 * 1 <= n_axes <= POSENC_ROPE_MAX_AXES, the sections add up to rotary_dim / 2,
 * and, interleaved, axis a >= 1 has all its sections[a] pairs k = a + n_axes j
 * below rotary_dim / 2: section a counts the pairs of axis a either way.
 */
static int check_axes(const posenc_rope_axes *axes, size_t half, int index)
{
    size_t sum = 0;
    int status;
    if (!axes)
        return fail_null(index, "axes");
    if ((status = param_check(POSENC_PARAM_N_AXES, index, (double)axes->n_axes)) ||
        (status = param_check(POSENC_PARAM_ARRANGEMENT, index, axes->arrangement)))
        return status;
    for (size_t a = 0; a < axes->n_axes; a++) {
        size_t n = axes->sections[a];
        if ((status = param_check(POSENC_PARAM_SECTIONS, index, (double)n)))
            return status;
        sum += n; /* each <= POSENC_POSITION_MAX: no overflow */
        /* the last pair of axis a, a + n_axes (sections[a] - 1), must exist */
        if (axes->arrangement == POSENC_AXES_INTERLEAVED && a > 0 && n > 0 &&
            (a >= half || n - 1 > (half - 1 - a) / axes->n_axes)) {
            param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_SECTIONS, index, "sections",
                              POSENC_RULE_RESULT, (double)n, 0.0, 0.0, NULL,
                              "is too many pairs for interleaved M-RoPE: axis a takes pairs a, a + n_axes, ... "
                              "below rotary_dim / 2");
            return param_element(POSENC_ERR_INVALID_ARGUMENT, a);
        }
    }
    if (sum != half)
        return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_SECTIONS, index, "sections",
                                 POSENC_RULE_RESULT, (double)sum, (double)half, (double)half, "rotary_dim / 2",
                                 "must add up to rotary_dim / 2 = % (the pairs of each axis)");
    return POSENC_OK;
}

/* The 2-D forms: two axes of r / 4 pairs, sectioned, plain frequencies. */
static int check_form(const rope_plan *p, const posenc_rope *rope, const posenc_rope_axes *axes, int axes_index,
                      int index)
{
    static const char *const why = "for the 2-D forms (two axes of rotary_dim / 4 pairs each)";
    int status;
    if ((status = param_check(POSENC_PARAM_FORM_2D, axes_index, axes->form)) || axes->form == POSENC_ROPE_2D_NONE)
        return status;
    if (p->dim % 4)
        return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_ROTARY_DIM, index, "rotary_dim",
                                 POSENC_RULE_MULTIPLE, (double)p->dim, 4.0, POSENC_POSITION_MAX, NULL, why);
    if (axes->n_axes != 2 || axes->sections[0] != p->half / 2 || axes->sections[1] != p->half / 2 ||
        axes->arrangement != POSENC_AXES_SECTIONED)
        return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_FORM_2D, axes_index, "form",
                                 POSENC_RULE_RESULT, axes->form, 0.0, 0.0, NULL,
                                 "needs n_axes 2, sections [rotary_dim / 4, rotary_dim / 4] and the sectioned arrangement");
    if (rope->inv_freq || rope->scaling.type != POSENC_ROPE_DEFAULT)
        return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_FORM_2D, axes_index, "form",
                                 POSENC_RULE_RESULT, axes->form, 0.0, 0.0, NULL,
                                 "arranges the frequencies of base alone: no scaling, no inv_freq");
    return POSENC_OK;
}

int rope_plan_make(rope_plan *p, const posenc_rope *rope, int index, size_t head_dim, size_t seq_len,
                   const posenc_rope_axes *axes, int axes_index)
{
    int status;
    if (!rope)
        return fail_null(index, "rope");
    size_t dim = rope->rotary_dim == 0 && head_dim ? head_dim : rope->rotary_dim;
    if (head_dim && !(dim >= 2 && dim % 2 == 0 && dim <= head_dim)) /* a rotated head: 2 .. head_dim */
        return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_ROTARY_DIM, index, "rotary_dim",
                                 POSENC_RULE_EVEN, (double)dim, 2.0, (double)head_dim, "head_dim", NULL);
    if ((status = param_check(POSENC_PARAM_ROTARY_DIM, index, (double)dim)))
        return status;
    *p = (rope_plan){ .type = POSENC_ROPE_DEFAULT, .dim = dim, .half = dim / 2, .factor = 1.0, .attention = 1.0 };
    p->layout = rope->layout;
    p->precision = rope->precision;
    p->form = axes ? axes->form : POSENC_ROPE_2D_NONE;
    if ((status = param_check(POSENC_PARAM_ROPE_LAYOUT, index, rope->layout)) ||
        (status = param_check(POSENC_PARAM_PRECISION, index, rope->precision)) ||
        (axes && ((status = check_form(p, rope, axes, axes_index, index)) ||
                  (status = check_axes(axes, p->half, axes_index)))))
        return status;
    p->base = param_or_default(POSENC_PARAM_BASE, rope->base);
    p->type = rope->scaling.type;
    if ((status = param_check(POSENC_PARAM_BASE, index, p->base)) ||
        (status = param_check(POSENC_PARAM_SEQ_LEN, index, (double)rope->seq_len)) ||
        (status = plan_scaling(&rope->scaling, rope->seq_len ? rope->seq_len : seq_len, p, index)))
        return status;
    if (rope->inv_freq) { /* the frequencies as given; A the given one, or the scaling's */
        p->given = rope->inv_freq;
        if (rope->attention_factor != 0.0)
            p->attention = rope->attention_factor;
        if ((status = param_check(POSENC_PARAM_ATTENTION_FACTOR, index, p->attention)))
            return status;
        for (size_t k = 0; k < p->half; k++)
            if ((status = param_check_element(POSENC_PARAM_INV_FREQ, index, k, rope->inv_freq[k])))
                return status;
        return POSENC_OK;
    }
    /* the ranges the caches and rotations accept (posenc.h) */
    if (!(p->attention > 0.0 && p->attention <= POSENC_ROPE_ATTENTION_MAX))
        return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_SCALING_TYPE, index, "scaling",
                                 POSENC_RULE_RESULT, p->attention, 0.0, POSENC_ROPE_ATTENTION_MAX, NULL,
                                 "gives an attention factor outside (0, 3.4e38]");
    return POSENC_OK;
}

int rope_plan_check(const rope_plan *p, int index)
{
    if (p->given)
        return POSENC_OK; /* checked value by value by rope_plan_make */
    for (size_t k = 0; k < p->half; k++) {
        double f = frequency(p, k);
        if (!(fabs(f) <= POSENC_ROPE_FREQUENCY_MAX))
            return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_SCALING_TYPE, index, "scaling",
                                     POSENC_RULE_RESULT, p->base, 0.0, POSENC_ROPE_FREQUENCY_MAX, NULL,
                                     "gives a frequency that is not finite or past 2^64 (angles or float caches "
                                     "would overflow): an overflowing scaled base, a tiny factor");
    }
    return POSENC_OK;
}

int rope_plan_at(rope_plan *p, const posenc_rope *rope, int index, size_t head_dim, size_t seq_len,
                 const posenc_rope_axes *axes, int axes_index)
{
    int status;
    if (!rope->seq_len &&
        (rope->scaling.type == POSENC_ROPE_DYNAMIC || rope->scaling.type == POSENC_ROPE_LONGROPE) &&
        (status = rope_plan_make(p, rope, index, head_dim, seq_len, axes, axes_index)))
        return status; /* else the plan of seq_len 0 is the call's */
    return rope_plan_check(p, index);
}

size_t rope_plan_inputs(const rope_plan *p, const posenc_rope *rope, const void *ptrs[3], size_t bytes[3],
                        const char *names[3])
{
    size_t n = 0;
    if (p->given) {
        ptrs[n] = p->given, bytes[n] = posenc_bytes(p->half, sizeof(double)), names[n++] = "rope->inv_freq";
    } else if (p->type == POSENC_ROPE_LONGROPE) {
        ptrs[n] = rope->scaling.short_factor, bytes[n] = posenc_bytes(p->half, sizeof(double));
        names[n++] = "rope->scaling.short_factor";
        ptrs[n] = rope->scaling.long_factor, bytes[n] = posenc_bytes(p->half, sizeof(double));
        names[n++] = "rope->scaling.long_factor";
    }
    return n;
}

int posenc_rope_frequencies(double *inv_freq, size_t n, const posenc_rope *rope, const posenc_rope_axes *axes,
                            double *attention_factor)
{
    rope_plan plan;
    int status;
    if (!inv_freq)
        return fail_null(1, "inv_freq");
    if (!attention_factor)
        return fail_null(5, "attention_factor");
    if ((status = rope_plan_make(&plan, rope, 3, 0, 0, axes, 4)))
        return status;
    if (n < plan.half)
        return fail_length(2, "inv_freq", n, plan.half);
    /* the two outputs must be two places; the plan's inputs are read while inv_freq is written */
    size_t freq_bytes = posenc_bytes(plan.half, sizeof *inv_freq);
    if (posenc_overlaps(inv_freq, freq_bytes, attention_factor, sizeof *attention_factor))
        return fail_overlap(1, "inv_freq", "attention_factor");
    const void *ptrs[3];
    size_t bytes[3];
    const char *names[3];
    for (size_t i = 0, count = rope_plan_inputs(&plan, rope, ptrs, bytes, names); i < count; i++)
        if (posenc_overlaps(inv_freq, freq_bytes, ptrs[i], bytes[i]))
            return fail_overlap(1, "inv_freq", names[i]);
    if ((status = rope_plan_check(&plan, 3)))
        return status;
    for (size_t k0 = 0; k0 < plan.half; k0 += TRIG_BLOCK)
        rope_plan_block(&plan, k0, plan.half - k0 < TRIG_BLOCK ? plan.half - k0 : TRIG_BLOCK, inv_freq + k0);
    *attention_factor = plan.attention;
    return POSENC_OK;
}
