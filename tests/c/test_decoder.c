/* test_decoder.c: incremental decoding with a KV cache (posenc_decoder_sizes,
 * posenc_decoder_feed). The logits after each feed must be the row of the
 * whole sequence's posenc_encoder_logits(causal = 1) at the last token fed,
 * for every positional scheme and query scale (the full pass itself is held to
 * the double-precision maths in test_encoder.c); the sizes are the documented
 * formulas; cached rows are never written again; every bad argument is refused
 * with nothing written. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "rope_calls.h"
#include "posenc_encoder.h"

#define COUNT(a) (sizeof(a) / sizeof(a)[0])

enum { V = 13, D = 12, H = 3, HD = 4, FF = 10, L = 2, T = 23, LANGS = 2, MAXLEN = 32, DMAX = 16 };

static uint32_t rng_state = 777;

static float uniform(float a)
{
    rng_state = rng_state * 1664525u + 1013904223u;
    return (float)(((double)(rng_state >> 8) / 16777216.0 * 2.0 - 1.0) * a);
}

/* max |got - want| / max |want| of one row of logits */
static double row_error(const float *got, const float *want, size_t n)
{
    double err = 0, scale = 0;
    for (size_t i = 0; i < n; i++) {
        double e = fabs((double)got[i] - want[i]);
        err = isnan(e) ? INFINITY : fmax(err, e);
        scale = fmax(scale, fabs(want[i]));
    }
    return err / scale;
}

static float params[40000], work[8192], cache[L * 2 * MAXLEN * DMAX], full[T * V], logits[V];
static const int32_t tokens[T] = { 3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2, 3, 8, 4, 6, 2, 6 };

static posenc_encoder_config base_config(void)
{
    posenc_encoder_config c = { 0 };
    c.vocab_size = V, c.d_model = D, c.heads = H, c.d_ff = FF, c.layers = L, c.lm_head = POSENC_LM_HEAD_OWN;
    return c;
}

/* Feeds tokens in chunks of the given sizes (summing to T) and returns the
 * largest error of a feed's logits against the full pass's row; -1 when a
 * call fails. Also checks that a feed leaves the cached rows as they were. */
static double decode_error(const posenc_encoder_config *c, int32_t language, const size_t *chunks, size_t n_chunks)
{
    size_t pl, wl, cl, wl_full;
    if (posenc_encoder_sizes(c, T, &pl, &wl_full) || posenc_decoder_sizes(c, MAXLEN, MAXLEN, &cl, &wl))
        return -1;
    for (size_t i = 0; i < pl; i++)
        params[i] = uniform(0.6f);
    if (posenc_encoder_logits(full, COUNT(full), c, params, pl, tokens, T, NULL, 1, language, NULL, 0, work,
                              wl_full))
        return -1;
    memset(cache, 0, sizeof cache);
    static float before[COUNT(cache)];
    double worst = 0;
    size_t length = 0;
    for (size_t k = 0; k < n_chunks; k++) {
        memcpy(before, cache, sizeof cache);
        if (posenc_decoder_feed(logits, V, c, params, pl, cache, cl, MAXLEN, length, tokens + length, chunks[k],
                                language, work, wl))
            return -1;
        /* the rows < length of every layer's K and V: untouched */
        size_t d = c->d_model;
        for (size_t plane = 0; plane < 2 * c->layers; plane++)
            if (memcmp(cache + plane * MAXLEN * d, before + plane * MAXLEN * d, length * d * sizeof(float)))
                return -2;
        length += chunks[k];
        worst = fmax(worst, row_error(logits, full + (length - 1) * V, V));
    }
    return worst;
}

