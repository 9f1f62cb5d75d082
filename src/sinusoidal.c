/*
 * sinusoidal.c: Vaswani's sinusoidal table and its concatenated variants
 * (formulas and sources in posenc.h), written or added to embeddings.
 */
#include "posenc.h"

#include "checked.h"
#include "fmath.h"
#include "params.h"
#include "position_range.h"
#include "trig.h"

typedef struct freq_ctx {
    double log_base; /* ln(base)                                  */
    double denom;    /* w_i = exp(-i * log_base / denom)          */
} freq_ctx;

static double freq_at(const void *ctx, size_t i)
{
    const freq_ctx *f = ctx;
    return fmath_exp(-(double)i * f->log_base / f->denom);
}

/* Everything a layout decides: how many sines and cosines, where they go. */
typedef struct layout_plan {
    size_t n_sin, n_cos;  /* sine and cosine columns                          */
    size_t cos_col;       /* column of the first cosine                       */
    size_t col_stride;    /* 2 for interleaved pairs, 1 for [sin | cos]       */
    int zero_last;        /* odd d in tensor2tensor/fairseq: a zero column     */
    freq_ctx freq;
} layout_plan;

/* The plan of a layout; d_index, layout_index: the argument positions of d_model and layout. */
static int plan_layout(size_t d, double base, int layout, layout_plan *plan, int d_index, int layout_index)
{
    size_t half = d / 2;
    plan->freq.log_base = fmath_log(base);
    plan->zero_last = 0;
    switch (layout) {
    case POSENC_LAYOUT_INTERLEAVED:
    case POSENC_LAYOUT_CONCATENATED:
        /* w_i = base^(-2i/d) */
        plan->n_sin = d - half;
        plan->n_cos = half;
        plan->freq.denom = (double)d / 2.0;
        plan->cos_col = layout == POSENC_LAYOUT_INTERLEAVED ? 1 : d - half;
        plan->col_stride = layout == POSENC_LAYOUT_INTERLEAVED ? 2 : 1;
        return POSENC_OK;
    case POSENC_LAYOUT_FAIRSEQ:
        if (d < 4) /* fairseq's log(10000) / (half_dim - 1) divides by zero */
            return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_D_MODEL, d_index, "d_model",
                                     POSENC_RULE_INTEGER, (double)d, 4.0, POSENC_POSITION_MAX, NULL,
                                     "layout 'fairseq' needs d_model >= 4: its ln(base) / (d_model / 2 - 1) divides by "
                                     "zero below that; 'tensor2tensor' gives the same values and allows any d_model");
        /* from d = 4 on, fairseq's values are tensor2tensor's */
        /* fall through */
    case POSENC_LAYOUT_TENSOR2TENSOR:
        /* w_i = exp(-i * ln(base) / max(half - 1, 1)) */
        plan->n_sin = half;
        plan->n_cos = half;
        plan->freq.denom = half > 1 ? (double)(half - 1) : 1.0;
        plan->cos_col = half;
        plan->col_stride = 1;
        plan->zero_last = (int)(d & 1);
        return POSENC_OK;
    default:
        return param_fail(POSENC_PARAM_LAYOUT, layout_index, layout);
    }
}

/* base, 0 the default, checked against its row (at argument position index). */
static int check_base(double *base, int index)
{
    *base = param_or_default(POSENC_PARAM_BASE, *base);
    return param_check(POSENC_PARAM_BASE, index, *base);
}

/* Writes (or adds into) the table rows for seq positions, n_batch copies. */
static void emit(const layout_plan *plan, trig_target *t, size_t seq, size_t d, int32_t offset)
{
    trig_rows rows = { seq, (double)offset, 1, NULL };
    float *row0 = t->sin_out;
    t->cos_out = row0 + plan->cos_col;
    t->col_stride = plan->col_stride;
    trig_fill(t, freq_at, &plan->freq, plan->n_sin, plan->n_cos, &rows);
    if (!plan->zero_last)
        return;
    for (size_t r = 0; r < seq; r++) {
        float *dst = row0 + r * t->row_stride + (d - 1);
        for (size_t b = 0; b < t->n_batch; b++, dst += t->batch_stride)
            *dst = t->accumulate ? *dst * t->x_scale + 0.0f : 0.0f;
    }
}

