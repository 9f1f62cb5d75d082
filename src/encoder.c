/*
 * encoder.c: the layer stack of the tiny encoder (parameter layout, workspace
 * and formulas in posenc.h). The positional schemes reuse posenc's own
 * routines: posenc_add_sinusoidal, posenc_rope_apply, posenc_alibi_bias and
 * posenc_t5_bias; their checks run once, up front, as calls on empty inputs.
 */
#include "posenc.h"

#include <math.h>

#include "checked.h"
#include "nn_attend.h"
#include "nn_kernels.h"
#include "nn_math.h"
#include "nn_ops.h"

#define T5_DEFAULT_BUCKETS 32
/* ALiBi and T5 biases depend on j - i alone: one row per head over
 * j - i = -(seq - 1) .. seq - 1, whose last key position 2 seq - 2 must be
 * an int32 position */
#define BIAS_SEQ_MAX (((size_t)POSENC_POSITION_MAX + 2) / 2)

/* A validated config with defaults resolved and every size worked out. */
typedef struct plan {
    posenc_encoder_config c;
    size_t head_dim, ff_len, layer_len, t5_len, pos_len, head_len;
    size_t params_len, work_len, act, plane, scores, bias_row, bias_len;
} plan;

/* *acc += a * b; 1 on overflow */
static int add_mul(size_t *acc, size_t a, size_t b)
{
    size_t p;
    return checked_mul(a, b, &p) || __builtin_add_overflow(*acc, p, acc);
}

static int check_positional(plan *p)
{
    posenc_encoder_config *c = &p->c;
    float f = 0.0f;
    int32_t i = 0;
    switch (c->positional) {
    case POSENC_POSITIONAL_NONE:
        return POSENC_OK;
    case POSENC_POSITIONAL_SINUSOIDAL:
        return posenc_sinusoidal(&f, 0, 0, c->d_model, c->sinusoidal_base, 0, c->sinusoidal_layout);
    case POSENC_POSITIONAL_ROPE:
        if (c->rotary_dim == 0)
            c->rotary_dim = p->head_dim;
        if (c->rope_attention_factor == 0.0)
            c->rope_attention_factor = 1.0;
        return posenc_rope_apply(&f, 0, 1, 0, c->heads, p->head_dim, c->rotary_dim, c->rope_layout,
                                 c->rope_inv_freq, c->rope_attention_factor, 0, NULL, 0,
                                 c->rope_precision);
    case POSENC_POSITIONAL_ALIBI:
        return posenc_alibi_bias(&f, 0, c->heads, 0, 0, 0, 0, c->alibi_max_bias);
    case POSENC_POSITIONAL_T5:
        if (c->t5_num_buckets == 0)
            c->t5_num_buckets = T5_DEFAULT_BUCKETS;
        if (c->t5_unidirectional != 0 && c->t5_unidirectional != 1)
            return POSENC_ERR_INVALID_ARGUMENT;
        return posenc_t5_buckets(&i, 0, 0, 0, !c->t5_unidirectional, c->t5_num_buckets,
                                 c->t5_max_distance, 0);
    case POSENC_POSITIONAL_LEARNED:
        return c->max_length == 0 ? POSENC_ERR_INVALID_ARGUMENT : POSENC_OK;
    default:
        return POSENC_ERR_INVALID_ARGUMENT;
    }
}

