/* RoPE as one call: a posenc_rope carries base and scaling, and the caches
 * and rotations compute their frequencies inside (posenc.h). Each must equal,
 * bit for bit, the same call given the frequencies posenc_rope_frequencies
 * writes; DYNAMIC and LONGROPE take the call's largest position + 1 (HF's
 * forward); the 2-D forms arrange the frequencies as the header pictures;
 * and a refusal names what failed (posenc_last_error). */
#include <math.h>
#include <string.h>

#include "check.h"
#include "posenc.h"
#include "rope_calls.h"

enum { LEN = 9, HEADS = 2, DIM = 16, HALF = DIM / 2 };

static posenc_rope scaled(int type)
{
    static const double shortf[HALF] = { 1, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7 };
    static const double longf[HALF] = { 2, 3, 4, 5, 6, 7, 8, 9 };
    posenc_rope r = rope_given(DIM, POSENC_ROPE_HALF, NULL, 0, POSENC_ROPE_PRECISION_FLOAT64);
    r.base = 500000;
    r.scaling.type = type;
    r.scaling.factor = 4;
    r.scaling.max_position_embeddings = 6; /* DYNAMIC rescales past 6, LONGROPE switches past 3 */
    r.scaling.original_max_position_embeddings = type == POSENC_ROPE_LONGROPE ? 3 : 0;
    r.scaling.low_freq_factor = 1, r.scaling.high_freq_factor = 4;
    if (type == POSENC_ROPE_LLAMA3)
        r.scaling.original_max_position_embeddings = 64;
    r.scaling.short_factor = shortf, r.scaling.long_factor = longf, r.scaling.factors_len = HALF;
    return r;
}

/* The frequencies of rope at seq_len, as posenc_rope_frequencies gives them. */
static posenc_rope given_at(const posenc_rope *rope, size_t seq_len, double *inv_freq)
{
    posenc_rope at = *rope;
    double attention = 0;
    at.seq_len = seq_len;
    CHECK(posenc_rope_frequencies(inv_freq, HALF, &at, NULL, &attention) == POSENC_OK);
    posenc_rope given = rope_given(DIM, rope->layout, inv_freq, attention, rope->precision);
    return given;
}

static void test_cache_and_apply_compute_their_frequencies(void)
{
    static const int types[] = { POSENC_ROPE_DEFAULT, POSENC_ROPE_LINEAR, POSENC_ROPE_DYNAMIC, POSENC_ROPE_YARN,
                                 POSENC_ROPE_LLAMA3, POSENC_ROPE_LONGROPE };
    const int32_t positions[LEN] = { 5, 0, 2, 1, 7, 3, 4, 8, 6 }; /* largest 8: seq_len 9 */
    for (size_t t = 0; t < sizeof types / sizeof *types; t++)
        for (int precision = 0; precision < 2; precision++) {
            posenc_rope rope = scaled(types[t]);
            rope.precision = precision;
            double inv_freq[HALF];
            posenc_rope given = given_at(&rope, LEN, inv_freq);
            float c1[LEN * HALF], s1[LEN * HALF], c2[LEN * HALF], s2[LEN * HALF];
            CHECK(posenc_rope_cache(c1, s1, LEN * HALF, LEN, 0, positions, &rope) == POSENC_OK);
            CHECK(posenc_rope_cache(c2, s2, LEN * HALF, LEN, 0, positions, &given) == POSENC_OK);
            CHECKF(memcmp(c1, c2, sizeof c1) == 0 && memcmp(s1, s2, sizeof s1) == 0, "cache, type %d", types[t]);
            /* offset 0 .. LEN - 1: the same seq_len, LEN */
            CHECK(posenc_rope_cache(c1, s1, LEN * HALF, LEN, 0, NULL, &rope) == POSENC_OK);
            CHECK(posenc_rope_cache(c2, s2, LEN * HALF, LEN, 0, NULL, &given) == POSENC_OK);
            CHECKF(memcmp(c1, c2, sizeof c1) == 0, "cache by offset, type %d", types[t]);

            float x1[LEN * HEADS * DIM], x2[LEN * HEADS * DIM];
            for (size_t i = 0; i < LEN * HEADS * DIM; i++)
                x1[i] = x2[i] = (float)sin((double)i * 0.37);
            rope.rotary_dim = 0; /* the head's width, DIM */
            CHECK(posenc_rope_apply(x1, LEN * HEADS * DIM, 1, LEN, HEADS, DIM, POSENC_ROPE_ORDER_BHSD, 0, positions,
                                    LEN, &rope) == POSENC_OK);
            CHECK(posenc_rope_apply(x2, LEN * HEADS * DIM, 1, LEN, HEADS, DIM, POSENC_ROPE_ORDER_BHSD, 0, positions,
                                    LEN, &given) == POSENC_OK);
            CHECKF(memcmp(x1, x2, sizeof x1) == 0, "apply, type %d precision %d", types[t], precision);
        }
}

