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

#include "bias_terms.h"
#include "checked.h"
#include "encoder_params.h"
#include "fmath.h"
#include "nn_attend.h"
#include "nn_kernels.h"
#include "nn_math.h"

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
static double query_scale_at(const posenc_encoder_query_scale *q, double p)
{
    if (q->type == POSENC_QUERY_SCALE_LLAMA4)
        return fmath_log(floor((p + 1.0) / q->floor_scale) + 1.0) * q->attn_scale + 1.0;
    if (q->type == POSENC_QUERY_SCALE_MINISTRAL3)
        return 1.0 + q->beta * fmath_log(1.0 + floor(p / q->original_max_position));
    return 1.0;
}

/* Defaults and ranges of the query scale: every multiplier must be a finite
 * float; each formula is monotonic in p, so checking the last position and
 * the first checks them all. */
static int check_query_scale(posenc_encoder_query_scale *q, int index)
{
    int status;
    if ((status = encoder_check(POSENC_PARAM_QUERY_SCALE, index, q->type)))
        return status;
    if (q->type == POSENC_QUERY_SCALE_LLAMA4) {
        q->floor_scale = encoder_or_default(POSENC_PARAM_FLOOR_SCALE, q->floor_scale);
        q->attn_scale = encoder_or_default(POSENC_PARAM_ATTN_SCALE, q->attn_scale);
        if ((status = encoder_check(POSENC_PARAM_FLOOR_SCALE, index, q->floor_scale)) ||
            (status = encoder_check(POSENC_PARAM_ATTN_SCALE, index, q->attn_scale)))
            return status;
    } else if (q->type == POSENC_QUERY_SCALE_MINISTRAL3) {
        if ((status = encoder_check(POSENC_PARAM_BETA, index, q->beta)) ||
            (status = encoder_check(POSENC_PARAM_ORIGINAL_MAX_POSITION_Q, index, q->original_max_position)))
            return status;
    }
    double first = query_scale_at(q, 0.0), last = query_scale_at(q, (double)POSENC_POSITION_MAX);
    if (fabs(first) <= FLT_MAX && fabs(last) <= FLT_MAX)
        return POSENC_OK;
    return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_QUERY_SCALE, index, "query_scale",
                             POSENC_RULE_RESULT, fabs(first) <= FLT_MAX ? last : first, -FLT_MAX, FLT_MAX, NULL,
                             "gives a multiplier beyond float32's range at position 0 or 2147483647");
}

/* The settings of the positional scheme, checked by the routines the stack
 * calls (their records moved to the config's position, index). */
static int check_positional(model *m, int index)
{
    posenc_encoder_config *c = &m->c;
    float f = 0.0f;
    int32_t i = 0;
    int status = encoder_check(POSENC_PARAM_POSITIONAL, index, c->positional);
    if (status)
        return status;
    switch (c->positional) {
    case POSENC_POSITIONAL_SINUSOIDAL:
        status = posenc_sinusoidal(&f, 0, 0, c->d_model, c->sinusoidal.base, 0, c->sinusoidal.layout);
        break;
    case POSENC_POSITIONAL_ROPE:
        if (c->rope.rotary_dim == 0)
            c->rope.rotary_dim = m->head_dim;
        status = rope_plan_make(&m->rope, &c->rope, index, m->head_dim, 0, NULL, 0);
        break;
    case POSENC_POSITIONAL_ALIBI:
        status = posenc_alibi_bias(&f, 0, c->heads, 0, 0, 0, 0, c->alibi.max_bias);
        break;
    case POSENC_POSITIONAL_T5:
        if (c->t5.num_buckets == 0)
            c->t5.num_buckets = (size_t)param_or_default(POSENC_PARAM_NUM_BUCKETS, 0.0);
        if ((status = encoder_check(POSENC_PARAM_UNIDIRECTIONAL, index, c->t5.unidirectional)))
            return status;
        status = posenc_t5_buckets(&i, 0, 0, 0, !c->t5.unidirectional, c->t5.num_buckets, c->t5.max_distance, 0);
        break;
    case POSENC_POSITIONAL_LEARNED:
        return encoder_check(POSENC_PARAM_MAX_LENGTH, index, (double)c->learned.max_length);
    default:
        return POSENC_OK;
    }
    return status ? param_at(status, index) : POSENC_OK;
}