int posenc_sinusoidal(float *out, size_t out_len, size_t length, size_t d_model, double base,
                      int32_t offset, int layout)
{
    size_t need;
    layout_plan plan;
    int status;
    if (!out)
        return fail_null(1, "out");
    if ((status = param_check(POSENC_PARAM_LENGTH, 3, (double)length)) ||
        (status = param_check(POSENC_PARAM_D_MODEL, 4, (double)d_model)) || (status = check_base(&base, 5)) ||
        (status = check_last_position(length, offset, POSENC_PARAM_OFFSET, 6,
                                      "positions are int32: offset + length - 1 must be at most 2147483647")) ||
        (status = plan_layout(d_model, base, layout, &plan, 4, 7)))
        return status;
    if (checked_mul(length, d_model, &need))
        return fail_size(3, "length * d_model", length, d_model);
    if (out_len < need)
        return fail_length(2, "out_len", out_len, need);
    if (need == 0) /* nothing to write: compute no frequency (d_model may be huge) */
        return POSENC_OK;

    trig_target t = { out, NULL, d_model, 1, 0, 1, 0, 1.0f, 1.0 };
    emit(&plan, &t, length, d_model, offset);
    return POSENC_OK;
}

int posenc_sinusoidal_frequencies(double *out, size_t out_len, size_t d_model, double base,
                                  int layout)
{
    layout_plan plan;
    int status;
    if (!out)
        return fail_null(1, "out");
    if ((status = param_check(POSENC_PARAM_D_MODEL, 3, (double)d_model)) || (status = check_base(&base, 4)) ||
        (status = plan_layout(d_model, base, layout, &plan, 3, 5)))
        return status;
    if (out_len < plan.n_sin)
        return fail_length(2, "out_len", out_len, plan.n_sin);
    for (size_t i = 0; i < plan.n_sin; i++)
        out[i] = freq_at(&plan.freq, i);
    return POSENC_OK;
}

int posenc_add_sinusoidal(float *x, size_t x_len, size_t batch, size_t seq, size_t d_model,
                          int order, float scale, double base, int32_t offset, int layout)
{
    size_t need;
    layout_plan plan;
    int status;
    if (!x)
        return fail_null(1, "x");
    if ((status = param_check(POSENC_PARAM_BATCH, 3, (double)batch)) ||
        (status = param_check(POSENC_PARAM_SEQ, 4, (double)seq)) ||
        (status = param_check(POSENC_PARAM_D_MODEL, 5, (double)d_model)) ||
        (status = param_check(POSENC_PARAM_ORDER, 6, order)) ||
        (status = param_check(POSENC_PARAM_SCALE, 7, scale)) || (status = check_base(&base, 8)) ||
        (status = check_last_position(seq, offset, POSENC_PARAM_OFFSET, 9,
                                      "positions are int32: offset + seq - 1 must be at most 2147483647")) ||
        (status = plan_layout(d_model, base, layout, &plan, 5, 10)))
        return status;
    if (checked_mul3(batch, seq, d_model, &need))
        return fail_size(3, "batch * seq * d_model", batch, saturated_mul(seq, d_model));
    if (x_len < need)
        return fail_length(2, "x_len", x_len, need);
    if (need == 0)
        return POSENC_OK;

    /* BSD: x[b][s][k]; SBD: x[s][b][k]. Either way one table row per s. */
    trig_target t = { x, NULL, 0, 1, 0, batch, 1, scale, 1.0 };
    t.row_stride = order == POSENC_ORDER_BSD ? d_model : batch * d_model;
    t.batch_stride = order == POSENC_ORDER_BSD ? seq * d_model : d_model;
    emit(&plan, &t, seq, d_model, offset);
    return POSENC_OK;
}
