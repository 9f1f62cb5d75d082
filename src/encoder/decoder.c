/*
 * decoder.c: the decoder state, generation with a KV cache (semantics per
 * scheme in posenc_encoder.h): the one object of posenc that allocates. The
 * layer stack is src/encoder/encoder_stack.c's, run on the new tokens at
 * positions [first, end) with the cache as its keys and values: each layer
 * writes the new rows' keys and values into the cache, then their queries
 * attend to every row up to their own.
 */
#include "posenc_encoder.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "checked.h"
#include "encoder_params.h"
#include "encoder_stack.h"
#include "fmath.h"
#include "nn_attend.h"
#include "nn_kernels.h"

/* Rows a cache starts with when max_length leaves room (it doubles as the sequence grows). */
#define FIRST_CAPACITY 256

/* A token and its logit, for ranking (posenc_decoder_sample). */
typedef struct ranked {
    float logit;
    int32_t id;
} ranked;

struct posenc_decoder {
    model m;                  /* the checked config, its RoPE lists pointing at `lists` */
    const float *params;      /* borrowed */
    int32_t language;
    size_t max_length, length, capacity, bytes;
    float *cache;             /* [layers][2][capacity][kv_dim]                          */
    float *bias;              /* ALIBI, T5: [heads][capacity], distance t at capacity - 1 - t */
    size_t known;             /* distances 0 .. known - 1 are in bias                    */
    float *work;
    size_t work_len;
    float *logits;            /* [vocab_size], the last feed's                          */
    int fed;
    double *freqs;            /* ROPE: rotary_dim / 2 frequencies in use                */
    rope_plan rope;           /* ROPE: the plan of the last feed, its frequencies freqs */
    int length_dependent;     /* ROPE: DYNAMIC or LONGROPE at the call's length          */
    double *lists;            /* copies of LongRoPE's factor lists, or of inv_freq      */
    size_t lists_len;
    int32_t *ids;             /* LONGROPE: every token fed, to feed them again at O     */
    size_t ids_cap;
    int32_t *pos;             /* [capacity]: the position of every token fed            */
    int explicit_pos;         /* a token sits elsewhere than its index: biases by pair  */
    size_t next;              /* the position a feed without positions starts at       */
    size_t top;               /* the largest position fed + 1                           */
    double *sample_p;         /* [vocab_size] scratch of posenc_decoder_sample          */
    ranked *sample_rank;
};

/* ------------------------------------------------------------ memory */

/* n elements of `size` bytes from malloc, counted in d->bytes; NULL when
 * the count overflows or the allocator refuses. */
static void *grab(posenc_decoder *d, size_t n, size_t size)
{
    size_t bytes;
    if (checked_mul(n, size, &bytes))
        return NULL;
    void *p = malloc(bytes ? bytes : 1);
    if (p)
        d->bytes += bytes;
    return p;
}

static void drop(posenc_decoder *d, void *p, size_t n, size_t size)
{
    if (!p)
        return;
    free(p);
    d->bytes -= n * size;
}

/* The failure of an allocation of n elements of `size` bytes, what was
 * asked named: a count past size_t, or bytes the allocator refused. */
static int fail_memory(int index, const char *what, size_t n, size_t size)
{
    size_t bytes;
    if (checked_mul(n, size, &bytes))
        return fail_size(index, what, n, size);
    return param_fail_detail(POSENC_ERR_OUT_OF_MEMORY, POSENC_PARAM_NONE, index, what, POSENC_RULE_MEMORY,
                             (double)bytes, 0.0, 0.0, NULL, NULL);
}

/* The parts of a workspace for `rows` new rows (floats): x, h [rows][d]
 * (act each), ctx [rows][max(d, q_dim)], q [rows][q_dim] or the hidden layer
 * (inner). */