/* Part `field` of a layer: n floats at the running offset *off (n = 0: absent). */
static int add_part(size_t *field, size_t *off, int present, size_t n)
{
    *field = present ? *off : STACK_NO_PART;
    return present && checked_add_mul(off, 1, n);
}

/* The floats of a matrix of rows x cols values in the model's weight_format
 * (posenc_weight_format: halves two to a float); 1 on overflow. */
static int matrix_len(const model *m, size_t rows, size_t cols, size_t *len)
{
    if (checked_mul(rows, cols, len))
        return 1;
    if (m->c.weight_format != POSENC_WEIGHT_FORMAT_F32)
        *len = *len / 2 + *len % 2;
    return 0;
}

/* Records a layer's total length; 0 (success), for the chain of layout_layer. */
static int set_layer_len(model *m, size_t len)
{
    m->layer_len = len;
    return 0;
}

/* The offsets of a layer's tensors (posenc_encoder.h, posenc_encoder_sizes) and their total. */
static int layout_layer(model *m)
{
    const posenc_encoder_config *c = &m->c;
    size_t d = c->d_model, q_w = 0, kv_w = 0, o_w = 0, off = 0;
    int bias = c->attention_bias != POSENC_ATTENTION_BIAS_NONE, with_beta = c->norm_kind == POSENC_NORM_KIND_LAYER;
    int gated = c->mlp == POSENC_MLP_GATED;
    layer_parts *at = &m->at;
    if (matrix_len(m, m->q_dim, d, &q_w) || matrix_len(m, m->kv_dim, d, &kv_w) || matrix_len(m, d, m->q_dim, &o_w) ||
        matrix_len(m, c->d_ff, d, &m->ff_mat))
        return 1;
    /* GATED: gate, up [d_ff][d], down [d][d_ff]; PLAIN: W1 [d_ff][d], b1, W2 [d][d_ff], b2 */
    m->ff_len = 0;
    if (gated ? checked_add_mul(&m->ff_len, 3, m->ff_mat)
              : checked_add_mul(&m->ff_len, 2, m->ff_mat) || checked_add_mul(&m->ff_len, 1, c->d_ff) ||
                    checked_add_mul(&m->ff_len, 1, d))
        return 1;
    return add_part(&at->q_w, &off, 1, q_w) || add_part(&at->q_b, &off, bias, m->q_dim) ||
           add_part(&at->k_w, &off, 1, kv_w) || add_part(&at->k_b, &off, bias, m->kv_dim) ||
           add_part(&at->v_w, &off, 1, kv_w) || add_part(&at->v_b, &off, bias, m->kv_dim) ||
           add_part(&at->o_w, &off, 1, o_w) ||
           add_part(&at->o_b, &off, c->attention_bias == POSENC_ATTENTION_BIAS_ALL, d) ||
           add_part(&at->q_norm, &off, c->qk_norm, m->head_dim) || add_part(&at->k_norm, &off, c->qk_norm, m->head_dim) ||
           add_part(&at->norm1, &off, 1, (size_t)(1 + with_beta) * d) || add_part(&at->ff, &off, 1, m->ff_len) ||
           add_part(&at->norm2, &off, 1, (size_t)(1 + with_beta) * d) || set_layer_len(m, off);
}

/* The block's parts (posenc_encoder_config, after norm_eps): their ranges and
 * the rules between them; resolves kv_heads and head_dim. */