static void test_decoder_schemes(void)
{
    static const size_t prompt_then_ones[] = { 7, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 5, 1 };
    static const size_t ones[T] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 };
    static const size_t all[] = { T };
    double inv_freq[HD / 2], partial[1], yarn[HD / 2], att, yarn_att;
    CHECK(rope_freqs(inv_freq, HD / 2, HD, 0, NULL, 0, &att) == POSENC_OK);
    CHECK(rope_freqs(partial, 1, 2, 500, NULL, 0, &att) == POSENC_OK);
    posenc_rope_scaling s = { 0 };
    s.type = POSENC_ROPE_YARN, s.factor = 4, s.original_max_position_embeddings = 8;
    CHECK(rope_freqs(yarn, HD / 2, HD, 0, &s, 0, &yarn_att) == POSENC_OK && yarn_att > 1);
    for (int variant = 0; variant < 16; variant++) {
        posenc_encoder_config c = base_config();
        int32_t language = -1;
        switch (variant) {
        case 0: c.positional = POSENC_POSITIONAL_NONE; break;
        case 1: c.positional = POSENC_POSITIONAL_SINUSOIDAL, c.norm = POSENC_NORM_POST; break;
        case 2: c.positional = POSENC_POSITIONAL_LEARNED, c.learned.max_length = MAXLEN, c.final_norm = 1; break;
        case 3: c.positional = POSENC_POSITIONAL_ROPE, c.rope.inv_freq = inv_freq; break;
        case 4: /* interleaved, partial rotary, float32 angles, post-norm, GELU */
            c.positional = POSENC_POSITIONAL_ROPE, c.rope.inv_freq = partial, c.rope.rotary_dim = 2;
            c.rope.layout = POSENC_ROPE_INTERLEAVED, c.rope.precision = POSENC_ROPE_PRECISION_FLOAT32;
            c.norm = POSENC_NORM_POST, c.activation = POSENC_ACTIVATION_GELU;
            break;
        case 5: /* YaRN: scaled frequencies and an attention factor */
            c.positional = POSENC_POSITIONAL_ROPE, c.rope.inv_freq = yarn, c.rope.attention_factor = yarn_att;
            break;
        case 6: c.positional = POSENC_POSITIONAL_ALIBI; break;
        case 7: c.positional = POSENC_POSITIONAL_ALIBI, c.alibi.max_bias = 3, c.norm = POSENC_NORM_POST; break;
        case 8: c.positional = POSENC_POSITIONAL_T5, c.t5.num_buckets = 8, c.t5.max_distance = 12; break;
        case 9: c.positional = POSENC_POSITIONAL_T5, c.t5.unidirectional = 1, c.final_norm = 1; break;
        case 10: c.positional = POSENC_POSITIONAL_NONE, c.lm_head = POSENC_LM_HEAD_TIED, c.languages = LANGS;
            language = 1;
            break;
        case 11: /* Llama 4's temperature tuning on a NoPE model, a small floor_scale so it acts */
            c.positional = POSENC_POSITIONAL_NONE, c.query_scale.type = POSENC_QUERY_SCALE_LLAMA4;
            c.query_scale.floor_scale = 3, c.query_scale.attn_scale = 0.5;
            break;
        case 12: /* Ministral 3's beta on RoPE */
            c.positional = POSENC_POSITIONAL_ROPE, c.rope.inv_freq = inv_freq;
            c.query_scale.type = POSENC_QUERY_SCALE_MINISTRAL3, c.query_scale.beta = 0.4, c.query_scale.original_max_position = 4;
            break;
        case 13: c.positional = POSENC_POSITIONAL_SINUSOIDAL, c.sinusoidal.layout = 1, c.sinusoidal.base = 100; break;
        case 14: c.positional = POSENC_POSITIONAL_ALIBI, c.heads = 4, c.d_model = 16; break;
        case 15: c.positional = POSENC_POSITIONAL_LEARNED, c.learned.max_length = MAXLEN, c.layers = 0; break;
        }
        double e1 = decode_error(&c, language, prompt_then_ones, COUNT(prompt_then_ones));
        double e2 = decode_error(&c, language, ones, COUNT(ones));
        double e3 = decode_error(&c, language, all, COUNT(all));
        CHECKF(e1 >= 0 && e1 <= 1e-5 && e2 >= 0 && e2 <= 1e-5 && e3 >= 0 && e3 <= 1e-5,
               "variant %d: prompt then tokens %g, one at a time %g, all at once %g", variant, e1, e2, e3);
    }
}

