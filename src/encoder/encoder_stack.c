/*
 * encoder_stack.c: the layer stack of the tiny encoder (parameter layout and
 * formulas in posenc_encoder.h), shared by the whole-sequence pass (src/encoder/encoder.c)
 * and incremental decoding (src/encoder/decoder.c). The positional schemes reuse
 * posenc's own routines: posenc_add_sinusoidal, posenc_rope_apply,
 * posenc_alibi_bias and posenc_t5_bias; their checks run once, up front, as
 * calls on empty inputs.
 */
#include "encoder_stack.h"

#include <float.h>
#include <math.h>

#include "checked.h"
#include "fmath.h"
#include "nn_attend.h"
#include "nn_kernels.h"
#include "nn_math.h"

#define T5_DEFAULT_BUCKETS 32
/* Llama 4's defaults (transformers' Llama4TextConfig: floor_scale 8192, attn_scale 0.1) */
#define LLAMA4_FLOOR_SCALE 8192.0
#define LLAMA4_ATTN_SCALE 0.1

/*
 * The query multiplier at position p, in double (posenc_encoder.h,
 * posenc_query_scale), the log posenc's own (src/fmath.h: the same bits in
 * every build, and no libm tables in the wasm):
 *   LLAMA4      log(floor((p + 1) / floor_scale) + 1) * attn_scale + 1
 *               (transformers modeling_llama4.py Llama4TextAttention, its
 *               attn_temperature_tuning on the NoPE layers)
 *   MINISTRAL3  1 + beta * log(1 + floor(p / original_max_position))
 *               (modeling_ministral3.py, llama_4_scaling_beta)
 */
static double query_scale_at(const posenc_encoder_config *c, double p)
{
    if (c->query_scale == POSENC_QUERY_SCALE_LLAMA4)
        return fmath_log(floor((p + 1.0) / c->query_floor_scale) + 1.0) * c->query_attn_scale + 1.0;
    if (c->query_scale == POSENC_QUERY_SCALE_MINISTRAL3)
        return 1.0 + c->query_beta * fmath_log(1.0 + floor(p / c->query_original_max_position));
    return 1.0;
}

/* Defaults and ranges of the query scale: every multiplier must be a finite
 * float; each formula is monotonic in p, so checking the last position and
 * the first checks them all. */
static int check_query_scale(posenc_encoder_config *c)
{
    switch (c->query_scale) {
    case POSENC_QUERY_SCALE_NONE:
        return POSENC_OK;
    case POSENC_QUERY_SCALE_LLAMA4:
        if (c->query_floor_scale == 0.0)
            c->query_floor_scale = LLAMA4_FLOOR_SCALE;
        if (c->query_attn_scale == 0.0)
            c->query_attn_scale = LLAMA4_ATTN_SCALE;
        if (!isfinite(c->query_floor_scale) || !(c->query_floor_scale > 0.0) || !isfinite(c->query_attn_scale))
            return POSENC_ERR_INVALID_ARGUMENT;
        break;
    case POSENC_QUERY_SCALE_MINISTRAL3:
        if (!isfinite(c->query_beta) || !isfinite(c->query_original_max_position) ||
            !(c->query_original_max_position >= 1.0))
            return POSENC_ERR_INVALID_ARGUMENT;
        break;
    default:
        return POSENC_ERR_INVALID_ARGUMENT;
    }
    double first = query_scale_at(c, 0.0), last = query_scale_at(c, (double)POSENC_POSITION_MAX);
    return fabs(first) <= FLT_MAX && fabs(last) <= FLT_MAX ? POSENC_OK : POSENC_ERR_INVALID_ARGUMENT;
}