static int work_parts(const model *m, size_t rows, size_t *act, size_t *ctx, size_t *inner)
{
    size_t q = 0, hidden = 0;
    if (checked_mul(rows, m->c.d_model, act) || checked_mul(rows, stack_ctx_per_row(m), ctx) ||
        checked_mul(rows, m->q_dim, &q) || checked_mul(rows, stack_hidden_per_row(m), &hidden))
        return 1;
    *inner = q > hidden ? q : hidden;
    return 0;
}

/* The workspace of `rows` new rows against a cache of `capacity` rows:
 * work_parts; the scores of a block of queries; ALIBI and T5: the new
 * distances' bias rows, or one query's bias row by positions,
 * [heads][capacity] at most. */
static int work_floats(const model *m, size_t rows, size_t capacity, size_t *len)
{
    const posenc_encoder_config *c = &m->c;
    size_t act = 0, ctx = 0, inner = 0, total = 0;
    if (work_parts(m, rows, &act, &ctx, &inner) || checked_add_mul(&total, 2, act) || checked_add_mul(&total, 1, ctx) ||
        checked_add_mul(&total, 1, inner) ||
        checked_add_mul(&total, rows < NN_ATTEND_ROWS ? rows : NN_ATTEND_ROWS, capacity) ||
        (stack_relative_bias(m) && checked_add_mul(&total, c->heads, capacity)) ||
        checked_add_mul(&total, 1, stack_tile_len(m)))
        return 1;
    *len = total;
    return 0;
}

/* Room for `end` rows in the cache (and the bias by distance): doubling, up
 * to max_length; rows < length keep their values. */
static int reserve(posenc_decoder *d, size_t end)
{
    if (end <= d->capacity)
        return POSENC_OK;
    const posenc_encoder_config *c = &d->m.c;
    size_t rows = d->capacity ? 2 * d->capacity : FIRST_CAPACITY;
    rows = rows < end ? end : rows;
    rows = rows > d->max_length ? d->max_length : rows;
    size_t plane = 0, cache_len = 0, kvd = d->m.kv_dim;
    if (checked_mul3(c->layers, rows, kvd, &plane) || checked_mul(plane, 2, &cache_len))
        return fail_size(4, "the cache (layers * 2 * capacity * kv_heads * head_dim)", 2 * c->layers * rows, kvd);
    float *cache = grab(d, cache_len, sizeof *cache);
    float *bias = stack_relative_bias(&d->m) ? grab(d, c->heads * rows, sizeof *bias) : NULL;
    int32_t *pos = grab(d, rows, sizeof *pos);
    if (!cache || (stack_relative_bias(&d->m) && !bias) || !pos) {
        drop(d, cache, cache_len, sizeof *cache);
        drop(d, bias, c->heads * rows, sizeof *bias);
        drop(d, pos, rows, sizeof *pos);
        return fail_memory(4, "the cache (layers * 2 * capacity * kv_heads * head_dim)", cache_len, sizeof *cache);
    }
    if (d->length)
        memcpy(pos, d->pos, d->length * sizeof *pos);
    drop(d, d->pos, d->capacity, sizeof *pos);
    d->pos = pos;
    size_t old = d->capacity;
    for (size_t k = 0; old && k < 2 * c->layers; k++) /* each layer's keys, then values */
        memcpy(cache + k * rows * kvd, d->cache + k * old * kvd, d->length * kvd * sizeof *cache);
    for (size_t h = 0; bias && old && h < c->heads; h++) /* distances stay at the end of each row */
        memcpy(bias + h * rows + rows - d->known, d->bias + h * old + old - d->known, d->known * sizeof *bias);
    drop(d, d->cache, 2 * c->layers * old * kvd, sizeof *cache);
    drop(d, d->bias, c->heads * old, sizeof *bias);
    d->cache = cache, d->bias = bias, d->capacity = rows;
    return POSENC_OK;
}

/* A workspace for `rows` new rows at the current capacity. */
static int reserve_work(posenc_decoder *d, size_t rows)
{
    size_t need;
    if (work_floats(&d->m, rows, d->capacity, &need))
        return fail_size(4, "the workspace", rows, d->capacity);
    if (need <= d->work_len)
        return POSENC_OK;
    float *work = grab(d, need, sizeof *work);
    if (!work)
        return fail_memory(4, "the workspace", need, sizeof *work);
    drop(d, d->work, d->work_len, sizeof *work);
    d->work = work, d->work_len = need;
    return POSENC_OK;
}

