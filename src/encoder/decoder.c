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
#include "encoder_stack.h"
#include "nn_attend.h"
#include "nn_kernels.h"

/* A model and the buffers of a cache of max_length rows fed `count` tokens. */
typedef struct plan {
    model m;
    size_t act, inner, scores, bias_len, cache_len, work_len;
} plan;

static int make_plan(plan *p, const posenc_encoder_config *config, size_t max_length, size_t count)
{
    int status;
    if ((status = stack_model(&p->m, config)))
        return status;
    const posenc_encoder_config *c = &p->m.c;
    if (c->lm_head == POSENC_LM_HEAD_NONE || max_length == 0 ||
        (uint64_t)max_length > (uint64_t)POSENC_POSITION_MAX + 1 ||
        (c->positional == POSENC_POSITIONAL_LEARNED && max_length > c->max_length) || count == 0 ||
        count > max_length)
        return POSENC_ERR_INVALID_ARGUMENT;
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
        return POSENC_ERR_SIZE_OVERFLOW;
    p->inner = q > hidden ? q : hidden;
    return POSENC_OK;
}

int posenc_decoder_sizes(const posenc_encoder_config *config, size_t max_length, size_t max_feed,
                         size_t *cache_len, size_t *work_len)
{
    plan p;
    int status;
    if (!cache_len || !work_len)
        return POSENC_ERR_NULL_POINTER;
    if ((status = make_plan(&p, config, max_length, max_feed)))
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
    int status;
    if (!logits || !params || !tokens || !work)
        return POSENC_ERR_NULL_POINTER;
    if ((status = make_plan(&p, config, max_length, count)))
        return status;
    const posenc_encoder_config *c = &p.m.c;
    if (!cache && p.cache_len)
        return POSENC_ERR_NULL_POINTER;
    if (length > max_length || language < -1 || (language >= 0 && (size_t)language >= c->languages) ||
        (c->positional == POSENC_POSITIONAL_LEARNED && count > c->max_length - length))
        return POSENC_ERR_INVALID_ARGUMENT;
    if (count > max_length - length || logits_len < c->vocab_size || params_len < p.m.params_len ||
        cache_len < p.cache_len || work_len < p.work_len)
        return POSENC_ERR_BUFFER_TOO_SMALL;
    const float *written[] = { logits, cache, work };
    const size_t written_len[] = { c->vocab_size, p.cache_len, p.work_len };
    if ((status = stack_check_buffers(&p.m, params, tokens, NULL, count, written, written_len)))
        return status;

    size_t d = c->d_model, end = length + count;
    float *x = work, *h = x + p.act, *ctx = h + p.act, *q = ctx + p.act, *scores = q + p.inner;
    stack s = { .m = &p.m, .params = params, .x = x, .h = h, .ctx = ctx, .q = q, .hidden = q, .scores = scores,
                .keys = cache, .v_offset = max_length * d, .layer_stride = 2 * max_length * d, .first = length,
                .rows = count, .causal = 1 };
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
