/*
 * decoder.c: incremental decoding with a KV cache (layout, semantics per
 * scheme and bounds in posenc_encoder.h): posenc_decoder_sizes and
 * posenc_decoder_feed. The layer stack is src/encoder/encoder_stack.c's, run on the
 * new tokens at positions [length, length + count) with the cache as its
 * keys and values: each layer writes the new rows' keys and values into the
 * cache, then their queries attend to every row up to their own.
 */
#include "posenc_encoder.h"

#include "checked.h"
#include "encoder_params.h"
#include "encoder_stack.h"
#include "nn_attend.h"
#include "nn_kernels.h"

/* A model and the buffers of a cache of max_length rows fed `count` tokens. */
typedef struct plan {
    model m;
    size_t act, inner, scores, bias_len, cache_len, work_len;
} plan;

/* config is argument 1 of the size query and 3 of a feed; max_length 2 or 8; count 3 or 11 */
static int make_plan(plan *p, const posenc_encoder_config *config, size_t max_length, size_t count, int feed)
{
    int status, config_index = feed ? 3 : 1, length_index = feed ? 8 : 2, count_index = feed ? 11 : 3;
    if ((status = stack_model(&p->m, config, config_index)))
        return status;
    const posenc_encoder_config *c = &p->m.c;
    if (c->lm_head == POSENC_LM_HEAD_NONE)
        return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_LM_HEAD, config_index, "lm_head",
                                 POSENC_RULE_RESULT, c->lm_head, 0.0, 0.0, NULL, "must be OWN or TIED: decoding needs an LM head");
    if ((status = encoder_check(POSENC_PARAM_DECODER_MAX_LENGTH, length_index, (double)max_length)) ||
        (status = encoder_check(POSENC_PARAM_FEED_COUNT, count_index, (double)count)))
        return status;
    if (c->positional == POSENC_POSITIONAL_LEARNED && max_length > c->learned.max_length)
        return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_DECODER_MAX_LENGTH, length_index,
                                 "max_length", POSENC_RULE_INTEGER, (double)max_length, 1.0,
                                 (double)c->learned.max_length, "learned.max_length", "learned positions stop there");
    if (count > max_length)
        return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_FEED_COUNT, count_index, "count",
                                 POSENC_RULE_INTEGER, (double)count, 1.0, (double)max_length, "max_length", NULL);
    /* cache: [layers][2][max_length][d]; workspace: x, h, ctx [count][d], q or
       the hidden layer, the scores of a block of queries against every row,
       the relative bias rows */
    size_t d = c->d_model, q = 0, hidden = 0, plane = 0;
    p->act = 0;
    p->scores = 0;
    p->bias_len = 0;
    p->cache_len = 0;
    p->work_len = 0;
    if (checked_mul(count, d, &p->act) || checked_add_mul(&q, 1, p->act) || checked_add_mul(&hidden, count, c->d_ff) ||
        checked_mul(count < NN_ATTEND_ROWS ? count : NN_ATTEND_ROWS, max_length, &p->scores) ||
        (stack_relative_bias(&p->m) && checked_mul(c->heads, max_length, &p->bias_len)) ||
        /* 2 * max_length would wrap a 32-bit size_t at max_length 2^31: the factor 2 is checked too */
        checked_mul3(c->layers, max_length, d, &plane) || checked_mul(plane, 2, &p->cache_len) ||
        checked_add_mul(&p->work_len, 3, p->act) ||
        checked_add_mul(&p->work_len, 1, q > hidden ? q : hidden) || checked_add_mul(&p->work_len, 1, p->scores) ||
        checked_add_mul(&p->work_len, 1, p->bias_len))
        return fail_size(length_index, "the cache (layers * 2 * max_length * d_model)", c->layers, max_length);
    p->inner = q > hidden ? q : hidden;
    return POSENC_OK;
}