static int check_block(model *m, int index)
{
    posenc_encoder_config *c = &m->c;
    int status;
    if ((status = encoder_check(POSENC_PARAM_NORM_KIND, index, c->norm_kind)) ||
        (status = encoder_check(POSENC_PARAM_MLP_KIND, index, c->mlp)) ||
        (status = encoder_check(POSENC_PARAM_KV_HEADS, index, (double)c->kv_heads)) ||
        (status = encoder_check(POSENC_PARAM_BLOCK_HEAD_DIM, index, (double)c->head_dim)) ||
        (status = encoder_check(POSENC_PARAM_ATTENTION_BIAS, index, c->attention_bias)) ||
        (status = encoder_check(POSENC_PARAM_QK_NORM, index, c->qk_norm)) ||
        (status = encoder_check(POSENC_PARAM_WINDOW, index, (double)c->window)) ||
        (status = encoder_check(POSENC_PARAM_WEIGHT_FORMAT, index, c->weight_format)))
        return status;
    if (c->head_dim == 0 && c->d_model % c->heads)
        return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_ENCODER_D_MODEL, index, "d_model",
                                 POSENC_RULE_MULTIPLE, (double)c->d_model, (double)c->heads, POSENC_POSITION_MAX,
                                 "heads", "each head takes d_model / heads features (or set head_dim)");
    if (c->kv_heads == 0)
        c->kv_heads = c->heads;
    if (c->heads % c->kv_heads)
        return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_ENCODER_HEADS, index, "heads",
                                 POSENC_RULE_MULTIPLE, (double)c->heads, (double)c->kv_heads, POSENC_POSITION_MAX,
                                 "kv_heads", "each key and value head serves heads / kv_heads query heads");
    if (c->head_dim == 0)
        c->head_dim = c->d_model / c->heads;
    m->head_dim = c->head_dim;
    m->group = c->heads / c->kv_heads;
    if (checked_mul(c->heads, m->head_dim, &m->q_dim) || checked_mul(c->kv_heads, m->head_dim, &m->kv_dim))
        return fail_size(index, "heads * head_dim", c->heads, m->head_dim);
    return POSENC_OK;
}

size_t stack_hidden_per_row(const model *m)
{
    return m->c.mlp == POSENC_MLP_GATED ? 2 * m->c.d_ff : m->c.d_ff; /* d_ff <= 2^31 - 1: no overflow */
}

size_t stack_ctx_per_row(const model *m)
{
    return m->q_dim > m->c.d_model ? m->q_dim : m->c.d_model;
}

size_t stack_tile_len(const model *m)
{
    size_t n = m->c.d_model > m->q_dim ? m->c.d_model : m->q_dim;
    n = m->c.d_ff > n ? m->c.d_ff : n;
    return m->c.weight_format == POSENC_WEIGHT_FORMAT_F32 ? 0 : 4 * n; /* each <= 2^31 - 1: no overflow */
}

void stack_linear(const model *m, float *y, size_t ys, const float *x, size_t xs, size_t rows, const float *w,
                  size_t outs, size_t n, const float *bias, float *tile, int add)
{
    if (m->c.weight_format != POSENC_WEIGHT_FORMAT_F32)
        nn_linear_half(y, ys, x, xs, rows, w, m->c.weight_format, outs, n, bias, tile, add);
    else if (add)
        nn_linear_add(y, ys, x, xs, rows, w, n, outs, n, bias);
    else
        nn_linear(y, ys, x, xs, rows, w, n, outs, n, bias);
}