static int make_plan(plan *p, const posenc_encoder_config *config, size_t seq)
{
    int status;
    if (!config)
        return POSENC_ERR_NULL_POINTER;
    p->c = *config;
    posenc_encoder_config *c = &p->c;
    if (c->vocab_size == 0 || c->d_model == 0 || c->heads == 0 || c->d_model % c->heads ||
        c->d_ff == 0 || (c->norm != POSENC_NORM_PRE && c->norm != POSENC_NORM_POST) ||
        !nn_valid_activation(c->activation) || (c->final_norm != 0 && c->final_norm != 1) ||
        (c->lm_head != POSENC_LM_HEAD_NONE && c->lm_head != POSENC_LM_HEAD_OWN &&
         c->lm_head != POSENC_LM_HEAD_TIED) ||
        (uint64_t)seq > (uint64_t)POSENC_POSITION_MAX + 1 ||
        ((c->positional == POSENC_POSITIONAL_ALIBI || c->positional == POSENC_POSITIONAL_T5) &&
         seq > BIAS_SEQ_MAX) ||
        (c->positional == POSENC_POSITIONAL_LEARNED && seq > c->max_length))
        return POSENC_ERR_INVALID_ARGUMENT;
    if (c->embed_scale == 0.0)
        c->embed_scale = sqrt((double)c->d_model);
    if (c->norm_eps == 0.0)
        c->norm_eps = 1e-5;
    if (!isfinite(c->embed_scale) || fabs(c->embed_scale) > 3.4028234663852886e38 ||
        !isfinite(c->norm_eps) || !(c->norm_eps > 0.0))
        return POSENC_ERR_INVALID_ARGUMENT;
    p->head_dim = c->d_model / c->heads;
    if ((status = check_positional(p)))
        return status;

    size_t d = c->d_model, proj = 0;
    p->ff_len = nn_feed_forward_len(d, c->d_ff);
    p->t5_len = 0;
    p->pos_len = 0;
    p->head_len = 0;
    p->layer_len = 0;
    p->params_len = 0;
    p->act = 0;
    p->plane = 0;
    p->scores = 0;
    p->bias_len = 0;
    p->work_len = 0;
    if (p->ff_len == 0 || add_mul(&proj, d, d) || add_mul(&proj, 1, d) || add_mul(&p->layer_len, 4, proj) ||
        add_mul(&p->layer_len, 4, d) || add_mul(&p->layer_len, 1, p->ff_len) ||
        add_mul(&p->params_len, c->vocab_size, d) ||
        (c->positional == POSENC_POSITIONAL_LEARNED && checked_mul(c->max_length, d, &p->pos_len)) ||
        add_mul(&p->params_len, 1, p->pos_len) || add_mul(&p->params_len, c->languages, d) ||
        (c->positional == POSENC_POSITIONAL_T5 && checked_mul(c->t5_num_buckets, c->heads, &p->t5_len)) ||
        add_mul(&p->params_len, 1, p->t5_len) || add_mul(&p->params_len, c->layers, p->layer_len) ||
        add_mul(&p->params_len, 2 * (size_t)c->final_norm, d) ||
        (c->lm_head == POSENC_LM_HEAD_OWN && checked_mul(c->vocab_size, d, &p->head_len)) ||
        add_mul(&p->params_len, 1, p->head_len))
        return POSENC_ERR_SIZE_OVERFLOW;
    /* workspace: h, ctx [seq][d]; q, k, v or the hidden layer; the scores of
       a block of queries; the relative bias rows; with an LM head, the hidden
       states [seq][d] the logits read */
    size_t qkv = 0, hidden = 0;
    int biased = c->positional == POSENC_POSITIONAL_ALIBI || c->positional == POSENC_POSITIONAL_T5;
    p->bias_row = biased && seq ? 2 * seq - 1 : 0; /* seq <= BIAS_SEQ_MAX: no overflow */
    if (checked_mul(seq, d, &p->act) || add_mul(&qkv, 3, p->act) || add_mul(&hidden, seq, c->d_ff) ||
        checked_mul(seq, seq, &p->plane) ||
        checked_mul(seq < NN_ATTEND_ROWS ? seq : NN_ATTEND_ROWS, seq, &p->scores) ||
        checked_mul(p->bias_row, c->heads, &p->bias_len) ||
        add_mul(&p->work_len, 2, p->act) || add_mul(&p->work_len, 1, qkv > hidden ? qkv : hidden) ||
        add_mul(&p->work_len, 1, p->scores) || add_mul(&p->work_len, 1, p->bias_len) ||
        add_mul(&p->work_len, c->lm_head != POSENC_LM_HEAD_NONE, p->act))
        return POSENC_ERR_SIZE_OVERFLOW;
    return POSENC_OK;
}