int posenc_decoder_sizes(const posenc_encoder_config *config, size_t max_length, size_t max_feed,
                         size_t *cache_len, size_t *work_len)
{
    plan p;
    int status;
    if (!cache_len)
        return fail_null(4, "cache_len");
    if (!work_len)
        return fail_null(5, "work_len");
    if ((status = make_plan(&p, config, max_length, max_feed, 0)))
        return status;
    *cache_len = p.cache_len;
    *work_len = p.work_len;
    return POSENC_OK;
}

int posenc_decoder_feed(float *logits, size_t logits_len, const posenc_encoder_config *config,
                        const float *params, size_t params_len, float *cache, size_t cache_len, size_t max_length,
                        size_t length, const int32_t *tokens, size_t count, int32_t language, float *work,
                        size_t work_len)
{
    plan p;
    rope_plan rope;
    int status;
    if (!logits)
        return fail_null(1, "logits");
    if (!params)
        return fail_null(4, "params");
    if (!tokens)
        return fail_null(10, "tokens");
    if (!work)
        return fail_null(13, "work");
    if ((status = make_plan(&p, config, max_length, count, 1)))
        return status;
    const posenc_encoder_config *c = &p.m.c;
    if (!cache && p.cache_len)
        return fail_null(6, "cache");
    if (length > max_length)
        return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_CACHED, 9, "length", POSENC_RULE_INTEGER,
                                 (double)length, 0.0, (double)max_length, "max_length", NULL);
    if ((status = stack_check_language(c, language, 12)))
        return status;
    if (c->positional == POSENC_POSITIONAL_LEARNED && count > c->learned.max_length - length)
        return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_FEED_COUNT, 11, "count", POSENC_RULE_INTEGER,
                                 (double)count, 1.0, (double)(c->learned.max_length - length),
                                 "learned.max_length - length", "learned positions stop there");
    if (count > max_length - length)
        return param_fail_detail(POSENC_ERR_BUFFER_TOO_SMALL, POSENC_PARAM_FEED_COUNT, 11, "count", POSENC_RULE_INTEGER,
                                 (double)count, 1.0, (double)(max_length - length), "max_length - length",
                                 "the cache is full");
    if (logits_len < c->vocab_size)
        return fail_length(2, "logits_len", logits_len, c->vocab_size);
    if (params_len < p.m.params_len)
        return fail_length(5, "params_len", params_len, p.m.params_len);
    if (cache_len < p.cache_len)
        return fail_length(7, "cache_len", cache_len, p.cache_len);
    if (work_len < p.work_len)
        return fail_length(14, "work_len", work_len, p.work_len);
    const float *written[] = { logits, cache, work };
    const size_t written_len[] = { c->vocab_size, p.cache_len, p.work_len };
    static const char *const names[] = { "logits", "cache", "work" };
    static const int indexes[] = { 1, 6, 13, 10 };
    if ((status = stack_check_buffers(&p.m, params, tokens, NULL, count, written, written_len, names, indexes)))
        return status;
    if (c->positional == POSENC_POSITIONAL_ROPE && (status = stack_rope(&p.m, length + count, 3, &rope)))
        return status;

    size_t d = c->d_model, end = length + count;
    float *x = work, *h = x + p.act, *ctx = h + p.act, *q = ctx + p.act, *scores = q + p.inner;
    stack s = { .m = &p.m, .params = params, .x = x, .h = h, .ctx = ctx, .q = q, .hidden = q, .scores = scores,
                .keys = cache, .v_offset = max_length * d, .layer_stride = 2 * max_length * d, .first = length,
                .rows = count, .causal = 1, .rope = &rope };
    stack_embed(&s, tokens, language);
    /* the bias rows of the last query, end - 1, against keys 0 .. end - 1
       hold every entry j - i <= 0 the new queries read */
    if (p.bias_len)
        s.bias = stack_bias_rows(&p.m, params, scores + p.scores, end - 1, end, 1);
    stack_layers(&s);
    nn_linear(logits, c->vocab_size, x + (count - 1) * d, d, 1, stack_lm_head(&p.m, params), d, c->vocab_size, d,
              NULL);
    return POSENC_OK;
}