static int check_positional(model *m)
{
    posenc_encoder_config *c = &m->c;
    float f = 0.0f;
    int32_t i = 0;
    switch (c->positional) {
    case POSENC_POSITIONAL_NONE:
        return POSENC_OK;
    case POSENC_POSITIONAL_SINUSOIDAL:
        return posenc_sinusoidal(&f, 0, 0, c->d_model, c->sinusoidal_base, 0, c->sinusoidal_layout);
    case POSENC_POSITIONAL_ROPE:
        if (c->rotary_dim == 0)
            c->rotary_dim = m->head_dim;
        if (c->rope_attention_factor == 0.0)
            c->rope_attention_factor = 1.0;
        return posenc_rope_apply(&f, 0, 1, 0, c->heads, m->head_dim, c->rotary_dim, c->rope_layout,
                                 c->rope_inv_freq, c->rope_attention_factor, 0, NULL, 0, c->rope_precision);
    case POSENC_POSITIONAL_ALIBI:
        return posenc_alibi_bias(&f, 0, c->heads, 0, 0, 0, 0, c->alibi_max_bias);
    case POSENC_POSITIONAL_T5:
        if (c->t5_num_buckets == 0)
            c->t5_num_buckets = T5_DEFAULT_BUCKETS;
        if (c->t5_unidirectional != 0 && c->t5_unidirectional != 1)
            return POSENC_ERR_INVALID_ARGUMENT;
        return posenc_t5_buckets(&i, 0, 0, 0, !c->t5_unidirectional, c->t5_num_buckets, c->t5_max_distance, 0);
    case POSENC_POSITIONAL_LEARNED:
        return c->max_length == 0 ? POSENC_ERR_INVALID_ARGUMENT : POSENC_OK;
    default:
        return POSENC_ERR_INVALID_ARGUMENT;
    }
}

int stack_model(model *m, const posenc_encoder_config *config)
{
    int status;
    if (!config)
        return POSENC_ERR_NULL_POINTER;
    m->c = *config;
    posenc_encoder_config *c = &m->c;
    if (c->vocab_size == 0 || c->d_model == 0 || c->heads == 0 || c->d_model % c->heads || c->d_ff == 0 ||
        (c->norm != POSENC_NORM_PRE && c->norm != POSENC_NORM_POST) || !nn_valid_activation(c->activation) ||
        (c->final_norm != 0 && c->final_norm != 1) ||
        (c->lm_head != POSENC_LM_HEAD_NONE && c->lm_head != POSENC_LM_HEAD_OWN && c->lm_head != POSENC_LM_HEAD_TIED))
        return POSENC_ERR_INVALID_ARGUMENT;
    if (c->embed_scale == 0.0)
        c->embed_scale = sqrt((double)c->d_model);
    if (c->norm_eps == 0.0)
        c->norm_eps = 1e-5;
    if (!isfinite(c->embed_scale) || fabs(c->embed_scale) > FLT_MAX || !isfinite(c->norm_eps) ||
        !(c->norm_eps > 0.0))
        return POSENC_ERR_INVALID_ARGUMENT;
    m->head_dim = c->d_model / c->heads;
    if ((status = check_positional(m)) || (status = check_query_scale(c)))
        return status;

    size_t d = c->d_model, proj = 0;
    m->ff_len = nn_feed_forward_len(d, c->d_ff);
    m->t5_len = 0;
    m->pos_len = 0;
    m->head_len = 0;
    m->layer_len = 0;
    m->params_len = 0;
    if (m->ff_len == 0 || checked_add_mul(&proj, d, d) || checked_add_mul(&proj, 1, d) || checked_add_mul(&m->layer_len, 4, proj) ||
        checked_add_mul(&m->layer_len, 4, d) || checked_add_mul(&m->layer_len, 1, m->ff_len) ||
        checked_add_mul(&m->params_len, c->vocab_size, d) ||
        (c->positional == POSENC_POSITIONAL_LEARNED && checked_mul(c->max_length, d, &m->pos_len)) ||
        checked_add_mul(&m->params_len, 1, m->pos_len) || checked_add_mul(&m->params_len, c->languages, d) ||
        (c->positional == POSENC_POSITIONAL_T5 && checked_mul(c->t5_num_buckets, c->heads, &m->t5_len)) ||
        checked_add_mul(&m->params_len, 1, m->t5_len) || checked_add_mul(&m->params_len, c->layers, m->layer_len) ||
        checked_add_mul(&m->params_len, 2 * (size_t)c->final_norm, d) ||
        (c->lm_head == POSENC_LM_HEAD_OWN && checked_mul(c->vocab_size, d, &m->head_len)) ||
        checked_add_mul(&m->params_len, 1, m->head_len))
        return POSENC_ERR_SIZE_OVERFLOW;
    return POSENC_OK;
}

int stack_relative_bias(const model *m)
{
    return m->c.positional == POSENC_POSITIONAL_ALIBI || m->c.positional == POSENC_POSITIONAL_T5;
}

