/* test_decoder.c: the decoder state (posenc_decoder_create, _feed, _sample,
 * _generate, _reset, _free). The logits after each feed must be the row of
 * the whole sequence's posenc_encoder_logits(causal = 1) at the last token
 * fed, for every positional scheme and query scale (the full pass itself is
 * held to the double-precision maths in test_encoder.c), across the cache's
 * growth; every bad argument is refused with the sequence unchanged;
 * sampling follows its definition and its seed. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "posenc_encoder.h"
#include "rope_calls.h"

#define COUNT(a) (sizeof(a) / sizeof(a)[0])

enum { V = 13, D = 12, H = 3, HD = 4, FF = 10, L = 2, T = 23, LANGS = 2, BIG = 300 };

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

static float params[60000], work[400000], full[BIG * V], logits[V];
static int32_t tokens[BIG];

static posenc_encoder_config base_config(void)
{
    posenc_encoder_config c = { 0 };
    c.vocab_size = V, c.d_model = D, c.heads = H, c.d_ff = FF, c.layers = L, c.lm_head = POSENC_LM_HEAD_OWN;
    return c;
}

/* The full pass's logits of the first n tokens into `full`; the params. */
static int full_pass(const posenc_encoder_config *c, int32_t language, size_t n, size_t *pl)
{
    size_t wl;
    if (posenc_encoder_sizes(c, n, pl, &wl) || wl > COUNT(work))
        return -1;
    for (size_t i = 0; i < *pl; i++)
        params[i] = uniform(0.6f);
    return posenc_encoder_logits(full, n * V, c, params, *pl, tokens, n, NULL, NULL, 1, language, NULL, 0, work, wl);
}

/* Feeds the first n tokens in chunks of the given sizes (cycling) and returns
 * the largest error of a feed's logits against the full pass's row; -1 when a
 * call fails. */
static double decode_error(const posenc_encoder_config *c, int32_t language, size_t n, const size_t *chunks,
                           size_t n_chunks)
{
    size_t pl;
    posenc_decoder *d;
    if (full_pass(c, language, n, &pl) || posenc_decoder_create(&d, c, params, pl, 0, language))
        return -1;
    double worst = 0;
    for (size_t length = 0, k = 0; length < n; k++) {
        size_t count = chunks[k % n_chunks] < n - length ? chunks[k % n_chunks] : n - length;
        if (posenc_decoder_feed(d, tokens + length, NULL, count, logits, V) ||
            posenc_decoder_length(d) != length + count) {
            posenc_decoder_free(d);
            return -1;
        }
        length += count;
        worst = fmax(worst, row_error(logits, full + (length - 1) * V, V));
        worst = fmax(worst, row_error(posenc_decoder_logits(d), logits, V));
    }
    posenc_decoder_free(d);
    return worst;
}