/* The sizes are the documented formulas. */
static void test_decoder_sizes(void)
{
    posenc_encoder_config c = base_config();
    size_t cl, wl;
    /* 3 f d + f max(d, d_ff) + min(4, f) M (+ heads M) */
    CHECK(posenc_decoder_sizes(&c, 100, 1, &cl, &wl) == POSENC_OK && cl == L * 2 * 100 * D &&
          wl == 3 * D + D + 100);
    CHECK(posenc_decoder_sizes(&c, 100, 9, &cl, &wl) == POSENC_OK && wl == 3 * 9 * D + 9 * D + 4 * 100);
    c.d_ff = 40;
    CHECK(posenc_decoder_sizes(&c, 100, 2, &cl, &wl) == POSENC_OK && wl == 3 * 2 * D + 2 * 40 + 2 * 100);
    c.positional = POSENC_POSITIONAL_T5;
    CHECK(posenc_decoder_sizes(&c, 100, 2, &cl, &wl) == POSENC_OK && wl == 3 * 2 * D + 2 * 40 + 2 * 100 + H * 100);
    c.layers = 0;
    CHECK(posenc_decoder_sizes(&c, 100, 2, &cl, &wl) == POSENC_OK && cl == 0);
    /* the bounds */
    c = base_config();
    CHECK(posenc_decoder_sizes(&c, 0, 0, &cl, &wl) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_decoder_sizes(&c, 5, 0, &cl, &wl) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_decoder_sizes(&c, 5, 6, &cl, &wl) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_decoder_sizes(&c, 5, 1, NULL, &wl) == POSENC_ERR_NULL_POINTER);
    CHECK(posenc_decoder_sizes(NULL, 5, 1, &cl, &wl) == POSENC_ERR_NULL_POINTER);
    CHECK(posenc_decoder_sizes(&c, (size_t)POSENC_POSITION_MAX + 1, 1, &cl, &wl) ==
          (SIZE_MAX > 0xffffffffu ? POSENC_OK : POSENC_ERR_SIZE_OVERFLOW));
    if (SIZE_MAX > 0xffffffffu)
        CHECK(posenc_decoder_sizes(&c, (size_t)POSENC_POSITION_MAX + 2, 1, &cl, &wl) == POSENC_ERR_INVALID_ARGUMENT);
    c.d_model = SIZE_MAX / 2 + 1, c.heads = 1; /* past its row's bound, 2^31 - 1 */
    CHECK(posenc_decoder_sizes(&c, 2, 1, &cl, &wl) == POSENC_ERR_INVALID_ARGUMENT);
    c.d_model = c.d_ff = (size_t)1 << 30, c.layers = POSENC_POSITION_MAX; /* each in range, the cache is not */
    CHECK(posenc_decoder_sizes(&c, 2, 1, &cl, &wl) == POSENC_ERR_SIZE_OVERFLOW);
    c = base_config();
    c.lm_head = POSENC_LM_HEAD_NONE; /* logits need a head */
    CHECK(posenc_decoder_sizes(&c, 5, 1, &cl, &wl) == POSENC_ERR_INVALID_ARGUMENT);
    c = base_config();
    c.positional = POSENC_POSITIONAL_LEARNED, c.learned.max_length = 10; /* no position row past 10 */
    CHECK(posenc_decoder_sizes(&c, 10, 1, &cl, &wl) == POSENC_OK);
    CHECK(posenc_decoder_sizes(&c, 11, 1, &cl, &wl) == POSENC_ERR_INVALID_ARGUMENT);
}