int stack_model(model *m, const posenc_encoder_config *config, int index)
{
    int status;
    if (!config)
        return fail_null(index, "config");
    m->c = *config;
    posenc_encoder_config *c = &m->c;
    if ((status = encoder_check(POSENC_PARAM_VOCAB_SIZE, index, (double)c->vocab_size)) ||
        (status = encoder_check(POSENC_PARAM_ENCODER_D_MODEL, index, (double)c->d_model)) ||
        (status = encoder_check(POSENC_PARAM_ENCODER_HEADS, index, (double)c->heads)) ||
        (status = encoder_check(POSENC_PARAM_D_FF, index, (double)c->d_ff)) ||
        (status = encoder_check(POSENC_PARAM_LAYERS, index, (double)c->layers)) ||
        (status = encoder_check(POSENC_PARAM_LANGUAGES, index, (double)c->languages)) ||
        (status = encoder_check(POSENC_PARAM_NORM, index, c->norm)) ||
        (status = encoder_check(POSENC_PARAM_ACTIVATION, index, c->activation)) ||
        (status = encoder_check(POSENC_PARAM_FINAL_NORM, index, c->final_norm)) ||
        (status = encoder_check(POSENC_PARAM_LM_HEAD, index, c->lm_head)))
        return status;
    if (c->embed_scale == 0.0)
        c->embed_scale = sqrt((double)c->d_model);
    c->norm_eps = encoder_or_default(POSENC_PARAM_NORM_EPS, c->norm_eps);
    if ((status = encoder_check(POSENC_PARAM_EMBED_SCALE, index, c->embed_scale)) ||
        (status = encoder_check(POSENC_PARAM_NORM_EPS, index, c->norm_eps)) || (status = check_block(m, index)))
        return status;
    if ((status = check_positional(m, index)) || (status = check_query_scale(&c->query_scale, index)))
        return status;

    size_t d = c->d_model, norm_len = c->norm_kind == POSENC_NORM_KIND_LAYER ? 2 * d : d;
    m->t5_len = 0;
    m->pos_len = 0;
    m->head_len = 0;
    m->layer_len = 0;
    m->params_len = 0;
    if (layout_layer(m) || matrix_len(m, c->vocab_size, d, &m->embed_len) ||
        checked_add_mul(&m->params_len, 1, m->embed_len) ||
        (c->positional == POSENC_POSITIONAL_LEARNED && checked_mul(c->learned.max_length, d, &m->pos_len)) ||
        checked_add_mul(&m->params_len, 1, m->pos_len) || checked_add_mul(&m->params_len, c->languages, d) ||
        (c->positional == POSENC_POSITIONAL_T5 && checked_mul(c->t5.num_buckets, c->heads, &m->t5_len)) ||
        checked_add_mul(&m->params_len, 1, m->t5_len) || checked_add_mul(&m->params_len, c->layers, m->layer_len) ||
        checked_add_mul(&m->params_len, (size_t)c->final_norm, norm_len) ||
        (c->lm_head == POSENC_LM_HEAD_OWN && matrix_len(m, c->vocab_size, d, &m->head_len)) ||
        checked_add_mul(&m->params_len, 1, m->head_len))
        return fail_size(index, "the parameters", c->layers, m->layer_len);
    return POSENC_OK;
}

int stack_rope(const model *m, size_t end, int index, rope_plan *plan)
{
    int status = rope_plan_make(plan, &m->c.rope, index, m->head_dim, end, NULL, 0);
    return status ? status : rope_plan_check(plan, index);
}

int stack_check_language(const posenc_encoder_config *c, int32_t language, int index)
{
    if (language >= 0 && c->languages == 0)
        return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_LANGUAGE, index, "language",
                                 POSENC_RULE_RESULT, language, 0.0, 0.0, NULL,
                                 "needs a config with languages > 0");
    if (language < -1 || (language >= 0 && (size_t)language >= c->languages))
        return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_LANGUAGE, index, "language",
                                 POSENC_RULE_INTEGER, language, -1.0, (double)c->languages - 1.0, "languages - 1",
                                 "-1: none");
    return POSENC_OK;
}

int stack_relative_bias(const model *m)
{
    return m->c.positional == POSENC_POSITIONAL_ALIBI || m->c.positional == POSENC_POSITIONAL_T5;
}