int posenc_encoder_sizes(const posenc_encoder_config *config, size_t seq, size_t *params_len,
                         size_t *work_len)
{
    plan p;
    int status;
    if (!params_len || !work_len)
        return POSENC_ERR_NULL_POINTER;
    if ((status = make_plan(&p, config, seq)))
        return status;
    *params_len = p.params_len;
    *work_len = p.work_len;
    return POSENC_OK;
}

/* Buffers of one forward pass. */
typedef struct run {
    const plan *p;
    float *x, *h, *ctx, *qkv, *scores, *bias, *probs;
    const int32_t *key_mask;
    int causal;
} run;

static void add_into(float *x, const float *y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] += y[i];
}

/* dst = MultiHead(in) W_o^T + b_o; w points at the layer's q.weight. */
static void self_attention(const run *r, const float *in, float *dst, const float *w, size_t layer, size_t seq)
{
    const posenc_encoder_config *c = &r->p->c;
    size_t d = c->d_model, proj = d * d + d, n = r->p->act;
    float *q = r->qkv, *k = q + n, *v = k + n;
    nn_linear(q, d, in, d, seq, w, d, d, d, w + d * d);
    nn_linear(k, d, in, d, seq, w + proj, d, d, d, w + proj + d * d);
    nn_linear(v, d, in, d, seq, w + 2 * proj, d, d, d, w + 2 * proj + d * d);
    if (c->positional == POSENC_POSITIONAL_ROPE) /* validated up front: cannot fail */
        for (float *t = q; t != v; t += n)
            posenc_rope_apply(t, n, 1, seq, c->heads, r->p->head_dim, c->rotary_dim, c->rope_layout,
                              c->rope_inv_freq, c->rope_attention_factor, 0, NULL, 0, c->rope_precision);
    float *probs = r->probs ? r->probs + layer * c->heads * r->p->plane : NULL;
    /* the bias rows hold j - i = -(seq - 1) .. seq - 1: query i's row starts seq - 1 - i in */
    nn_bias bias = { r->bias ? r->bias + (seq - 1) : NULL, r->p->bias_row, -1 };
    nn_attend(r->ctx, q, k, v, d, seq, c->heads, r->p->head_dim, bias, r->key_mask, r->causal, probs,
              r->scores);
    nn_linear(dst, d, r->ctx, d, seq, w + 3 * proj, d, d, d, w + 3 * proj + d * d);
}

static void encoder_layer(const run *r, const float *w, size_t layer, size_t seq)
{
    const posenc_encoder_config *c = &r->p->c;
    size_t d = c->d_model, n = r->p->act;
    const float *norm1 = w + 4 * (d * d + d), *ff = norm1 + 2 * d, *norm2 = ff + r->p->ff_len;
    if (c->norm == POSENC_NORM_PRE) { /* x + f(LN(x)) */
        nn_layer_norm(r->h, r->x, seq, d, norm1, norm1 + d, c->norm_eps);
        self_attention(r, r->h, r->h, w, layer, seq);
        add_into(r->x, r->h, n);
        nn_layer_norm(r->h, r->x, seq, d, norm2, norm2 + d, c->norm_eps);
        nn_feed_forward(r->ctx, r->h, seq, d, c->d_ff, ff, c->activation, r->qkv);
        add_into(r->x, r->ctx, n);
    } else { /* LN(x + f(x)) */
        self_attention(r, r->x, r->h, w, layer, seq);
        add_into(r->x, r->h, n);
        nn_layer_norm(r->x, r->x, seq, d, norm1, norm1 + d, c->norm_eps);
        nn_feed_forward(r->ctx, r->x, seq, d, c->d_ff, ff, c->activation, r->qkv);
        add_into(r->x, r->ctx, n);
        nn_layer_norm(r->x, r->x, seq, d, norm2, norm2 + d, c->norm_eps);
    }
}