static void test_length_dependent_frequencies(void)
{
    /* DYNAMIC at offset 10, 2 rows: seq_len 12 (> M = 6), so the scaled base */
    posenc_rope rope = scaled(POSENC_ROPE_DYNAMIC);
    double at12[HALF], at0[HALF];
    posenc_rope g12 = given_at(&rope, 12, at12);
    posenc_rope g0 = given_at(&rope, 0, at0);
    CHECK(at12[1] < at0[1]); /* a larger base: lower frequencies */
    float c1[2 * HALF], s1[2 * HALF], c2[2 * HALF], s2[2 * HALF];
    CHECK(posenc_rope_cache(c1, s1, 2 * HALF, 2, 10, NULL, &rope) == POSENC_OK);
    CHECK(posenc_rope_cache(c2, s2, 2 * HALF, 2, 10, NULL, &g12) == POSENC_OK);
    CHECK(memcmp(c1, c2, sizeof c1) == 0 && memcmp(s1, s2, sizeof s1) == 0);
    /* an explicit seq_len wins over the positions */
    rope.seq_len = 3;
    CHECK(posenc_rope_cache(c1, s1, 2 * HALF, 2, 10, NULL, &rope) == POSENC_OK);
    CHECK(posenc_rope_cache(c2, s2, 2 * HALF, 2, 10, NULL, &g0) == POSENC_OK); /* 3 <= M: the plain base */
    CHECK(memcmp(c1, c2, sizeof c1) == 0);
}

static void test_forms_2d(void)
{
    posenc_rope plain = rope_given(DIM, POSENC_ROPE_HALF, NULL, 0, 0);
    double f[HALF], arranged[HALF], attention;
    CHECK(posenc_rope_frequencies(f, HALF, &plain, NULL, &attention) == POSENC_OK);
    for (int form = POSENC_ROPE_2D_PIXTRAL; form <= POSENC_ROPE_2D_AXIAL; form++) {
        size_t sections[2] = { HALF / 2, HALF / 2 };
        posenc_rope_axes axes = rope_axes_of(2, sections, POSENC_AXES_SECTIONED);
        axes.form = form;
        CHECK(posenc_rope_frequencies(arranged, HALF, &plain, &axes, &attention) == POSENC_OK);
        int ok = 1;
        for (size_t k = 0; k < HALF / 2; k++) {
            ok &= arranged[k] == f[2 * k];
            ok &= arranged[HALF / 2 + k] == (form == POSENC_ROPE_2D_PIXTRAL ? f[2 * k + 1] : f[2 * k]);
        }
        CHECKF(ok, "2-D form %d", form);
        /* a cache of the form equals the sectioned cache of the arranged frequencies */
        const int32_t pos[2 * 4] = { 0, 0, 1, 1, 0, 1, 0, 1 }; /* a 2 x 2 grid: rows, then columns */
        float c1[4 * HALF], s1[4 * HALF], c2[4 * HALF], s2[4 * HALF];
        CHECK(posenc_rope_axes_cache(c1, s1, 4 * HALF, 4, pos, &axes, &plain) == POSENC_OK);
        posenc_rope given = rope_given(DIM, POSENC_ROPE_HALF, arranged, 1, 0);
        posenc_rope_axes sectioned = rope_axes_of(2, sections, POSENC_AXES_SECTIONED);
        CHECK(posenc_rope_axes_cache(c2, s2, 4 * HALF, 4, pos, &sectioned, &given) == POSENC_OK);
        CHECK(memcmp(c1, c2, sizeof c1) == 0 && memcmp(s1, s2, sizeof s1) == 0);
        /* the forms take base alone */
        posenc_rope yarn = scaled(POSENC_ROPE_YARN);
        CHECK(posenc_rope_frequencies(arranged, HALF, &yarn, &axes, &attention) == POSENC_ERR_INVALID_ARGUMENT);
        CHECK(posenc_last_error()->param == POSENC_PARAM_FORM_2D && posenc_last_error()->index == 4);
    }
}