int stack_check_positions(const model *m, const int32_t *positions, size_t count, int index, size_t *end)
{
    const posenc_encoder_config *c = &m->c;
    int learned = c->positional == POSENC_POSITIONAL_LEARNED;
    size_t top = 0;
    for (size_t s = 0; s < count; s++) {
        int32_t p = positions[s];
        if (p < 0 || (learned && (size_t)p >= c->learned.max_length))
            return param_element(param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_TOKEN_POSITIONS, index,
                                                   "positions", POSENC_RULE_INTEGER, p, 0.0,
                                                   learned ? (double)c->learned.max_length - 1.0 : POSENC_POSITION_MAX,
                                                   learned ? "learned.max_length - 1" : NULL,
                                                   learned ? "learned positions stop there" : NULL),
                                 s);
        top = (size_t)p + 1 > top ? (size_t)p + 1 : top;
    }
    *end = top;
    return POSENC_OK;
}

int stack_check_buffers(const model *m, const float *params, const int32_t *tokens, const int32_t *positions,
                        const int32_t *key_mask, size_t count, const float *const written[3],
                        const size_t written_len[3], const char *const written_names[3], const int indexes[4])
{
    const posenc_encoder_config *c = &m->c;
    for (size_t s = 0; s < count; s++)
        if (tokens[s] < 0 || (size_t)tokens[s] >= c->vocab_size)
            return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_TOKENS, indexes[3], "tokens",
                                     POSENC_RULE_INTEGER, tokens[s], 0.0, (double)c->vocab_size - 1.0, "vocab_size",
                                     NULL);
    /* the written buffers are written while the others are read, layer after
       layer: no two may share memory */
    const void *ptrs[3] = { NULL, NULL, NULL };
    size_t bytes[3] = { 0, 0, 0 };
    const char *names[3] = { NULL, NULL, NULL };
    size_t n_rope = c->positional == POSENC_POSITIONAL_ROPE ? rope_plan_inputs(&m->rope, &c->rope, ptrs, bytes, names) : 0;
    for (size_t i = 0; i < 3; i++) {
        for (size_t j = i + 1; j < 3; j++)
            if (nn_overlap(written[i], written_len[i], written[j], written_len[j]))
                return fail_overlap(indexes[i], written_names[i], written_names[j]);
        if (nn_overlap(written[i], written_len[i], params, m->params_len))
            return fail_overlap(indexes[i], written_names[i], "params");
        if (nn_overlap(written[i], written_len[i], tokens, count))
            return fail_overlap(indexes[i], written_names[i], "tokens");
        if (nn_overlap(written[i], written_len[i], key_mask, count))
            return fail_overlap(indexes[i], written_names[i], "key_mask");
        if (nn_overlap(written[i], written_len[i], positions, count))
            return fail_overlap(indexes[i], written_names[i], "positions");
        for (size_t r = 0; r < n_rope; r++)
            if (posenc_overlaps(written[i], posenc_bytes(written_len[i], sizeof(float)), ptrs[r], bytes[r]))
                return fail_overlap(indexes[i], written_names[i], names[r]);
    }
    return POSENC_OK;
}

/* Where each part of params starts (posenc_encoder.h, posenc_encoder_sizes). */
static const float *pos_table(const model *m, const float *params)
{
    return params + m->embed_len;
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
        posenc_alibi_bias(bias, len, c->heads, 1, keys, (int32_t)query, causal, c->alibi.max_bias);
    else
        posenc_t5_bias(bias, len, t5_table(m, params), m->t5_len, c->heads, 1, keys, !c->t5.unidirectional,
                       c->t5.num_buckets, c->t5.max_distance, (int32_t)query);
    nn_bias b = { bias + query, keys, -1 };
    return b;
}

static void add_into(float *x, const float *y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] += y[i];
}

/* The position of row j of the sequence. */
static int32_t position_of(const stack *s, size_t j)
{
    return s->positions ? s->positions[j] : (int32_t)j;
}