int stack_check_buffers(const model *m, const float *params, const int32_t *tokens, const int32_t *key_mask,
                        size_t count, const float *const written[3], const size_t written_len[3])
{
    const posenc_encoder_config *c = &m->c;
    for (size_t s = 0; s < count; s++)
        if (tokens[s] < 0 || (size_t)tokens[s] >= c->vocab_size)
            return POSENC_ERR_INVALID_ARGUMENT;
    /* the written buffers are written while the others are read, layer after
       layer: no two may share memory */
    const double *inv_freq = c->positional == POSENC_POSITIONAL_ROPE ? c->rope_inv_freq : NULL;
    for (size_t i = 0; i < 3; i++) {
        for (size_t j = i + 1; j < 3; j++)
            if (nn_overlap(written[i], written_len[i], written[j], written_len[j]))
                return POSENC_ERR_INVALID_ARGUMENT;
        if (nn_overlap(written[i], written_len[i], params, m->params_len) ||
            nn_overlap(written[i], written_len[i], tokens, count) ||
            nn_overlap(written[i], written_len[i], key_mask, count) ||
            nn_overlap(written[i], written_len[i], inv_freq, c->rotary_dim / 2))
            return POSENC_ERR_INVALID_ARGUMENT;
    }
    return POSENC_OK;
}

/* Where each part of params starts (posenc_encoder.h, posenc_encoder_sizes). */
static const float *pos_table(const model *m, const float *params)
{
    return params + m->c.vocab_size * m->c.d_model;
}

static const float *language_table(const model *m, const float *params)
{
    return pos_table(m, params) + m->pos_len;
}

static const float *t5_table(const model *m, const float *params)
{
    return language_table(m, params) + m->c.languages * m->c.d_model;
}

static const float *first_layer(const model *m, const float *params)
{
    return t5_table(m, params) + m->t5_len;
}

const float *stack_lm_head(const model *m, const float *params)
{
    return m->c.lm_head == POSENC_LM_HEAD_TIED ? params : params + m->params_len - m->head_len;
}

nn_bias stack_bias_rows(const model *m, const float *params, float *bias, size_t query, size_t keys, int causal)
{
    const posenc_encoder_config *c = &m->c;
    size_t len = c->heads * keys; /* within the caller's workspace: no overflow */
    /* validated up front and query, keys - 1 <= POSENC_POSITION_MAX: cannot fail */
    if (c->positional == POSENC_POSITIONAL_ALIBI)
        posenc_alibi_bias(bias, len, c->heads, 1, keys, (int32_t)query, causal, c->alibi_max_bias);
    else
        posenc_t5_bias(bias, len, t5_table(m, params), m->t5_len, c->heads, 1, keys, !c->t5_unidirectional,
                       c->t5_num_buckets, c->t5_max_distance, (int32_t)query);
    nn_bias b = { bias + query, keys, -1 };
    return b;
}

static void add_into(float *x, const float *y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] += y[i];
}

void stack_embed(const stack *s, const int32_t *tokens, int32_t language)
{
    const model *m = s->m;
    const posenc_encoder_config *c = &m->c;
    size_t d = c->d_model, rows = s->rows;
    int sinusoidal = c->positional == POSENC_POSITIONAL_SINUSOIDAL;
    float scale = (float)c->embed_scale;
    for (size_t r = 0; r < rows; r++)
        for (size_t k = 0; k < d; k++)
            s->x[r * d + k] = s->params[(size_t)tokens[r] * d + k] * (sinusoidal ? 1.0f : scale);
    if (sinusoidal) /* positions first .. first + rows - 1 <= POSENC_POSITION_MAX: checked */
        posenc_add_sinusoidal(s->x, rows * d, 1, rows, d, POSENC_ORDER_BSD, scale, c->sinusoidal_base,
                              (int32_t)s->first, c->sinusoidal_layout);
    if (c->positional == POSENC_POSITIONAL_LEARNED) /* first + rows <= max_length: checked */
        add_into(s->x, pos_table(m, s->params) + s->first * d, rows * d);
    if (language >= 0)
        for (size_t r = 0; r < rows; r++)
            add_into(s->x + r * d, language_table(m, s->params) + (size_t)language * d, d);
}