/* LONGROPE: room to keep `end` token ids. */
static int reserve_ids(posenc_decoder *d, size_t end)
{
    if (end <= d->ids_cap)
        return POSENC_OK;
    size_t cap = 2 * d->ids_cap > end ? 2 * d->ids_cap : end;
    cap = cap > d->max_length ? d->max_length : cap;
    int32_t *ids = grab(d, cap, sizeof *ids);
    if (!ids)
        return fail_memory(2, "the tokens kept for LongRoPE", cap, sizeof *ids);
    if (d->length)
        memcpy(ids, d->ids, d->length * sizeof *ids);
    drop(d, d->ids, d->ids_cap, sizeof *ids);
    d->ids = ids, d->ids_cap = cap;
    return POSENC_OK;
}

/* ------------------------------------------------------------ create, free */

void posenc_decoder_free(posenc_decoder *d)
{
    if (!d)
        return;
    free(d->cache);
    free(d->bias);
    free(d->work);
    free(d->logits);
    free(d->freqs);
    free(d->lists);
    free(d->ids);
    free(d->pos);
    free(d->sample_p);
    free(d->sample_rank);
    free(d);
}

/* ROPE: copies of what the config points at (the factor lists, or inv_freq),
 * the frequency buffer, and whether the frequencies follow the length. */
static int own_rope(posenc_decoder *d)
{
    posenc_rope *r = &d->m.c.rope;
    size_t half = d->m.rope.half;
    d->freqs = grab(d, half, sizeof *d->freqs);
    int longrope = r->scaling.type == POSENC_ROPE_LONGROPE;
    d->lists_len = (r->inv_freq ? half : 0) + (longrope ? 2 * half : 0);
    d->lists = d->lists_len ? grab(d, d->lists_len, sizeof *d->lists) : NULL;
    if (!d->freqs || (d->lists_len && !d->lists))
        return fail_memory(2, "the RoPE frequencies", half + d->lists_len, sizeof *d->freqs);
    double *at = d->lists; /* NULL only when there is no list to keep */
    if (longrope && at) {
        memcpy(at, r->scaling.short_factor, half * sizeof *at);
        memcpy(at + half, r->scaling.long_factor, half * sizeof *at);
        r->scaling.short_factor = at, r->scaling.long_factor = at + half;
        at += 2 * half;
    }
    if (r->inv_freq && at) {
        memcpy(at, r->inv_freq, half * sizeof *at);
        r->inv_freq = at;
    }
    d->length_dependent = !r->inv_freq && !r->seq_len &&
                          (r->scaling.type == POSENC_ROPE_DYNAMIC || longrope);
    return POSENC_OK;
}

/* The frequencies of a feed ending at `end` into *plan (given: d->freqs);
 * nothing of the state changes. */
static int rope_at(const posenc_decoder *d, size_t end, rope_plan *plan)
{
    int status = stack_rope(&d->m, d->length_dependent ? end : 0, 1, plan);
    if (status)
        return status;
    return POSENC_OK;
}