void stack_embed(const stack *s, const int32_t *tokens, int32_t language)
{
    const model *m = s->m;
    const posenc_encoder_config *c = &m->c;
    size_t d = c->d_model, rows = s->rows;
    int sinusoidal = c->positional == POSENC_POSITIONAL_SINUSOIDAL;
    float scale = (float)c->embed_scale, f = sinusoidal ? 1.0f : scale;
    for (size_t r = 0; r < rows; r++) {
        float *x = s->x + r * d;
        size_t row = (size_t)tokens[r] * d;
        if (c->weight_format == POSENC_WEIGHT_FORMAT_F32) {
            for (size_t k = 0; k < d; k++)
                x[k] = s->params[row + k] * f;
            continue;
        }
        nn_widen(x, (const unsigned char *)s->params + 2 * row, c->weight_format, d);
        for (size_t k = 0; k < d; k++)
            x[k] *= f;
    }
    /* every position <= POSENC_POSITION_MAX (and < learned.max_length): checked */
    if (sinusoidal && !s->positions)
        posenc_add_sinusoidal(s->x, rows * d, 1, rows, d, POSENC_ORDER_BSD, scale, c->sinusoidal.base,
                              (int32_t)s->first, c->sinusoidal.layout);
    for (size_t r = 0; sinusoidal && s->positions && r < rows; r++) /* one row at a time, at its own position */
        posenc_add_sinusoidal(s->x + r * d, d, 1, 1, d, POSENC_ORDER_BSD, scale, c->sinusoidal.base,
                              s->positions[s->first + r], c->sinusoidal.layout);
    for (size_t r = 0; c->positional == POSENC_POSITIONAL_LEARNED && r < rows; r++)
        add_into(s->x + r * d, pos_table(m, s->params) + (size_t)position_of(s, s->first + r) * d, d);
    if (language >= 0)
        for (size_t r = 0; r < rows; r++)
            add_into(s->x + r * d, language_table(m, s->params) + (size_t)language * d, d);
}

/* q rows *= the query scale of their positions (after RoPE, as transformers
 * scales the rotated query states), each multiplier rounded once to float. */
static void scale_queries(const stack *s)
{
    const posenc_encoder_config *c = &s->m->c;
    size_t qd = s->m->q_dim;
    if (c->query_scale.type == POSENC_QUERY_SCALE_NONE)
        return;
    for (size_t r = 0; r < s->rows; r++) {
        float f = (float)query_scale_at(&c->query_scale, (double)position_of(s, s->first + r));
        for (size_t k = 0; k < qd; k++)
            s->q[r * qd + k] *= f;
    }
}

/*
 * The bias row of one query at position pi against the keys at positions
 * pj, j < keys, into row [heads][keys] (ALiBi: -m_h (pi - pj) in the causal
 * form, BLOOM's m_h pj up to a row constant, and -m_h |pi - pj| otherwise;
 * T5: the learned bias of bucket(pj - pi)). With positions j the rows of
 * posenc_alibi_bias and posenc_t5_bias, value for value.
 */
static void bias_by_positions(const stack *s, int32_t pi, size_t keys, float *row)
{
    const posenc_encoder_config *c = &s->m->c;
    if (c->positional == POSENC_POSITIONAL_ALIBI) {
        double max_bias = param_or_default(POSENC_PARAM_MAX_BIAS, c->alibi.max_bias);
        for (size_t h = 0; h < c->heads; h++) {
            double m = alibi_slope(h, c->heads, max_bias);
            for (size_t j = 0; j < keys; j++) {
                int64_t diff = (int64_t)pi - position_of(s, j);
                if (!s->causal && diff < 0)
                    diff = -diff;
                row[h * keys + j] = diff == 0 ? 0.0f : (float)(-m * (double)diff);
            }
        }
        return;
    }
    t5_plan plan; /* checked with the config: cannot fail */
    (void)t5_plan_init(&plan, !c->t5.unidirectional, c->t5.num_buckets, c->t5.max_distance);
    const float *table = t5_table(s->m, s->params);
    for (size_t j = 0; j < keys; j++) {
        const float *w = table + (size_t)t5_bucket(&plan, (int64_t)position_of(s, j) - pi) * c->heads;
        for (size_t h = 0; h < c->heads; h++)
            row[h * keys + j] = w[h];
    }
}