/* q rows *= the query scale of their positions (after RoPE, as transformers
 * scales the rotated query states), each multiplier rounded once to float. */
static void scale_queries(const stack *s)
{
    const posenc_encoder_config *c = &s->m->c;
    size_t d = c->d_model;
    if (c->query_scale == POSENC_QUERY_SCALE_NONE)
        return;
    for (size_t r = 0; r < s->rows; r++) {
        float f = (float)query_scale_at(c, (double)(s->first + r));
        for (size_t k = 0; k < d; k++)
            s->q[r * d + k] *= f;
    }
}

/* dst = MultiHead(in) W_o^T + b_o; w points at the layer's q.weight. */
static void self_attention(const stack *s, const float *in, float *dst, const float *w, size_t layer)
{
    const posenc_encoder_config *c = &s->m->c;
    size_t d = c->d_model, proj = d * d + d, rows = s->rows, keys = s->first + rows;
    float *k = s->keys + layer * s->layer_stride, *v = k + s->v_offset;
    float *k_new = k + s->first * d, *v_new = v + s->first * d;
    nn_linear(s->q, d, in, d, rows, w, d, d, d, w + d * d);
    nn_linear(k_new, d, in, d, rows, w + proj, d, d, d, w + proj + d * d);
    nn_linear(v_new, d, in, d, rows, w + 2 * proj, d, d, d, w + 2 * proj + d * d);
    if (c->positional == POSENC_POSITIONAL_ROPE) { /* validated up front: cannot fail */
        posenc_rope_apply(s->q, rows * d, 1, rows, c->heads, s->m->head_dim, c->rotary_dim, c->rope_layout,
                          c->rope_inv_freq, c->rope_attention_factor, (int32_t)s->first, NULL, 0,
                          c->rope_precision);
        posenc_rope_apply(k_new, rows * d, 1, rows, c->heads, s->m->head_dim, c->rotary_dim, c->rope_layout,
                          c->rope_inv_freq, c->rope_attention_factor, (int32_t)s->first, NULL, 0,
                          c->rope_precision);
    }
    scale_queries(s);
    float *probs = s->probs ? s->probs + layer * c->heads * rows * keys : NULL;
    nn_attend(s->ctx, s->q, k, v, d, s->first, rows, c->heads, s->m->head_dim, s->bias, s->key_mask, s->causal,
              probs, s->scores);
    nn_linear(dst, d, s->ctx, d, rows, w + 3 * proj, d, d, d, w + 3 * proj + d * d);
}

static void layer(const stack *s, const float *w, size_t l)
{
    const posenc_encoder_config *c = &s->m->c;
    size_t d = c->d_model, rows = s->rows, n = rows * d;
    const float *norm1 = w + 4 * (d * d + d), *ff = norm1 + 2 * d, *norm2 = ff + s->m->ff_len;
    if (c->norm == POSENC_NORM_PRE) { /* x + f(LN(x)) */
        nn_layer_norm(s->h, s->x, rows, d, norm1, norm1 + d, c->norm_eps);
        self_attention(s, s->h, s->h, w, l);
        add_into(s->x, s->h, n);
        nn_layer_norm(s->h, s->x, rows, d, norm2, norm2 + d, c->norm_eps);
        nn_feed_forward(s->ctx, s->h, rows, d, c->d_ff, ff, c->activation, s->hidden);
        add_into(s->x, s->ctx, n);
    } else { /* LN(x + f(x)) */
        self_attention(s, s->x, s->h, w, l);
        add_into(s->x, s->h, n);
        nn_layer_norm(s->x, s->x, rows, d, norm1, norm1 + d, c->norm_eps);
        nn_feed_forward(s->ctx, s->x, rows, d, c->d_ff, ff, c->activation, s->hidden);
        add_into(s->x, s->ctx, n);
        nn_layer_norm(s->x, s->x, rows, d, norm2, norm2 + d, c->norm_eps);
    }
}

void stack_layers(const stack *s)
{
    const posenc_encoder_config *c = &s->m->c;
    const float *w = first_layer(s->m, s->params);
    for (size_t l = 0; l < c->layers; l++, w += s->m->layer_len)
        layer(s, w, l);
    if (c->final_norm)
        nn_layer_norm(s->x, s->x, s->rows, c->d_model, w, w + c->d_model, c->norm_eps);
}
