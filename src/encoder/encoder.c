/*
 * encoder.c: the tiny encoder on a whole sequence (parameter layout,
 * workspace and formulas in posenc_encoder.h): posenc_encoder_sizes,
 * posenc_encoder_forward, posenc_encoder_logits. The layer stack is
 * src/encoder/encoder_stack.c's, run on the seq tokens at positions [0, seq)
 * or at the caller's positions.
 */
#include "posenc_encoder.h"

#include "checked.h"
#include "encoder_params.h"
#include "encoder_stack.h"
#include "nn_attend.h"
#include "nn_kernels.h"

/* ALiBi and T5 biases depend on j - i alone: one row per head over
 * j - i = -(seq - 1) .. seq - 1, whose last key position 2 seq - 2 must be
 * an int32 position */
static const size_t BIAS_SEQ_MAX = 1073741824; /* (POSENC_POSITION_MAX + 2) / 2 = 2^30 */

/* A model and the workspace of one pass over seq tokens. */
typedef struct plan {
    model m;
    size_t act, ctx, inner, plane, scores, bias_row, bias_len, tile, work_len;
    rope_plan rope; /* ROPE: the frequencies of a pass over seq tokens */
} plan;

/* The model of config (argument config_index) and the sizes of a pass over
 * seq tokens (argument seq_index). */
static int make_plan(plan *p, const posenc_encoder_config *config, int config_index, size_t seq, int seq_index)
{
    int status;
    if ((status = stack_model(&p->m, config, config_index)))
        return status;
    const posenc_encoder_config *c = &p->m.c;
    int biased = stack_relative_bias(&p->m);
    if ((status = encoder_check(POSENC_PARAM_TOKEN_COUNT, seq_index, (double)seq)))
        return status;
    if (biased && seq > BIAS_SEQ_MAX)
        return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_TOKEN_COUNT, seq_index, "seq",
                                 POSENC_RULE_INTEGER, (double)seq, 0.0, (double)BIAS_SEQ_MAX, NULL,
                                 "ALiBi and T5: the bias row's last key position, 2 seq - 2, is an int32 position");
    if (c->positional == POSENC_POSITIONAL_LEARNED && seq > c->learned.max_length)
        return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_TOKEN_COUNT, seq_index, "seq",
                                 POSENC_RULE_INTEGER, (double)seq, 0.0, (double)c->learned.max_length,
                                 "learned.max_length", "learned positions stop there");

    /* workspace: h [seq][d], ctx [seq][max(d, q_dim)]; q, k, v or the hidden
       layer; the scores of a block of queries; the relative bias rows; the
       tile of 16-bit weights widened; with an LM head, the hidden states
       [seq][d] the logits read */
    size_t d = c->d_model, qkv = 0, hidden = 0, kv = 0;
    p->act = 0;
    p->ctx = 0;
    p->plane = 0;
    p->scores = 0;
    p->bias_len = 0;
    p->work_len = 0;
    p->bias_row = biased && seq ? 2 * seq - 1 : 0; /* seq <= BIAS_SEQ_MAX: no overflow */
    p->tile = stack_tile_len(&p->m);
    if (checked_mul(seq, d, &p->act) || checked_mul(seq, stack_ctx_per_row(&p->m), &p->ctx) ||
        checked_add_mul(&qkv, seq, p->m.q_dim) || checked_mul(seq, p->m.kv_dim, &kv) || checked_add_mul(&qkv, 2, kv) ||
        checked_add_mul(&hidden, seq, stack_hidden_per_row(&p->m)) ||
        checked_mul(seq, seq, &p->plane) ||
        checked_mul(seq < NN_ATTEND_ROWS ? seq : NN_ATTEND_ROWS, seq, &p->scores) ||
        checked_mul(p->bias_row, c->heads, &p->bias_len) || checked_add_mul(&p->work_len, 1, p->act) ||
        checked_add_mul(&p->work_len, 1, p->ctx) ||
        checked_add_mul(&p->work_len, 1, qkv > hidden ? qkv : hidden) || checked_add_mul(&p->work_len, 1, p->scores) ||
        checked_add_mul(&p->work_len, 1, p->bias_len) || checked_add_mul(&p->work_len, 1, p->tile) ||
        checked_add_mul(&p->work_len, c->lm_head != POSENC_LM_HEAD_NONE, p->act))
        return fail_size(seq_index, "the workspace (seq * seq * heads)", seq, seq);
    p->inner = qkv > hidden ? qkv : hidden;
    return POSENC_OK;
}

int posenc_encoder_sizes(const posenc_encoder_config *config, size_t seq, size_t *params_len, size_t *work_len)
{
    plan p;
    int status;
    if (!params_len)
        return fail_null(3, "params_len");
    if (!work_len)
        return fail_null(4, "work_len");
    if ((status = make_plan(&p, config, 1, seq, 2)))
        return status;
    *params_len = p.m.params_len;
    *work_len = p.work_len;
    return POSENC_OK;
}