/* Attention with explicit positions and a relative bias (ALiBi, T5): the
 * bias depends on the positions, not on j - i, so each query gets its own
 * row (bias_by_positions) and is attended alone, head by head. */
static void attend_by_positions(const stack *s, const float *k, const float *v, float *probs)
{
    const model *m = s->m;
    const posenc_encoder_config *c = &m->c;
    size_t rows = s->rows, keys = s->first + rows;
    nn_head a = { .out_stride = m->q_dim, .q_stride = m->q_dim, .kv_stride = m->kv_dim, .head_dim = m->head_dim,
                  .rows = 1, .keys = keys, .scale = (float)(1.0 / sqrt((double)m->head_dim)), .bias_step = 0,
                  .key_mask = s->key_mask, .causal = s->causal, .window = c->window, .probs_stride = keys,
                  .scratch = s->scores };
    for (size_t r = 0; r < rows; r++) {
        a.first = s->first + r;
        bias_by_positions(s, s->positions[a.first], keys, s->bias_row);
        for (size_t h = 0; h < c->heads; h++) {
            size_t col = h * m->head_dim, kv_col = h / m->group * m->head_dim;
            a.out = s->ctx + r * m->q_dim + col, a.q = s->q + r * m->q_dim + col, a.k = k + kv_col, a.v = v + kv_col;
            a.bias = s->bias_row + h * keys;
            a.probs = probs ? probs + (h * rows + r) * keys : NULL;
            nn_attend_head(&a);
        }
    }
}

/* A part of the layer at w (posenc_encoder_sizes' layout), or NULL when the config leaves it out. */
static const float *part(const float *w, size_t at)
{
    return at == STACK_NO_PART ? NULL : w + at;
}

/* Each head of `rows` rows of `heads` heads RMS-normalised in place (Qwen3's q_norm, k_norm). */
static void norm_heads(float *x, size_t rows, size_t heads, size_t head_dim, const float *gamma, double eps)
{
    nn_rms_norm(x, x, rows * heads, head_dim, gamma, eps);
}

/* dst [rows][d] += MultiHead(in) W_o^T (+ b_o), the residual connection (in
 * may be dst: it is read before dst is written); w points at the layer's first tensor. */
static void self_attention(const stack *s, const float *in, float *dst, const float *w, size_t layer)
{
    const model *m = s->m;
    const posenc_encoder_config *c = &m->c;
    const layer_parts *at = &m->at;
    size_t d = c->d_model, qd = m->q_dim, kvd = m->kv_dim, rows = s->rows, keys = s->first + rows;
    float *k = s->keys + layer * s->layer_stride, *v = k + s->v_offset;
    float *k_new = k + s->first * kvd, *v_new = v + s->first * kvd;
    stack_linear(m, s->q, qd, in, d, rows, w + at->q_w, qd, d, part(w, at->q_b), s->tile, 0);
    stack_linear(m, k_new, kvd, in, d, rows, w + at->k_w, kvd, d, part(w, at->k_b), s->tile, 0);
    stack_linear(m, v_new, kvd, in, d, rows, w + at->v_w, kvd, d, part(w, at->v_b), s->tile, 0);
    if (c->qk_norm) { /* before RoPE, as Qwen3Attention */
        norm_heads(s->q, rows, c->heads, m->head_dim, w + at->q_norm, c->norm_eps);
        norm_heads(k_new, rows, c->kv_heads, m->head_dim, w + at->k_norm, c->norm_eps);
    }
    if (c->positional == POSENC_POSITIONAL_ROPE) { /* validated up front: the rows' positions */
        const int32_t *pos = s->positions ? s->positions + s->first : NULL;
        rope_apply_run(s->q, 1, rows, c->heads, m->head_dim, POSENC_ROPE_ORDER_BSHD, (int32_t)s->first, pos,
                       pos ? rows : 0, s->rope);
        rope_apply_run(k_new, 1, rows, c->kv_heads, m->head_dim, POSENC_ROPE_ORDER_BSHD, (int32_t)s->first, pos,
                       pos ? rows : 0, s->rope);
    }
    scale_queries(s);
    float *probs = s->probs ? s->probs + layer * c->heads * rows * keys : NULL;
    if (s->positions && stack_relative_bias(m))
        attend_by_positions(s, k, v, probs);
    else
        nn_attend(s->ctx, s->q, k, v, qd, kvd, m->group, s->first, rows, c->heads, m->head_dim, s->bias,
                  s->key_mask, s->causal, c->window, probs, s->scores);
    stack_linear(m, dst, d, s->ctx, qd, rows, w + at->o_w, d, qd, part(w, at->o_b), s->tile, 1);
}