int posenc_decoder_create(posenc_decoder **out, const posenc_encoder_config *config, const float *params,
                          size_t params_len, size_t max_length, int32_t language)
{
    int status;
    if (!out)
        return fail_null(1, "out");
    *out = NULL;
    if (!params)
        return fail_null(3, "params");
    posenc_decoder *d = malloc(sizeof *d); /* malloc and free only: the wasm allocator has no more */
    if (!d)
        return fail_memory(1, "the decoder state", 1, sizeof *d);
    *d = (posenc_decoder){ 0 };
    d->bytes = sizeof *d;
    if ((status = stack_model(&d->m, config, 2)))
        goto failed;
    const posenc_encoder_config *c = &d->m.c;
    size_t learned = c->positional == POSENC_POSITIONAL_LEARNED ? c->learned.max_length : 0;
    if (max_length == 0)
        max_length = learned ? learned : (size_t)POSENC_POSITION_MAX + 1;
    if (c->lm_head == POSENC_LM_HEAD_NONE) {
        status = param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_LM_HEAD, 2, "lm_head", POSENC_RULE_RESULT,
                                   c->lm_head, 0.0, 0.0, NULL, "must be OWN or TIED: decoding needs an LM head");
        goto failed;
    }
    if ((status = encoder_check(POSENC_PARAM_DECODER_MAX_LENGTH, 5, (double)max_length)))
        goto failed;
    if (learned && max_length > learned) {
        status = param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_DECODER_MAX_LENGTH, 5, "max_length",
                                   POSENC_RULE_INTEGER, (double)max_length, 1.0, (double)learned,
                                   "learned.max_length", "learned positions stop there");
        goto failed;
    }
    if ((status = stack_check_language(c, language, 6)))
        goto failed;
    if (params_len < d->m.params_len) {
        status = fail_length(4, "params_len", params_len, d->m.params_len);
        goto failed;
    }
    d->params = params, d->language = language, d->max_length = max_length;
    d->logits = grab(d, c->vocab_size, sizeof *d->logits);
    d->sample_p = grab(d, c->vocab_size, sizeof *d->sample_p);
    d->sample_rank = grab(d, c->vocab_size, sizeof *d->sample_rank);
    if (!d->logits || !d->sample_p || !d->sample_rank) {
        status = fail_memory(2, "the logits (vocab_size)", c->vocab_size, 2 * sizeof(double));
        goto failed;
    }
    if (c->positional == POSENC_POSITIONAL_ROPE) {
        rope_plan plan;
        if ((status = own_rope(d)) || (status = rope_at(d, 1, &plan)))
            goto failed;
        if (!d->length_dependent) { /* the frequencies of every feed: computed once, here */
            rope_plan_block(&plan, 0, plan.half, d->freqs);
            plan.given = d->freqs;
            d->rope = plan;
        }
    }
    *out = d;
    return POSENC_OK;
failed:
    posenc_decoder_free(d);
    return status;
}

/* ------------------------------------------------------------ feed */

/* ALIBI, T5: the bias of every distance below end (the new ones computed
 * into the workspace's scratch, then stored by distance). */
static void extend_bias(posenc_decoder *d, size_t end, float *scratch)
{
    const posenc_encoder_config *c = &d->m.c;
    if (end <= d->known)
        return;
    size_t n = end - d->known, cap = d->capacity;
    /* query end - 1 against keys 0 .. n - 1: key j is distance end - 1 - j, the new distances */
    stack_bias_rows(&d->m, d->params, scratch, end - 1, n, 1);
    for (size_t h = 0; h < c->heads; h++)
        memcpy(d->bias + h * cap + cap - end, scratch + h * n, n * sizeof *scratch);
    d->known = end;
}

/* The positions of a feed without them: next, next + 1, ... (*top = the
 * last + 1), within int32 and, LEARNED, below learned.max_length. */
static int check_next(const posenc_decoder *d, size_t count, size_t *top)
{
    const posenc_encoder_config *c = &d->m.c;
    size_t limit = c->positional == POSENC_POSITIONAL_LEARNED ? c->learned.max_length : (size_t)POSENC_POSITION_MAX + 1;
    if (d->next > limit || count > limit - d->next)
        return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_TOKEN_POSITIONS, 3, "positions",
                                 POSENC_RULE_RESULT, (double)d->next, (double)limit, 0.0, NULL,
                                 "(NULL: one past the last position fed) must stay below %");
    *top = d->next + count;
    return POSENC_OK;
}