static void test_decoder_schemes(void)
{
    static const size_t prompt_then_ones[] = { 7, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 5, 1 };
    static const size_t ones[] = { 1 };
    static const size_t all[] = { BIG };
    double inv_freq[HD / 2], att;
    CHECK(rope_freqs(inv_freq, HD / 2, HD, 0, NULL, 0, &att) == POSENC_OK);
    for (int variant = 0; variant < 17; variant++) {
        posenc_encoder_config c = base_config();
        int32_t language = -1;
        switch (variant) {
        case 0: c.positional = POSENC_POSITIONAL_NONE; break;
        case 1: c.positional = POSENC_POSITIONAL_SINUSOIDAL, c.norm = POSENC_NORM_POST; break;
        case 2: c.positional = POSENC_POSITIONAL_LEARNED, c.learned.max_length = BIG, c.final_norm = 1; break;
        case 3: c.positional = POSENC_POSITIONAL_ROPE; break;
        case 4: /* interleaved, partial rotary, float32 angles, post-norm, GELU */
            c.positional = POSENC_POSITIONAL_ROPE, c.rope.rotary_dim = 2, c.rope.base = 500;
            c.rope.layout = POSENC_ROPE_INTERLEAVED, c.rope.precision = POSENC_ROPE_PRECISION_FLOAT32;
            c.norm = POSENC_NORM_POST, c.activation = POSENC_ACTIVATION_GELU;
            break;
        case 5: /* YaRN: scaled frequencies and an attention factor */
            c.positional = POSENC_POSITIONAL_ROPE, c.rope.scaling.type = POSENC_ROPE_YARN;
            c.rope.scaling.factor = 4, c.rope.scaling.original_max_position_embeddings = 8;
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
            c.positional = POSENC_POSITIONAL_ROPE;
            c.query_scale.type = POSENC_QUERY_SCALE_MINISTRAL3, c.query_scale.beta = 0.4;
            c.query_scale.original_max_position = 4;
            break;
        case 13: c.positional = POSENC_POSITIONAL_SINUSOIDAL, c.sinusoidal.layout = 1, c.sinusoidal.base = 100; break;
        case 14: c.positional = POSENC_POSITIONAL_ALIBI, c.heads = 4, c.d_model = 16; break;
        case 15: c.positional = POSENC_POSITIONAL_LEARNED, c.learned.max_length = BIG, c.layers = 0; break;
        case 16: c.positional = POSENC_POSITIONAL_ROPE, c.rope.inv_freq = inv_freq; break; /* given, then copied */
        }
        /* 300 tokens: the cache grows from 256 rows, the bias by distance with it */
        double e1 = decode_error(&c, language, BIG, prompt_then_ones, COUNT(prompt_then_ones));
        double e2 = decode_error(&c, language, T, ones, COUNT(ones));
        double e3 = decode_error(&c, language, BIG, all, COUNT(all));
        CHECKF(e1 >= 0 && e1 <= 1e-5 && e2 >= 0 && e2 <= 1e-5 && e3 >= 0 && e3 <= 1e-5,
               "variant %d: prompt then tokens %g, one at a time %g, all at once %g", variant, e1, e2, e3);
    }
}