static void test_attention_zero_means_one(void)
{
    double f[HALF];
    for (size_t k = 0; k < HALF; k++)
        f[k] = 1.0 / (double)(k + 1);
    float c0[HALF], s0[HALF], c1[HALF], s1[HALF];
    posenc_rope zero = rope_given(DIM, 0, f, 0, 0), one = rope_given(DIM, 0, f, 1, 0);
    CHECK(posenc_rope_cache(c0, s0, HALF, 1, 3, NULL, &zero) == POSENC_OK);
    CHECK(posenc_rope_cache(c1, s1, HALF, 1, 3, NULL, &one) == POSENC_OK);
    CHECK(memcmp(c0, c1, sizeof c0) == 0 && memcmp(s0, s1, sizeof s0) == 0);
}

/* What a refused call records: the row, the argument, the rule and its bounds. */
static void test_records(void)
{
    float x[4 * DIM], c[HALF], s[HALF];
    memset(x, 0, sizeof x);
    posenc_rope rope = rope_given(DIM + 2, 0, NULL, 0, 0);
    CHECK(posenc_rope_apply(x, 4 * DIM, 1, 4, 1, DIM, 0, 0, NULL, 0, &rope) == POSENC_ERR_INVALID_ARGUMENT);
    const posenc_error *e = posenc_last_error();
    CHECK(e->status == POSENC_ERR_INVALID_ARGUMENT && e->param == POSENC_PARAM_ROTARY_DIM && e->index == 11);
    CHECK(strcmp(e->name, "rotary_dim") == 0 && e->rule == POSENC_RULE_EVEN && e->value == DIM + 2);
    CHECK(e->lo == 2 && e->hi == DIM && e->other && strcmp(e->other, "head_dim") == 0);

    rope = rope_given(DIM, 0, NULL, 0, 0);
    rope.base = 1.0;
    CHECK(posenc_rope_cache(c, s, HALF, 1, 0, NULL, &rope) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(e->param == POSENC_PARAM_BASE && e->index == 7 && e->rule == POSENC_RULE_ABOVE && e->lo == 1 &&
          e->value == 1.0);

    rope = scaled(POSENC_ROPE_YARN);
    rope.scaling.beta_fast = 0.5, rope.scaling.beta_slow = 2;
    CHECK(posenc_rope_cache(c, s, HALF, 1, 0, NULL, &rope) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(e->param == POSENC_PARAM_BETA_FAST && e->value == 0.5 && e->lo == 2 && e->rule == POSENC_RULE_AT_LEAST &&
          strcmp(e->other, "scaling.beta_slow") == 0);

    rope = rope_given(DIM, 0, NULL, 0, 0);
    CHECK(posenc_rope_cache(c, s, HALF - 1, 1, 0, NULL, &rope) == POSENC_ERR_BUFFER_TOO_SMALL);
    CHECK(e->rule == POSENC_RULE_LENGTH && e->index == 3 && e->value == HALF - 1 && e->lo == HALF);
    CHECK(posenc_rope_cache(c, s, HALF, 2, INT32_MAX, NULL, &rope) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(e->param == POSENC_PARAM_OFFSET && e->index == 5 && e->rule == POSENC_RULE_RESULT && e->value == INT32_MAX);
    CHECK(posenc_rope_cache(c, c, HALF, 1, 0, NULL, &rope) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(e->rule == POSENC_RULE_DISJOINT && strcmp(e->name, "cos_out") == 0 && strcmp(e->other, "sin_out") == 0);
    CHECK(posenc_rope_cache(c, s, HALF, 1, 0, NULL, NULL) == POSENC_ERR_NULL_POINTER);
    CHECK(e->rule == POSENC_RULE_NOT_NULL && e->index == 7 && strcmp(e->name, "rope") == 0);

    /* a call that succeeds leaves the record of the last failure */
    CHECK(posenc_rope_cache(c, s, HALF, 1, 0, NULL, &rope) == POSENC_OK);
    CHECK(e->status == POSENC_ERR_NULL_POINTER);
}

void test_rope_whole(void)
{
    test_cache_and_apply_compute_their_frequencies();
    test_length_dependent_frequencies();
    test_forms_2d();
    test_attention_zero_means_one();
    test_records();
}