int posenc_decoder_feed(posenc_decoder *d, const int32_t *tokens, const int32_t *positions, size_t count,
                        float *logits, size_t logits_len)
{
    int status;
    if (!d)
        return fail_null(1, "d");
    if (!tokens)
        return fail_null(2, "tokens");
    if (!logits && logits_len)
        return fail_null(5, "logits");
    const posenc_encoder_config *c = &d->m.c;
    if ((status = encoder_check(POSENC_PARAM_FEED_COUNT, 4, (double)count)))
        return status;
    if (count > d->max_length - d->length)
        return param_fail_detail(POSENC_ERR_BUFFER_TOO_SMALL, POSENC_PARAM_FEED_COUNT, 4, "count", POSENC_RULE_RESULT,
                                 (double)count, (double)(d->max_length - d->length), 0.0, NULL,
                                 "must fit in the sequence: at most max_length - length = % more");
    for (size_t s = 0; s < count; s++)
        if (tokens[s] < 0 || (size_t)tokens[s] >= c->vocab_size)
            return param_element(param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_TOKENS, 2, "tokens",
                                                   POSENC_RULE_INTEGER, tokens[s], 0.0, (double)c->vocab_size - 1.0,
                                                   "vocab_size - 1", NULL),
                                 s);
    size_t top;
    if ((status = positions ? stack_check_positions(&d->m, positions, count, 3, &top) : check_next(d, count, &top)))
        return status;
    if (logits && logits_len < c->vocab_size)
        return fail_length(6, "logits_len", logits_len, c->vocab_size);
    size_t end = d->length + count;
    top = top > d->top ? top : d->top;

    /* LongRoPE: past O for the first time, the whole sequence again (the long
       factors for every key); the frequencies follow the largest position + 1 */
    rope_plan plan;
    int again = 0;
    if (c->positional == POSENC_POSITIONAL_ROPE && d->length_dependent) {
        if ((status = rope_at(d, top, &plan)))
            return status;
        double o = plan.original_max;
        again = d->length_dependent && plan.type == POSENC_ROPE_LONGROPE && d->length > 0 &&
                (double)d->length <= o && (double)end > o;
    }
    size_t first = again ? 0 : d->length, rows = end - first;
    int keep_ids = d->length_dependent && d->m.c.rope.scaling.type == POSENC_ROPE_LONGROPE;
    /* every check is done; growing keeps the sequence (rows >= length are free) */
    if ((status = reserve(d, end)) || (status = reserve_work(d, rows)) || (keep_ids && (status = reserve_ids(d, end))))
        return status;
    if (keep_ids)
        memcpy(d->ids + d->length, tokens, count * sizeof *tokens);
    for (size_t s = 0; s < count; s++) {
        d->pos[d->length + s] = positions ? positions[s] : (int32_t)(d->next + s);
        d->explicit_pos |= (size_t)d->pos[d->length + s] != d->length + s;
    }
    const int32_t *fed = again ? d->ids : tokens;

    size_t dm = c->d_model, kvd = d->m.kv_dim, act = 0, ctxn = 0, inner = 0;
    (void)work_parts(&d->m, rows, &act, &ctxn, &inner); /* reserve_work computed them: no overflow */
    size_t scores = (rows < NN_ATTEND_ROWS ? rows : NN_ATTEND_ROWS) * d->capacity;
    float *x = d->work, *h = x + act, *ctx = h + act, *q = ctx + ctxn, *score = q + inner, *scratch = score + scores;
    stack s = { .m = &d->m, .params = d->params, .x = x, .h = h, .ctx = ctx, .q = q, .hidden = q, .scores = score,
                .keys = d->cache, .v_offset = d->capacity * kvd, .layer_stride = 2 * d->capacity * kvd,
                .first = first, .rows = rows, .causal = 1, .positions = d->explicit_pos ? d->pos : NULL,
                .bias_row = scratch, .tile = scratch + (stack_relative_bias(&d->m) ? c->heads * d->capacity : 0) };
    if (c->positional == POSENC_POSITIONAL_ROPE) { /* the frequencies once, not per layer */
        if (d->length_dependent) {
            rope_plan_block(&plan, 0, plan.half, d->freqs);
            plan.given = d->freqs;
            d->rope = plan;
        }
        s.rope = &d->rope;
    }
    if (stack_relative_bias(&d->m) && !d->explicit_pos) { /* positions = indexes: the bias by distance */
        extend_bias(d, end, scratch);
        nn_bias b = { d->bias + d->capacity - 1, d->capacity, -1 };
        s.bias = b;
    }
    stack_embed(&s, fed, d->language);
    stack_layers(&s);
    stack_linear(&d->m, d->logits, c->vocab_size, x + (rows - 1) * dm, dm, 1, stack_lm_head(&d->m, d->params),
                 c->vocab_size, dm, NULL, s.tile, 0);
    if (logits)
        memcpy(logits, d->logits, c->vocab_size * sizeof *logits);
    d->next = (size_t)d->pos[end - 1] + 1;
    d->top = top;
    d->length = end;
    d->fed = 1;
    return POSENC_OK;
}