/* The arguments of one pass, and what a pass writes: out, work, attention. */
typedef struct pass {
    const float *params;
    const int32_t *tokens, *key_mask;
    size_t seq, params_len, attention_len, work_len, probs_len;
    int causal;
    int32_t language;
    float *attention, *work;
} pass;

/* The checks of a pass whose out is [seq][d_model] (forward) or
 * [seq][vocab_size] (logits: needs an LM head). */
static int check_pass(plan *p, const posenc_encoder_config *config, pass *a, const float *out, size_t out_len,
                      int logits)
{
    size_t out_need;
    int status;
    if (!out || !a->params || !a->work || (!a->tokens && a->seq) || (!a->attention && a->attention_len))
        return POSENC_ERR_NULL_POINTER;
    if ((status = make_plan(p, config, a->seq)))
        return status;
    const posenc_encoder_config *c = &p->c;
    if ((a->causal != 0 && a->causal != 1) || a->language < -1 ||
        (a->language >= 0 && (size_t)a->language >= c->languages) ||
        (logits && c->lm_head == POSENC_LM_HEAD_NONE))
        return POSENC_ERR_INVALID_ARGUMENT;
    a->probs_len = 0;
    out_need = p->act;
    if ((a->attention && checked_mul3(c->layers, c->heads, p->plane, &a->probs_len)) ||
        (logits && checked_mul(a->seq, c->vocab_size, &out_need)))
        return POSENC_ERR_SIZE_OVERFLOW;
    if (out_len < out_need || a->params_len < p->params_len || a->work_len < p->work_len ||
        (a->attention && a->attention_len < a->probs_len))
        return POSENC_ERR_BUFFER_TOO_SMALL;
    for (size_t s = 0; s < a->seq; s++)
        if (a->tokens[s] < 0 || (size_t)a->tokens[s] >= c->vocab_size)
            return POSENC_ERR_INVALID_ARGUMENT;
    /* out, work and attention are written while params, tokens, the mask and
       the RoPE frequencies are read, layer after layer: no two may share memory */
    const double *inv_freq = c->positional == POSENC_POSITIONAL_ROPE ? c->rope_inv_freq : NULL;
    size_t inv_len = c->rotary_dim / 2;
    const float *written[] = { out, a->work, a->attention };
    const size_t written_len[] = { out_need, p->work_len, a->probs_len };
    for (size_t i = 0; i < 3; i++) {
        for (size_t j = i + 1; j < 3; j++)
            if (nn_overlap(written[i], written_len[i], written[j], written_len[j]))
                return POSENC_ERR_INVALID_ARGUMENT;
        if (nn_overlap(written[i], written_len[i], a->params, p->params_len) ||
            nn_overlap(written[i], written_len[i], a->tokens, a->seq) ||
            nn_overlap(written[i], written_len[i], a->key_mask, a->seq) ||
            nn_overlap(written[i], written_len[i], inv_freq, inv_len))
            return POSENC_ERR_INVALID_ARGUMENT;
    }
    return POSENC_OK;
}