/* out (== x allowed) [rows][d] = the norm of norm_kind with the tensors at g (LAYER: gamma, then beta). */
static void norm(const model *m, float *out, const float *x, size_t rows, const float *g)
{
    size_t d = m->c.d_model;
    if (m->c.norm_kind == POSENC_NORM_KIND_RMS)
        nn_rms_norm(out, x, rows, d, g, m->c.norm_eps);
    else
        nn_layer_norm(out, x, rows, d, g, g + d, m->c.norm_eps);
}

/* out [rows][d] += FF(x) (PLAIN or GATED), the residual connection (x may be
 * out: it is read before out is written); hidden: rows *
 * stack_hidden_per_row floats. ff: the block's tensors, each matrix m->ff_mat floats. */
static void feed_forward(const stack *s, float *out, const float *x, const float *ff)
{
    const model *m = s->m;
    const posenc_encoder_config *c = &m->c;
    size_t d = c->d_model, f = c->d_ff, rows = s->rows, fm = m->ff_mat;
    if (c->mlp == POSENC_MLP_PLAIN) { /* nn_feed_forward's steps: W1 | b1 | W2 | b2 */
        const float *b1 = ff + fm, *w2 = b1 + f, *b2 = w2 + fm;
        stack_linear(m, s->hidden, f, x, d, rows, ff, f, d, b1, s->tile, 0);
        nn_activate(s->hidden, rows * f, c->activation);
        stack_linear(m, out, d, s->hidden, f, rows, w2, d, f, b2, s->tile, 1);
        return;
    }
    /* down(act(gate(x)) * up(x)): gate rows in hidden, up rows after them */
    float *gate = s->hidden, *up = gate + rows * f;
    stack_linear(m, gate, f, x, d, rows, ff, f, d, NULL, s->tile, 0);
    stack_linear(m, up, f, x, d, rows, ff + fm, f, d, NULL, s->tile, 0);
    nn_activate(gate, rows * f, c->activation);
    for (size_t i = 0; i < rows * f; i++)
        gate[i] *= up[i];
    stack_linear(m, out, d, gate, f, rows, ff + 2 * fm, d, f, NULL, s->tile, 1);
}

static void layer(const stack *s, const float *w, size_t l)
{
    const model *m = s->m;
    size_t rows = s->rows;
    const float *norm1 = w + m->at.norm1, *ff = w + m->at.ff, *norm2 = w + m->at.norm2;
    if (m->c.norm == POSENC_NORM_PRE) { /* x + f(LN(x)) */
        norm(m, s->h, s->x, rows, norm1);
        self_attention(s, s->h, s->x, w, l);
        norm(m, s->h, s->x, rows, norm2);
        feed_forward(s, s->x, s->h, ff);
    } else { /* LN(x + f(x)) */
        self_attention(s, s->x, s->x, w, l);
        norm(m, s->x, s->x, rows, norm1);
        feed_forward(s, s->x, s->x, ff);
        norm(m, s->x, s->x, rows, norm2);
    }
}

void stack_layers(const stack *s)
{
    const posenc_encoder_config *c = &s->m->c;
    const float *w = first_layer(s->m, s->params);
    for (size_t l = 0; l < c->layers; l++, w += s->m->layer_len)
        layer(s, w, l);
    if (c->final_norm)
        norm(s->m, s->x, s->x, s->rows, w);
}