const float *posenc_decoder_logits(const posenc_decoder *d)
{
    return d && d->fed ? d->logits : NULL;
}

size_t posenc_decoder_length(const posenc_decoder *d)
{
    return d ? d->length : 0;
}

size_t posenc_decoder_max_length(const posenc_decoder *d)
{
    return d ? d->max_length : 0;
}

size_t posenc_decoder_memory(const posenc_decoder *d)
{
    return d ? d->bytes : 0;
}

int posenc_decoder_reset(posenc_decoder *d)
{
    if (!d)
        return fail_null(1, "d");
    d->length = 0;
    d->fed = 0;
    d->explicit_pos = 0;
    d->next = 0;
    d->top = 0;
    return POSENC_OK;
}

/* ------------------------------------------------------------ choosing tokens */

/* SplitMix64 (Steele, Lea and Flood 2014): the next 64 bits of the stream. */
static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

/* The largest logit, the first of equal ones; a NaN counts as the largest (torch.argmax). */
static int32_t argmax(const float *logits, size_t n)
{
    size_t best = 0;
    for (size_t v = 0; v < n; v++) {
        if (isnan(logits[v]))
            return (int32_t)v;
        if (logits[v] > logits[best])
            best = v;
    }
    return (int32_t)best;
}

/* The larger logit first, the lower id first among equal ones: a total
 * order, so any sort gives the one result. */
static int by_logit(const void *pa, const void *pb)
{
    const ranked *a = pa, *b = pb;
    if (a->logit != b->logit)
        return a->logit > b->logit ? -1 : 1;
    return (a->id > b->id) - (a->id < b->id);
}

static int by_id(const void *pa, const void *pb)
{
    const ranked *a = pa, *b = pb;
    return (a->id > b->id) - (a->id < b->id);
}

static int check_sampling(const posenc_sampling *s, const uint64_t *rng, int index)
{
    int status;
    if ((status = encoder_check(POSENC_PARAM_TEMPERATURE, index, s->temperature)) ||
        (status = encoder_check(POSENC_PARAM_TOP_K, index, (double)s->top_k)) ||
        (status = encoder_check(POSENC_PARAM_TOP_P, index, s->top_p)))
        return status;
    if (s->temperature != 0.0 && !rng)
        return fail_null(index + 1, "rng");
    return POSENC_OK;
}