/* Every bad argument: its status and record, and the sequence unchanged. */
static void test_decoder_errors(void)
{
    posenc_encoder_config c = base_config();
    c.positional = POSENC_POSITIONAL_LEARNED, c.learned.max_length = 8;
    size_t pl;
    CHECK(full_pass(&c, -1, 8, &pl) == POSENC_OK);
    posenc_decoder *d = NULL, *none = (posenc_decoder *)1;
    const posenc_error *e = posenc_last_error();
    /* create */
    posenc_encoder_config no_head = c, bad = c;
    no_head.lm_head = POSENC_LM_HEAD_NONE;
    bad.heads = 5;
    CHECK(posenc_decoder_create(NULL, &c, params, pl, 0, -1) == POSENC_ERR_NULL_POINTER);
    CHECK(posenc_decoder_create(&none, &c, NULL, pl, 0, -1) == POSENC_ERR_NULL_POINTER && none == NULL);
    CHECK(posenc_decoder_create(&d, &no_head, params, pl, 0, -1) == POSENC_ERR_INVALID_ARGUMENT && !d);
    CHECK(e->param == POSENC_PARAM_LM_HEAD && e->index == 2);
    CHECK(posenc_decoder_create(&d, &bad, params, pl, 0, -1) == POSENC_ERR_INVALID_ARGUMENT && !d);
    CHECK(e->param == POSENC_PARAM_ENCODER_D_MODEL && e->rule == POSENC_RULE_MULTIPLE && e->lo == 5);
    CHECK(posenc_decoder_create(&d, &c, params, pl, 9, -1) == POSENC_ERR_INVALID_ARGUMENT && !d); /* past 8 rows */
    CHECK(e->param == POSENC_PARAM_DECODER_MAX_LENGTH && e->hi == 8 && e->value == 9);
    CHECK(posenc_decoder_create(&d, &c, params, pl, 0, 0) == POSENC_ERR_INVALID_ARGUMENT && !d); /* no languages */
    CHECK(e->param == POSENC_PARAM_LANGUAGE && e->rule == POSENC_RULE_RESULT);
    CHECK(posenc_decoder_create(&d, &c, params, pl - 1, 0, -1) == POSENC_ERR_BUFFER_TOO_SMALL && !d);
    CHECK(e->rule == POSENC_RULE_LENGTH && e->lo == pl);
    CHECK(posenc_decoder_create(&d, &c, params, pl, 0, -1) == POSENC_OK && d);
    CHECK(posenc_decoder_memory(d) > V * sizeof(float));
    /* sample before any feed */
    int32_t token = -1;
    CHECK(posenc_decoder_sample(d, NULL, NULL, &token) == POSENC_ERR_INVALID_ARGUMENT && token == -1);
    CHECK(posenc_decoder_logits(d) == NULL);
    /* a sequence of 5 tokens so far */
    CHECK(posenc_decoder_feed(d, tokens, NULL, 5, logits, V) == POSENC_OK);
    float before[V];
    memcpy(before, logits, sizeof before);
    static const int32_t out_of_vocab[2] = { 1, V };
    const int32_t negative[1] = { -1 };
    struct {
        int status, got;
    } cases[] = {
        { POSENC_ERR_INVALID_ARGUMENT, posenc_decoder_feed(d, out_of_vocab, NULL, 2, logits, V) },
        { POSENC_ERR_INVALID_ARGUMENT, posenc_decoder_feed(d, negative, NULL, 1, logits, V) },
        { POSENC_ERR_INVALID_ARGUMENT, posenc_decoder_feed(d, tokens, NULL, 0, logits, V) },
        { POSENC_ERR_BUFFER_TOO_SMALL, posenc_decoder_feed(d, tokens, NULL, 4, logits, V) }, /* 9 > 8 */
        { POSENC_ERR_BUFFER_TOO_SMALL, posenc_decoder_feed(d, tokens, NULL, 1, logits, V - 1) },
        { POSENC_ERR_NULL_POINTER, posenc_decoder_feed(d, NULL, NULL, 1, logits, V) },
        { POSENC_ERR_NULL_POINTER, posenc_decoder_feed(NULL, tokens, NULL, 1, logits, V) },
        { POSENC_ERR_NULL_POINTER, posenc_decoder_feed(d, tokens, NULL, 1, NULL, V) },
    };
    for (size_t k = 0; k < COUNT(cases); k++)
        CHECKF(cases[k].got == cases[k].status, "case %zu: status %d, want %d", k, cases[k].got, cases[k].status);
    CHECK(posenc_decoder_feed(d, out_of_vocab, NULL, 2, logits, V) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(e->param == POSENC_PARAM_TOKENS && e->element == 1 && e->value == V && e->hi == V - 1);
    CHECK(posenc_decoder_length(d) == 5 && memcmp(posenc_decoder_logits(d), before, sizeof before) == 0);
    /* and the sequence goes on: the next tokens as if nothing had happened */
    CHECK(posenc_decoder_feed(d, tokens + 5, NULL, 3, NULL, 0) == POSENC_OK);
    CHECKF(row_error(posenc_decoder_logits(d), full + 7 * V, V) <= 1e-5, "after the errors");
    /* reset: a new sequence, the same logits again */
    CHECK(posenc_decoder_reset(d) == POSENC_OK && posenc_decoder_length(d) == 0);
    CHECK(posenc_decoder_feed(d, tokens, NULL, 8, logits, V) == POSENC_OK && row_error(logits, full + 7 * V, V) <= 1e-5);
    posenc_decoder_free(d);
    posenc_decoder_free(NULL);
}

/*
 * Frequencies that change with the length (dynamic NTK): each feed rotates
 * its new queries and keys at the frequencies of its own end, and the keys
 * cached before keep theirs: three tokens fed after six differ from the
 * whole nine in one feed (which rotates every key at the frequencies of 9),
 * and equal that full pass only while the length stays within M (then the
 * base does not move).
 */
static void test_decoder_new_frequencies(void)
{
    posenc_encoder_config c = base_config();
    c.positional = POSENC_POSITIONAL_ROPE;
    c.rope.scaling.type = POSENC_ROPE_DYNAMIC, c.rope.scaling.factor = 4, c.rope.scaling.max_position_embeddings = 6;
    size_t pl;
    CHECK(full_pass(&c, -1, 9, &pl) == POSENC_OK);
    posenc_decoder *d;
    CHECK(posenc_decoder_create(&d, &c, params, pl, 0, -1) == POSENC_OK);
    float at6[V], stepwise[V];
    CHECK(posenc_decoder_feed(d, tokens, NULL, 6, at6, V) == POSENC_OK);
    float full6[6 * V];
    size_t wl, unused;
    CHECK(posenc_encoder_sizes(&c, 6, &unused, &wl) == POSENC_OK);
    CHECK(posenc_encoder_logits(full6, 6 * V, &c, params, pl, tokens, 6, NULL, NULL, 1, -1, NULL, 0, work, wl) == 0);
    CHECK(row_error(at6, full6 + 5 * V, V) <= 1e-5); /* length 6 = M: the plain base, both ways */
    CHECK(posenc_decoder_feed(d, tokens + 6, NULL, 3, stepwise, V) == POSENC_OK);
    CHECK(row_error(stepwise, full + 8 * V, V) > 1e-4); /* the cached keys kept the base of 6 */
    CHECK(posenc_decoder_reset(d) == POSENC_OK && posenc_decoder_feed(d, tokens, NULL, 9, logits, V) == POSENC_OK);
    CHECK(row_error(logits, full + 8 * V, V) <= 1e-5); /* one feed of nine: the full pass */
    posenc_decoder_free(d);
}

/* Greedy is the argmax (a NaN the largest); sampling is its definition,
 * reproducible from the seed; generate stops where it is told. */
static void test_decoder_sampling(void)
{
    posenc_encoder_config c = base_config();
    c.positional = POSENC_POSITIONAL_ROPE;
    size_t pl;
    CHECK(full_pass(&c, -1, 1, &pl) == POSENC_OK);
    posenc_decoder *d;
    CHECK(posenc_decoder_create(&d, &c, params, pl, 0, -1) == POSENC_OK);
    CHECK(posenc_decoder_feed(d, tokens, NULL, 1, logits, V) == POSENC_OK);
    size_t best = 0;
    for (size_t v = 1; v < V; v++)
        best = logits[v] > logits[best] ? v : best;
    int32_t token;
    CHECK(posenc_decoder_sample(d, NULL, NULL, &token) == POSENC_OK && token == (int32_t)best);
    posenc_sampling greedy = { 0, 0, 0 };
    CHECK(posenc_decoder_sample(d, &greedy, NULL, &token) == POSENC_OK && token == (int32_t)best);
    /* top_k 1 is greedy whatever the draw */
    posenc_sampling one = { 1.5, 1, 0 };
    uint64_t seed = 42;
    CHECK(posenc_decoder_sample(d, &one, &seed, &token) == POSENC_OK && token == (int32_t)best && seed != 42);
    /* the frequency of each token over many draws: softmax(logits / T) within 4 sigma */
    posenc_sampling warm = { 0.7, 0, 0 };
    enum { DRAWS = 20000 };
    int seen[V] = { 0 };
    seed = 7;
    for (int k = 0; k < DRAWS; k++) {
        CHECK(posenc_decoder_sample(d, &warm, &seed, &token) == POSENC_OK);
        seen[token]++;
    }
    double total = 0, p[V];
    for (size_t v = 0; v < V; v++)
        total += p[v] = exp(((double)logits[v] - logits[best]) / 0.7);
    int fits = 1;
    for (size_t v = 0; v < V; v++) {
        double want = p[v] / total, sigma = sqrt(want * (1 - want) / DRAWS);
        fits &= fabs((double)seen[v] / DRAWS - want) <= 4 * sigma + 1e-9;
    }
    CHECK(fits);
    /* top_p: only the most probable tokens whose mass reaches top_p ever appear */
    posenc_sampling nucleus = { 1.0, 0, 0.5 };
    int32_t order[V];
    for (size_t v = 0; v < V; v++)
        order[v] = (int32_t)v;
    for (size_t i = 0; i < V; i++) /* by logit, largest first, lower id first among equal ones */
        for (size_t j = i + 1; j < V; j++)
            if (logits[order[j]] > logits[order[i]]) {
                int32_t t = order[i];
                order[i] = order[j], order[j] = t;
            }
    double mass = 0, all = 0;
    for (size_t v = 0; v < V; v++)
        all += exp((double)logits[v] - logits[best]);
    size_t keep = 0;
    while (mass < 0.5 * all)
        mass += exp((double)logits[order[keep++]] - logits[best]);
    int inside = 1;
    seed = 11;
    for (int k = 0; k < 2000; k++) {
        CHECK(posenc_decoder_sample(d, &nucleus, &seed, &token) == POSENC_OK);
        int found = 0;
        for (size_t i = 0; i < keep; i++)
            found |= order[i] == token;
        inside &= found;
    }
    CHECK(inside);
    /* the same seed, the same tokens */
    int32_t a[20], b[20];
    size_t wa, wb;
    uint64_t s1 = 99, s2 = 99;
    CHECK(posenc_decoder_reset(d) == 0 && posenc_decoder_generate(d, tokens, 3, &warm, &s1, NULL, 0, a, 20, &wa) == 0);
    CHECK(posenc_decoder_reset(d) == 0 && posenc_decoder_generate(d, tokens, 3, &warm, &s2, NULL, 0, b, 20, &wb) == 0);
    CHECK(wa == 20 && wb == 20 && memcmp(a, b, sizeof a) == 0 && s1 == s2);
    CHECK(posenc_decoder_length(d) == 3 + 19);
    /* stop tokens: written, not fed, and the end */
    const int32_t stop[1] = { a[4] };
    size_t first = 0;
    while (a[first] != stop[0])
        first++;
    s1 = 99;
    CHECK(posenc_decoder_reset(d) == 0 && posenc_decoder_generate(d, tokens, 3, &warm, &s1, stop, 1, b, 20, &wb) == 0);
    CHECK(wb == first + 1 && memcmp(a, b, wb * sizeof *b) == 0 && posenc_decoder_length(d) == 3 + first);
    /* greedy generation equals the argmax of the full pass, token by token */
    CHECK(posenc_decoder_reset(d) == 0 && posenc_decoder_generate(d, tokens, 4, NULL, NULL, NULL, 0, a, 12, &wa) == 0);
    memcpy(tokens + 100, tokens, 4 * sizeof *tokens);
    for (size_t i = 0; i < 12; i++) {
        size_t n = 4 + i, wl, unused;
        static float rows[16 * V];
        memcpy(tokens + 100 + 4, a, i * sizeof *a);
        CHECK(posenc_encoder_sizes(&c, n, &unused, &wl) == POSENC_OK);
        CHECK(posenc_encoder_logits(rows, n * V, &c, params, pl, tokens + 100, n, NULL, NULL, 1, -1, NULL, 0, work, wl) == 0);
        size_t top = 0;
        for (size_t v = 1; v < V; v++)
            top = rows[(n - 1) * V + v] > rows[(n - 1) * V + top] ? v : top;
        CHECKF(a[i] == (int32_t)top, "greedy token %zu: %d, the full pass's %zu", i, a[i], top);
    }
    /* settings out of range, and a generation that cannot fit */
    posenc_sampling hot = { -1, 0, 0 }, wide = { 1, 0, 1.5 };
    const posenc_error *e = posenc_last_error();
    CHECK(posenc_decoder_sample(d, &hot, &seed, &token) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(e->param == POSENC_PARAM_TEMPERATURE && e->index == 2);
    CHECK(posenc_decoder_sample(d, &wide, &seed, &token) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(e->param == POSENC_PARAM_TOP_P && e->hi == 1);
    CHECK(posenc_decoder_sample(d, &warm, NULL, &token) == POSENC_ERR_NULL_POINTER);
    posenc_decoder_free(d);
    CHECK(posenc_decoder_create(&d, &c, params, pl, 10, -1) == POSENC_OK);
    CHECK(posenc_decoder_generate(d, tokens, 4, NULL, NULL, NULL, 0, a, 8, &wa) == POSENC_ERR_BUFFER_TOO_SMALL);
    CHECK(wa == 0 && posenc_decoder_length(d) == 0);
    CHECK(posenc_decoder_generate(d, tokens, 4, NULL, NULL, NULL, 0, a, 7, &wa) == POSENC_OK && wa == 7);
    CHECK(posenc_decoder_length(d) == 10);
    posenc_decoder_free(d);
}

/* LongRoPE: the sequence is fed whole again when it first passes O, so that
 * every key takes the long factors: then the logits are the full pass's. */
static void test_decoder_longrope(void)
{
    static const double shortf[HD / 2] = { 1, 1.5 }, longf[HD / 2] = { 2, 4 };
    posenc_encoder_config c = base_config();
    c.positional = POSENC_POSITIONAL_ROPE;
    c.rope.scaling.type = POSENC_ROPE_LONGROPE, c.rope.scaling.original_max_position_embeddings = 5;
    c.rope.scaling.max_position_embeddings = 20, c.rope.scaling.short_factor = shortf;
    c.rope.scaling.long_factor = longf, c.rope.scaling.factors_len = HD / 2;
    size_t pl;
    CHECK(full_pass(&c, -1, 9, &pl) == POSENC_OK);
    posenc_decoder *d;
    CHECK(posenc_decoder_create(&d, &c, params, pl, 0, -1) == POSENC_OK);
    size_t length = 0;
    for (size_t count = 1; length < 9; length += count) /* 1, 1, 1, ... past 5 */
        CHECK(posenc_decoder_feed(d, tokens + length, NULL, count, logits, V) == POSENC_OK);
    CHECKF(row_error(logits, full + 8 * V, V) <= 1e-5, "%g", row_error(logits, full + 8 * V, V));
    posenc_decoder_free(d);
}

/*
 * Explicit positions (posenc_encoder_logits' and posenc_decoder_feed's
 * positions): the logits follow from the positions, whatever the path.
 *   - 0 .. n - 1 given are NULL's logits;
 *   - the relative schemes (RoPE, ALiBi, T5, none) see differences only:
 *     positions k .. k + n - 1 give NULL's logits too;
 *   - the decoder fed the same positions, in chunks, gives the full pass's
 *     rows, and a feed without positions continues one past the last;
 *   - a negative position, or a learned one past its table, is refused.
 */
static float full_pos[BIG * V];

static int logits_at(const posenc_encoder_config *c, const int32_t *pos, size_t n, size_t pl, float *out)
{
    size_t wl, unused;
    if (posenc_encoder_sizes(c, n, &unused, &wl) || wl > COUNT(work))
        return -1;
    return posenc_encoder_logits(out, n * V, c, params, pl, tokens, n, pos, NULL, 1, -1, NULL, 0, work, wl);
}

static double worst_rows(const float *a, const float *b, size_t n)
{
    double worst = 0;
    for (size_t r = 0; r < n; r++)
        worst = fmax(worst, row_error(a + r * V, b + r * V, V));
    return worst;
}

static void test_decoder_positions(void)
{
    enum { N = 40 };
    static int32_t same[N], shifted[N], scattered[N + 8];
    for (size_t i = 0; i < N + 8; i++) {
        if (i < N)
            same[i] = (int32_t)i, shifted[i] = (int32_t)i + 37;
        scattered[i] = (int32_t)((i * 13) % 61 + (i % 3)); /* repeats, gaps, out of order */
    }
    for (int variant = 0; variant < 9; variant++) {
        posenc_encoder_config c = base_config();
        int relative = 1;
        switch (variant) {
        case 0: c.positional = POSENC_POSITIONAL_NONE; break;
        case 1: c.positional = POSENC_POSITIONAL_SINUSOIDAL, relative = 0; break;
        case 2: c.positional = POSENC_POSITIONAL_LEARNED, c.learned.max_length = 100, relative = 0; break;
        case 3: c.positional = POSENC_POSITIONAL_ROPE; break;
        case 4: c.positional = POSENC_POSITIONAL_ALIBI; break;
        case 5: c.positional = POSENC_POSITIONAL_ALIBI, c.heads = 4, c.d_model = 16, c.alibi.max_bias = 4; break;
        case 6: c.positional = POSENC_POSITIONAL_T5, c.t5.num_buckets = 8, c.t5.max_distance = 20; break;
        case 7: c.positional = POSENC_POSITIONAL_T5, c.t5.unidirectional = 1; break;
        case 8: /* the query scale reads the positions too: not shift-invariant */
            c.positional = POSENC_POSITIONAL_ROPE, c.query_scale.type = POSENC_QUERY_SCALE_MINISTRAL3;
            c.query_scale.beta = 0.4, c.query_scale.original_max_position = 4, relative = 0;
            break;
        }
        size_t pl;
        CHECKF(full_pass(&c, -1, N, &pl) == POSENC_OK, "variant %d", variant);
        CHECK(logits_at(&c, same, N, pl, full_pos) == POSENC_OK);
        double e_same = worst_rows(full_pos, full, N);
        CHECK(logits_at(&c, shifted, N, pl, full_pos) == POSENC_OK);
        double e_shift = worst_rows(full_pos, full, N);
        CHECKF(e_same <= 1e-6 && (!relative || e_shift <= 1e-5) && (relative || e_shift > 1e-3),
               "variant %d: positions 0..n-1 %g, shifted by 37 %g", variant, e_same, e_shift);
        /* the decoder: scattered positions in chunks, then a feed without positions */
        CHECK(logits_at(&c, scattered, N + 8, pl, full_pos) == POSENC_OK);
        posenc_decoder *d;
        CHECK(posenc_decoder_create(&d, &c, params, pl, 0, -1) == POSENC_OK);
        static const size_t chunks[] = { 6, 1, 1, 9, 1, 1, 1, 5, 1, 1, 1, 1, 1, 10 };
        double worst = 0;
        size_t length = 0;
        for (size_t k = 0; k < COUNT(chunks); length += chunks[k++]) {
            CHECK(posenc_decoder_feed(d, tokens + length, scattered + length, chunks[k], logits, V) == POSENC_OK);
            worst = fmax(worst, row_error(logits, full_pos + (length + chunks[k] - 1) * V, V));
        }
        CHECKF(length == N && worst <= 1e-5, "variant %d: the decoder by positions %g", variant, worst);
        CHECK(posenc_decoder_reset(d) == POSENC_OK);
        int32_t from[N];
        for (size_t i = 0; i < N; i++)
            from[i] = (int32_t)i + 37;
        CHECK(posenc_decoder_feed(d, tokens, from, 5, NULL, 0) == POSENC_OK);
        for (size_t i = 5; i < N; i++)
            CHECK(posenc_decoder_feed(d, tokens + i, NULL, 1, logits, V) == POSENC_OK);
        CHECK(logits_at(&c, from, N, pl, full_pos) == POSENC_OK);
        CHECKF(row_error(logits, full_pos + (N - 1) * V, V) <= 1e-5, "variant %d: NULL after positions", variant);
        /* refusals: the record names the element; the sequence unchanged */
        int32_t bad[3] = { 4, -1, 5 };
        CHECK(posenc_encoder_logits(full_pos, 3 * V, &c, params, pl, tokens, 3, bad, NULL, 1, -1, NULL, 0, work,
                                    COUNT(work)) == POSENC_ERR_INVALID_ARGUMENT);
        CHECK(posenc_last_error()->param == POSENC_PARAM_TOKEN_POSITIONS && posenc_last_error()->element == 1 &&
              posenc_last_error()->index == 8);
        CHECK(posenc_decoder_feed(d, tokens, bad, 3, logits, V) == POSENC_ERR_INVALID_ARGUMENT);
        CHECK(posenc_last_error()->index == 3 && posenc_last_error()->element == 1 && posenc_decoder_length(d) == N);
        if (c.positional == POSENC_POSITIONAL_LEARNED) {
            int32_t past[2] = { 3, 100 };
            CHECK(posenc_decoder_feed(d, tokens, past, 2, logits, V) == POSENC_ERR_INVALID_ARGUMENT);
            CHECK(posenc_last_error()->hi == 99 && posenc_decoder_length(d) == N);
        }
        posenc_decoder_free(d);
    }
}

void test_decoder(void)
{
    for (size_t i = 0; i < BIG; i++)
        tokens[i] = (int32_t)((i * 7 + 3 + i / 5) % V);
    test_decoder_schemes();
    test_decoder_errors();
    test_decoder_new_frequencies();
    test_decoder_sampling();
    test_decoder_longrope();
    test_decoder_positions();
}