/* The arguments of one pass, and what a pass writes: out, work, attention. */
typedef struct pass {
    const float *params;
    const int32_t *tokens, *positions, *key_mask;
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
    if (!out)
        return fail_null(1, "out");
    if (!a->params)
        return fail_null(4, "params");
    if (!a->tokens && a->seq)
        return fail_null(6, "tokens");
    if (!a->attention && a->attention_len)
        return fail_null(12, "attention");
    if (!a->work)
        return fail_null(14, "work");
    if ((status = make_plan(p, config, 3, a->seq, 7)))
        return status;
    const posenc_encoder_config *c = &p->m.c;
    if ((status = param_check(POSENC_PARAM_CAUSAL, 10, a->causal)))
        return status;
    if ((status = stack_check_language(c, a->language, 11)))
        return status;
    size_t end = a->seq;
    if (a->positions && (status = stack_check_positions(&p->m, a->positions, a->seq, 8, &end)))
        return status;
    if (logits && c->lm_head == POSENC_LM_HEAD_NONE)
        return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_LM_HEAD, 3, "lm_head", POSENC_RULE_RESULT,
                                 c->lm_head, 0.0, 0.0, NULL, "must be OWN or TIED: logits need an LM head");
    a->probs_len = 0;
    out_need = p->act;
    if (a->attention && checked_mul3(c->layers, c->heads, p->plane, &a->probs_len))
        return fail_size(12, "layers * heads * seq * seq", c->layers * c->heads, p->plane);
    if (logits && checked_mul(a->seq, c->vocab_size, &out_need))
        return fail_size(2, "seq * vocab_size", a->seq, c->vocab_size);
    if (out_len < out_need)
        return fail_length(2, "out_len", out_len, out_need);
    if (a->params_len < p->m.params_len)
        return fail_length(5, "params_len", a->params_len, p->m.params_len);
    if (a->work_len < p->work_len)
        return fail_length(15, "work_len", a->work_len, p->work_len);
    if (a->attention && a->attention_len < a->probs_len)
        return fail_length(13, "attention_len", a->attention_len, a->probs_len);
    const float *written[] = { out, a->work, a->attention };
    const size_t written_len[] = { out_need, p->work_len, a->probs_len };
    static const char *const names[] = { "out", "work", "attention" };
    static const int indexes[] = { 1, 14, 12, 6 };
    if ((status = stack_check_buffers(&p->m, a->params, a->tokens, a->positions, a->key_mask, a->seq, written,
                                      written_len, names, indexes)))
        return status;
    /* RoPE: the frequencies of the largest position + 1 (DYNAMIC and LONGROPE depend on it) */
    return c->positional == POSENC_POSITIONAL_ROPE ? stack_rope(&p->m, end, 3, &p->rope) : POSENC_OK;
}

/* The layer stack on checked arguments: x [seq][d_model] receives the output. */
static void encode(const plan *p, const pass *a, float *x)
{
    size_t seq = a->seq;
    float *h = a->work, *ctx = h + p->act, *q = ctx + p->ctx, *scores = q + p->inner;
    /* q [seq][q_dim], then k and v [seq][kv_dim] each (no cache: each layer's own) */
    stack s = { .m = &p->m, .params = a->params, .x = x, .h = h, .ctx = ctx, .q = q, .hidden = q,
                .scores = scores, .keys = q + seq * p->m.q_dim, .v_offset = seq * p->m.kv_dim, .layer_stride = 0, .first = 0,
                .rows = seq, .key_mask = a->key_mask, .causal = a->causal, .probs = a->attention, .rope = &p->rope,
                .positions = a->positions, .bias_row = scores + p->scores,
                .tile = scores + p->scores + p->bias_len };
    stack_embed(&s, a->tokens, a->language);
    /* the bias of query i and key j depends on j - i alone: one query at
       position seq - 1 against keys 0 .. 2 seq - 2 holds every value of the
       seq x seq matrix, bit for bit (seq <= BIAS_SEQ_MAX: checked); explicit
       positions: a row per query, in the same space (heads * seq floats) */
    if (p->bias_len && !a->positions)
        s.bias = stack_bias_rows(&p->m, a->params, scores + p->scores, seq - 1, p->bias_row, a->causal);
    stack_layers(&s);
}

int posenc_encoder_forward(float *out, size_t out_len, const posenc_encoder_config *config, const float *params,
                           size_t params_len, const int32_t *tokens, size_t seq, const int32_t *positions,
                           const int32_t *key_mask, int causal, int32_t language, float *attention,
                           size_t attention_len, float *work, size_t work_len)
{
    plan p;
    pass a = { params, tokens, positions, key_mask, seq, params_len, attention_len, work_len, 0, causal, language,
               attention, work };
    int status;
    if ((status = check_pass(&p, config, &a, out, out_len, 0)))
        return status;
    encode(&p, &a, out);
    return POSENC_OK;
}

int posenc_encoder_logits(float *out, size_t out_len, const posenc_encoder_config *config, const float *params,
                          size_t params_len, const int32_t *tokens, size_t seq, const int32_t *positions,
                          const int32_t *key_mask, int causal, int32_t language, float *attention,
                          size_t attention_len, float *work, size_t work_len)
{
    plan p;
    pass a = { params, tokens, positions, key_mask, seq, params_len, attention_len, work_len, 0, causal, language,
               attention, work };
    int status;
    if ((status = check_pass(&p, config, &a, out, out_len, 1)))
        return status;
    const posenc_encoder_config *c = &p.m.c;
    /* the hidden states sit at the end of the workspace, after the layers' scratch (the tile last) */
    float *hidden = work + p.work_len - p.act;
    encode(&p, &a, hidden);
    size_t d = c->d_model;
    stack_linear(&p.m, out, c->vocab_size, hidden, d, seq, stack_lm_head(&p.m, params), c->vocab_size, d, NULL,
                 hidden - p.tile, 0);
    return POSENC_OK;
}