/* The layer stack on checked arguments: x [seq][d_model] receives the output. */
static void encode(const plan *p, const pass *a, float *x)
{
    const posenc_encoder_config *c = &p->c;
    size_t d = c->d_model, seq = a->seq;
    float *work = a->work;
    run r = { p, x, work, work + p->act, work + 2 * p->act, NULL, NULL, a->attention, a->key_mask, a->causal };
    size_t qkv = 3 * p->act, hidden = seq * c->d_ff;
    r.scores = r.qkv + (qkv > hidden ? qkv : hidden);
    r.bias = p->bias_len ? r.scores + p->scores : NULL;

    /* embeddings: E[token] * scale (+ PE or P[s]) (+ the language row) */
    const float *embed = a->params, *pos = embed + c->vocab_size * d, *lang = pos + p->pos_len;
    const float *t5 = lang + c->languages * d;
    int sinusoidal = c->positional == POSENC_POSITIONAL_SINUSOIDAL;
    float scale = (float)c->embed_scale;
    for (size_t s = 0; s < seq; s++)
        for (size_t k = 0; k < d; k++)
            x[s * d + k] = embed[(size_t)a->tokens[s] * d + k] * (sinusoidal ? 1.0f : scale);
    if (sinusoidal)
        posenc_add_sinusoidal(x, p->act, 1, seq, d, POSENC_ORDER_BSD, scale, c->sinusoidal_base, 0,
                              c->sinusoidal_layout);
    if (c->positional == POSENC_POSITIONAL_LEARNED) /* seq <= max_length: checked */
        add_into(x, pos, p->act);
    if (a->language >= 0)
        for (size_t s = 0; s < seq; s++)
            add_into(x + s * d, lang + (size_t)a->language * d, d);
    /* the bias of query i and key j depends on j - i alone: one query at
       position seq - 1 against keys 0 .. 2 seq - 2 holds every value of the
       seq x seq matrix, bit for bit (seq <= BIAS_SEQ_MAX: checked) */
    if (c->positional == POSENC_POSITIONAL_ALIBI && seq)
        posenc_alibi_bias(r.bias, p->bias_len, c->heads, 1, p->bias_row, (int32_t)(seq - 1), a->causal,
                          c->alibi_max_bias);
    else if (c->positional == POSENC_POSITIONAL_T5 && seq)
        posenc_t5_bias(r.bias, p->bias_len, t5, p->t5_len, c->heads, 1, p->bias_row, !c->t5_unidirectional,
                       c->t5_num_buckets, c->t5_max_distance, (int32_t)(seq - 1));

    const float *w = t5 + p->t5_len;
    for (size_t l = 0; l < c->layers; l++, w += p->layer_len)
        encoder_layer(&r, w, l, seq);
    if (c->final_norm)
        nn_layer_norm(x, x, seq, d, w, w + d, c->norm_eps);
}

int posenc_encoder_forward(float *out, size_t out_len, const posenc_encoder_config *config,
                           const float *params, size_t params_len, const int32_t *tokens, size_t seq,
                           const int32_t *key_mask, int causal, int32_t language, float *attention,
                           size_t attention_len, float *work, size_t work_len)
{
    plan p;
    pass a = { params, tokens, key_mask, seq, params_len, attention_len, work_len, 0, causal, language,
               attention, work };
    int status;
    if ((status = check_pass(&p, config, &a, out, out_len, 0)))
        return status;
    encode(&p, &a, out);
    return POSENC_OK;
}

int posenc_encoder_logits(float *out, size_t out_len, const posenc_encoder_config *config,
                          const float *params, size_t params_len, const int32_t *tokens, size_t seq,
                          const int32_t *key_mask, int causal, int32_t language, float *attention,
                          size_t attention_len, float *work, size_t work_len)
{
    plan p;
    pass a = { params, tokens, key_mask, seq, params_len, attention_len, work_len, 0, causal, language,
               attention, work };
    int status;
    if ((status = check_pass(&p, config, &a, out, out_len, 1)))
        return status;
    const posenc_encoder_config *c = &p.c;
    /* the hidden states sit at the end of the workspace, after the layers' scratch */
    float *hidden = work + p.work_len - p.act;
    encode(&p, &a, hidden);
    size_t d = c->d_model;
    const float *head = c->lm_head == POSENC_LM_HEAD_TIED ? params : params + p.params_len - p.head_len;
    nn_linear(out, c->vocab_size, hidden, d, seq, head, d, c->vocab_size, d, NULL);
    return POSENC_OK;
}