/* Chooses from checked settings; the logits must be finite when sampling. */
static int choose(posenc_decoder *d, const posenc_sampling *s, uint64_t *rng, int32_t *token)
{
    const float *logits = d->logits;
    size_t n = d->m.c.vocab_size;
    if (!s || s->temperature == 0.0) {
        *token = argmax(logits, n);
        return POSENC_OK;
    }
    for (size_t v = 0; v < n; v++)
        if (!(fabsf(logits[v]) <= FLT_MAX))
            return param_element(param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_NONE, 1, "logits",
                                                   POSENC_RULE_RESULT, logits[v], 0.0, 0.0, NULL,
                                                   "must be finite to sample from (greedy takes a NaN as the largest)"),
                                 v);
    /* the kept tokens: every one, or the top_k largest logits, then the
     * fewest most probable whose probabilities reach top_p (HF's
     * TopKLogitsWarper and TopPLogitsWarper, after the temperature) */
    ranked *r = d->sample_rank;
    float top = -FLT_MAX;
    for (size_t v = 0; v < n; v++) {
        r[v].logit = logits[v], r[v].id = (int32_t)v;
        top = logits[v] > top ? logits[v] : top;
    }
    size_t kept = s->top_k && s->top_k < n ? s->top_k : n;
    int nucleus = s->top_p > 0.0 && s->top_p < 1.0;
    if (kept < n || nucleus)
        qsort(r, n, sizeof *r, by_logit);
    double *p = d->sample_p, total = 0.0;
    for (size_t i = 0; i < kept; i++) /* softmax(logits / T), unnormalised */
        total += p[i] = fmath_exp(((double)r[i].logit - top) / s->temperature);
    if (nucleus) {
        double sum = 0.0;
        size_t i = 0;
        while (i < kept && sum < s->top_p * total)
            sum += p[i++];
        kept = i;
    }
    /* u in [0, total of the kept), walked over the kept tokens in id order */
    if (kept < n || nucleus) {
        qsort(r, kept, sizeof *r, by_id);
        total = 0.0;
        for (size_t i = 0; i < kept; i++)
            total += p[i] = fmath_exp(((double)r[i].logit - top) / s->temperature);
    }
    double u = (double)(splitmix64(rng) >> 11) * 0x1p-53 * total, cum = 0.0;
    *token = r[kept - 1].id;
    for (size_t i = 0; i < kept; i++) {
        cum += p[i];
        if (u < cum) {
            *token = r[i].id;
            break;
        }
    }
    return POSENC_OK;
}

int posenc_decoder_sample(posenc_decoder *d, const posenc_sampling *s, uint64_t *rng, int32_t *token)
{
    int status;
    if (!d)
        return fail_null(1, "d");
    if (!token)
        return fail_null(4, "token");
    if (s && (status = check_sampling(s, rng, 2)))
        return status;
    if (!d->fed)
        return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_NONE, 1, "d", POSENC_RULE_RESULT, 0.0, 0.0,
                                 0.0, NULL, "has no logits to choose from: feed it first");
    return choose(d, s, rng, token);
}

int posenc_decoder_generate(posenc_decoder *d, const int32_t *prompt, size_t prompt_len, const posenc_sampling *s,
                            uint64_t *rng, const int32_t *stop, size_t stop_len, int32_t *out, size_t out_len,
                            size_t *written)
{
    int status;
    if (!d)
        return fail_null(1, "d");
    if (!written)
        return fail_null(10, "written");
    *written = 0;
    if (!out && out_len)
        return fail_null(8, "out");
    if (!stop && stop_len)
        return fail_null(6, "stop");
    if (s && (status = check_sampling(s, rng, 4)))
        return status;
    /* the whole generation fits, or nothing is fed: prompt_len + out_len - 1 tokens */
    size_t room = d->max_length - d->length;
    if (prompt_len > room || (out_len > 0 && out_len - 1 > room - prompt_len))
        return param_fail_detail(POSENC_ERR_BUFFER_TOO_SMALL, POSENC_PARAM_NONE, 9, "out_len", POSENC_RULE_RESULT,
                                 (double)out_len, (double)room, 0.0, NULL,
                                 "and prompt_len must fit the sequence: prompt_len + out_len - 1 <= max_length - length = %");
    if ((status = posenc_decoder_feed(d, prompt, NULL, prompt_len, NULL, 0)))
        return status;
    for (size_t i = 0; i < out_len; i++) {
        int32_t token;
        if ((status = choose(d, s, rng, &token)))
            return status;
        out[i] = token;
        *written = i + 1;
        int stopped = 0;
        for (size_t k = 0; k < stop_len && !stopped; k++)
            stopped = stop[k] == token;
        if (stopped || i + 1 == out_len)
            break;
        if ((status = posenc_decoder_feed(d, &token, NULL, 1, NULL, 0)))
            return status;
    }
    return POSENC_OK;
}