/* Every bad argument: its status, and nothing written (logits, cache, work). */
static void test_decoder_errors(void)
{
    posenc_encoder_config c = base_config();
    c.positional = POSENC_POSITIONAL_LEARNED, c.learned.max_length = 8;
    size_t pl, wl_full, cl, wl, wl3;
    CHECK(posenc_encoder_sizes(&c, 8, &pl, &wl_full) == POSENC_OK);
    CHECK(posenc_decoder_sizes(&c, 8, 3, &cl, &wl3) == POSENC_OK);
    CHECK(posenc_decoder_sizes(&c, 8, 5, &cl, &wl) == POSENC_OK && wl3 < wl);
    for (size_t i = 0; i < pl; i++)
        params[i] = uniform(0.6f);
    /* a sequence of 5 tokens so far */
    CHECK(posenc_decoder_feed(logits, V, &c, params, pl, cache, cl, 8, 0, tokens, 5, -1, work, wl) == POSENC_OK);
    static float cache_before[COUNT(cache)], work_before[COUNT(work)];
    float logits_before[V];
    for (size_t i = 0; i < V; i++)
        logits[i] = -7;
    memcpy(cache_before, cache, sizeof cache);
    memcpy(logits_before, logits, sizeof logits);
    memcpy(work_before, work, sizeof work);
    static const int32_t bad[2] = { 1, V };
    const int32_t negative[1] = { -1 };
    posenc_encoder_config no_head = c, bad_lang = c;
    no_head.lm_head = POSENC_LM_HEAD_NONE;
    bad_lang.languages = 1;
    struct {
        int status;
        int got;
    } cases[] = {
#define FEED(cfg, lg, cache_, clen, maxlen, length, toks, count, lang, work_, wlen) \
    posenc_decoder_feed(logits, lg, cfg, params, pl, cache_, clen, maxlen, length, toks, count, lang, work_, wlen)
        { POSENC_ERR_INVALID_ARGUMENT, FEED(&c, V, cache, cl, 8, 5, bad, 2, -1, work, wl) },
        { POSENC_ERR_INVALID_ARGUMENT, FEED(&c, V, cache, cl, 8, 5, negative, 1, -1, work, wl) },
        { POSENC_ERR_INVALID_ARGUMENT, FEED(&c, V, cache, cl, 8, 5, tokens, 0, -1, work, wl) },
        { POSENC_ERR_INVALID_ARGUMENT, FEED(&c, V, cache, cl, 8, 9, tokens, 1, -1, work, wl) },
        { POSENC_ERR_INVALID_ARGUMENT, FEED(&c, V, cache, cl, 8, 5, tokens, 1, 0, work, wl) }, /* no languages */
        { POSENC_ERR_INVALID_ARGUMENT, FEED(&bad_lang, V, cache, cl, 8, 5, tokens, 1, 1, work, wl) },
        { POSENC_ERR_INVALID_ARGUMENT, FEED(&bad_lang, V, cache, cl, 8, 5, tokens, 1, -2, work, wl) },
        { POSENC_ERR_INVALID_ARGUMENT, FEED(&no_head, V, cache, cl, 8, 5, tokens, 1, -1, work, wl) },
        { POSENC_ERR_INVALID_ARGUMENT, FEED(&c, V, cache, cl, 9, 5, tokens, 1, -1, work, wl) }, /* past max_length 8 */
        { POSENC_ERR_INVALID_ARGUMENT, FEED(&c, V, cache, cl, 8, 5, tokens, 4, -1, work, wl) }, /* position 8 */
        { POSENC_ERR_BUFFER_TOO_SMALL, FEED(&c, V, cache, cl, 6, 5, tokens, 2, -1, work, wl) }, /* 7 > 6 rows */
        { POSENC_ERR_BUFFER_TOO_SMALL, FEED(&c, V - 1, cache, cl, 8, 5, tokens, 1, -1, work, wl) },
        { POSENC_ERR_BUFFER_TOO_SMALL, FEED(&c, V, cache, cl - 1, 8, 5, tokens, 1, -1, work, wl) },
        { POSENC_ERR_BUFFER_TOO_SMALL, FEED(&c, V, cache, cl, 8, 5, tokens, 3, -1, work, wl3 - 1) },
        { POSENC_ERR_NULL_POINTER, FEED(&c, V, NULL, cl, 8, 5, tokens, 1, -1, work, wl) },
        { POSENC_ERR_NULL_POINTER, FEED(&c, V, cache, cl, 8, 5, NULL, 1, -1, work, wl) },
        { POSENC_ERR_NULL_POINTER, FEED(&c, V, cache, cl, 8, 5, tokens, 1, -1, NULL, wl) },
        { POSENC_ERR_NULL_POINTER, FEED(NULL, V, cache, cl, 8, 5, tokens, 1, -1, work, wl) },
        { POSENC_ERR_NULL_POINTER,
          posenc_decoder_feed(NULL, V, &c, params, pl, cache, cl, 8, 5, tokens, 1, -1, work, wl) },
        /* overlaps: the cache over the work, the params, the tokens */
        { POSENC_ERR_INVALID_ARGUMENT, FEED(&c, V, cache, cl, 8, 5, tokens, 1, -1, cache + cl - 1, wl) },
        { POSENC_ERR_INVALID_ARGUMENT,
          posenc_decoder_feed(logits, V, &c, params, pl, params + pl - 1, cl, 8, 5, tokens, 1, -1, work, wl) },
        { POSENC_ERR_INVALID_ARGUMENT,
          posenc_decoder_feed(params + 3, V, &c, params, pl, cache, cl, 8, 5, tokens, 1, -1, work, wl) },
        { POSENC_ERR_INVALID_ARGUMENT, FEED(&c, V, (float *)(void *)bad, cl, 8, 5, bad, 1, -1, work, wl) },
#undef FEED
    };
    for (size_t k = 0; k < COUNT(cases); k++)
        CHECKF(cases[k].got == cases[k].status, "case %zu: status %d, want %d", k, cases[k].got, cases[k].status);
    CHECK(memcmp(cache, cache_before, sizeof cache) == 0);
    CHECK(memcmp(logits, logits_before, sizeof logits) == 0);
    CHECK(memcmp(work, work_before, sizeof work) == 0);
    /* and the sequence goes on: the next token as if nothing had happened */
    float full8[8 * V];
    CHECK(posenc_encoder_logits(full8, COUNT(full8), &c, params, pl, tokens, 8, NULL, 1, -1, NULL, 0, work,
                                wl_full) == POSENC_OK);
    CHECK(posenc_decoder_feed(logits, V, &c, params, pl, cache, cl, 8, 5, tokens + 5, 3, -1, work, wl) == POSENC_OK);
    CHECKF(row_error(logits, full8 + 7 * V, V) <= 1e-5, "after the errors: %g", row_error(logits, full8 + 7 * V, V));
    /* query scales out of range */
    posenc_encoder_config q = base_config();
    size_t a, b;
    for (int k = 0; k < 6; k++) {
        q = base_config();
        switch (k) {
        case 0: q.query_scale.type = 3; break;
        case 1: q.query_scale.type = POSENC_QUERY_SCALE_LLAMA4, q.query_scale.floor_scale = -1; break;
        case 2: q.query_scale.type = POSENC_QUERY_SCALE_LLAMA4, q.query_scale.attn_scale = NAN; break;
        case 3: q.query_scale.type = POSENC_QUERY_SCALE_LLAMA4, q.query_scale.attn_scale = 1e38; break; /* s(p) overflows */
        case 4: q.query_scale.type = POSENC_QUERY_SCALE_MINISTRAL3, q.query_scale.beta = 1; break; /* no original */
        case 5: q.query_scale.type = POSENC_QUERY_SCALE_MINISTRAL3, q.query_scale.beta = INFINITY, q.query_scale.original_max_position = 4;
            break;
        }
        CHECKF(posenc_decoder_sizes(&q, 8, 1, &a, &b) == POSENC_ERR_INVALID_ARGUMENT &&
                   posenc_encoder_sizes(&q, 8, &a, &b) == POSENC_ERR_INVALID_ARGUMENT,
               "query scale case %d", k);
    }
    q.query_scale.type = POSENC_QUERY_SCALE_LLAMA4, q.query_scale.floor_scale = 0, q.query_scale.attn_scale = 0; /* 8192, 0.1 */
    q.query_scale.beta = 0, q.query_scale.original_max_position = 0;
    CHECK(posenc_encoder_sizes(&q, 8, &a, &b) == POSENC_OK);
}

/*
 * Frequencies that change with the length (dynamic NTK): each feed rotates
 * its new queries and keys with the frequencies passed with it, and the keys
 * cached before keep theirs. Checked by the cache's bytes: rows < length are
 * never rewritten, and a row fed with other frequencies differs.
 */
static void test_decoder_new_frequencies(void)
{
    posenc_encoder_config c = base_config();
    double f[HD / 2], g[HD / 2], att;
    posenc_rope_scaling s = { 0 };
    s.type = POSENC_ROPE_DYNAMIC, s.factor = 4, s.max_position_embeddings = 6;
    CHECK(rope_freqs(f, HD / 2, HD, 0, &s, 6, &att) == POSENC_OK);
    CHECK(rope_freqs(g, HD / 2, HD, 0, &s, 9, &att) == POSENC_OK && g[1] < f[1]);
    c.positional = POSENC_POSITIONAL_ROPE, c.rope.inv_freq = f;
    size_t pl, wl_full, cl, wl;
    CHECK(posenc_encoder_sizes(&c, 9, &pl, &wl_full) == POSENC_OK && posenc_decoder_sizes(&c, 9, 9, &cl, &wl) == 0);
    for (size_t i = 0; i < pl; i++)
        params[i] = uniform(0.6f);
    static float a[COUNT(cache)], b[COUNT(cache)];
    /* the same 6 tokens, then the 3 next at g (transformers' growth), or at f */
    memset(a, 0, sizeof a);
    CHECK(posenc_decoder_feed(logits, V, &c, params, pl, a, cl, 9, 0, tokens, 6, -1, work, wl) == POSENC_OK);
    memcpy(b, a, sizeof a);
    float at_f[V], at_g[V];
    CHECK(posenc_decoder_feed(at_f, V, &c, params, pl, b, cl, 9, 6, tokens + 6, 3, -1, work, wl) == POSENC_OK);
    c.rope.inv_freq = g;
    CHECK(posenc_decoder_feed(at_g, V, &c, params, pl, a, cl, 9, 6, tokens + 6, 3, -1, work, wl) == POSENC_OK);
    int kept = 1, moved = 1;
    for (size_t l = 0; l < L; l++) {
        const float *ka = a + l * 2 * 9 * D, *kb = b + l * 2 * 9 * D;
        kept &= memcmp(ka, kb, 6 * D * sizeof(float)) == 0;             /* the prompt's keys: as stored */
        kept &= memcmp(ka + 9 * D, kb + 9 * D, 6 * D * sizeof(float)) == 0; /* its values */
        moved &= memcmp(ka + 6 * D, kb + 6 * D, 3 * D * sizeof(float)) != 0; /* the new keys: other angles */
    }
    CHECK(kept && moved && memcmp(at_f, at_g, sizeof at_f) != 0);
    /* at f throughout, it is the full pass at f */
    float full9[9 * V];
    c.rope.inv_freq = f;
    CHECK(posenc_encoder_logits(full9, COUNT(full9), &c, params, pl, tokens, 9, NULL, 1, -1, NULL, 0, work,
                                wl_full) == POSENC_OK);
    CHECK(row_error(at_f, full9 + 8 * V, V) <= 1e-5);
}

void test_decoder(void)
{
    test_decoder_schemes();
    test_decoder_sizes();
    test_decoder_errors();
    test_decoder_new_frequencies();
}
