/*
 * test_errors.c: every refusal of the sinusoidal, 2-D sinusoidal, timestep,
 * relative, ALiBi, T5, DeBERTa, Transformer-XL and M-RoPE routines and of the
 * encoder's blocks leaves its record (posenc_last_error): the status it
 * returned, the parameter's row, its position in the call (from 1), the
 * element of an array, its name, the rule with its bounds and the value given.
 * RoPE's records are tested in test_rope_whole.c.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "posenc.h"
#include "posenc_encoder.h"

#define COUNT(a) (sizeof(a) / sizeof *(a))
#define BIG ((size_t)1 << 31) /* past POSENC_POSITION_MAX */

/* Clears the record, so that a call which refuses without writing one fails the check. */
static void clear(void)
{
    float out[1];
    posenc_sinusoidal(out, 1, 1, 1, 0, 0, 0); /* a call that succeeds leaves the record */
    posenc_error *e = (posenc_error *)posenc_last_error();
    memset(e, 0, sizeof *e);
}

/* Whether the record is (status, param, index, element, name, rule). */
static int is(int status, int param, int index, int element, const char *name, int rule)
{
    const posenc_error *e = posenc_last_error();
    return e->status == status && e->param == param && e->index == index && e->element == element && e->name &&
           strcmp(e->name, name) == 0 && e->rule == rule;
}

/* The record's value and bounds. */
static int holds(double value, double lo, double hi)
{
    const posenc_error *e = posenc_last_error();
    return (e->value == value || (isnan(value) && isnan(e->value))) && e->lo == lo && e->hi == hi;
}

static int other_is(const char *other)
{
    const posenc_error *e = posenc_last_error();
    return e->other && strcmp(e->other, other) == 0;
}

static int has_why(void)
{
    return posenc_last_error()->why != NULL;
}

#define INVALID POSENC_ERR_INVALID_ARGUMENT
#define NONE POSENC_PARAM_NONE
/* A call that must fail with status st, and the record that names it. */
#define REFUSES(call, st, param, index, name, rule) \
    do {                                             \
        clear();                                     \
        CHECK((call) == (st));                       \
        CHECK(is(st, param, index, -1, name, rule)); \
    } while (0)
#define REFUSES_AT(call, st, param, index, element, name, rule) \
    do {                                                        \
        clear();                                                \
        CHECK((call) == (st));                                  \
        CHECK(is(st, param, index, element, name, rule));       \
    } while (0)

static void test_sinusoidal_records(void)
{
    float t[64];
    const int32_t MAX = POSENC_POSITION_MAX;
    REFUSES(posenc_sinusoidal(NULL, 64, 2, 4, 0, 0, 0), POSENC_ERR_NULL_POINTER, NONE, 1, "out", POSENC_RULE_NOT_NULL);
    REFUSES(posenc_sinusoidal(t, 64, BIG, 4, 0, 0, 0), INVALID, POSENC_PARAM_LENGTH, 3, "length", POSENC_RULE_INTEGER);
    CHECK(holds((double)BIG, 0, MAX));
    REFUSES(posenc_sinusoidal(t, 64, 2, 0, 0, 0, 0), INVALID, POSENC_PARAM_D_MODEL, 4, "d_model", POSENC_RULE_INTEGER);
    CHECK(holds(0, 1, MAX));
    REFUSES(posenc_sinusoidal(t, 64, 2, 4, 1.0, 0, 0), INVALID, POSENC_PARAM_BASE, 5, "base", POSENC_RULE_ABOVE);
    CHECK(holds(1.0, 1, POSENC_REAL_MAX));
    REFUSES(posenc_sinusoidal(t, 64, 2, 4, NAN, 0, 0), INVALID, POSENC_PARAM_BASE, 5, "base", POSENC_RULE_ABOVE);
    /* offset + length - 1 past int32: the offset's bound comes from the length */
    REFUSES(posenc_sinusoidal(t, 64, 3, 4, 0, MAX - 1, 0), INVALID, POSENC_PARAM_OFFSET, 6, "offset",
            POSENC_RULE_INTEGER);
    CHECK(holds(MAX - 1, POSENC_POSITION_MIN, (double)MAX - 2) && has_why());
    REFUSES(posenc_sinusoidal(t, 64, 2, 4, 0, 0, 9), INVALID, POSENC_PARAM_LAYOUT, 7, "layout", POSENC_RULE_ENUM);
    CHECK(holds(9, 0, POSENC_LAYOUT_FAIRSEQ));
    /* fairseq's width floor: d_model from 4 */
    REFUSES(posenc_sinusoidal(t, 64, 2, 2, 0, 0, POSENC_LAYOUT_FAIRSEQ), INVALID, POSENC_PARAM_D_MODEL, 4, "d_model",
            POSENC_RULE_INTEGER);
    CHECK(holds(2, 4, MAX) && has_why());
    REFUSES(posenc_sinusoidal(t, 7, 2, 4, 0, 0, 0), POSENC_ERR_BUFFER_TOO_SMALL, NONE, 2, "out_len",
            POSENC_RULE_LENGTH);
    CHECK(holds(7, 8, 8));

    double w[4];
    REFUSES(posenc_sinusoidal_frequencies(w, 4, 0, 0, 0), INVALID, POSENC_PARAM_D_MODEL, 3, "d_model",
            POSENC_RULE_INTEGER);
    REFUSES(posenc_sinusoidal_frequencies(w, 4, 4, -1, 0), INVALID, POSENC_PARAM_BASE, 4, "base", POSENC_RULE_ABOVE);
    REFUSES(posenc_sinusoidal_frequencies(w, 4, 4, 0, -1), INVALID, POSENC_PARAM_LAYOUT, 5, "layout",
            POSENC_RULE_ENUM);
    REFUSES(posenc_sinusoidal_frequencies(w, 4, 3, 0, POSENC_LAYOUT_FAIRSEQ), INVALID, POSENC_PARAM_D_MODEL, 3,
            "d_model", POSENC_RULE_INTEGER);
    REFUSES(posenc_sinusoidal_frequencies(w, 1, 4, 0, 0), POSENC_ERR_BUFFER_TOO_SMALL, NONE, 2, "out_len",
            POSENC_RULE_LENGTH);

    REFUSES(posenc_add_sinusoidal(NULL, 64, 1, 2, 4, 0, 1, 0, 0, 0), POSENC_ERR_NULL_POINTER, NONE, 1, "x",
            POSENC_RULE_NOT_NULL);
    REFUSES(posenc_add_sinusoidal(t, 64, 0, 2, 4, 0, 1, 0, 0, 0), INVALID, POSENC_PARAM_BATCH, 3, "batch",
            POSENC_RULE_INTEGER);
    REFUSES(posenc_add_sinusoidal(t, 64, 1, BIG, 4, 0, 1, 0, 0, 0), INVALID, POSENC_PARAM_SEQ, 4, "seq",
            POSENC_RULE_INTEGER);
    REFUSES(posenc_add_sinusoidal(t, 64, 1, 2, 0, 0, 1, 0, 0, 0), INVALID, POSENC_PARAM_D_MODEL, 5, "d_model",
            POSENC_RULE_INTEGER);
    REFUSES(posenc_add_sinusoidal(t, 64, 1, 2, 4, 2, 1, 0, 0, 0), INVALID, POSENC_PARAM_ORDER, 6, "order",
            POSENC_RULE_ENUM);
    REFUSES(posenc_add_sinusoidal(t, 64, 1, 2, 4, 0, INFINITY, 0, 0, 0), INVALID, POSENC_PARAM_SCALE, 7, "scale",
            POSENC_RULE_AT_LEAST);
    CHECK(holds(INFINITY, -POSENC_FLOAT_MAX, POSENC_FLOAT_MAX));
    REFUSES(posenc_add_sinusoidal(t, 64, 1, 2, 4, 0, 1, 0.5, 0, 0), INVALID, POSENC_PARAM_BASE, 8, "base",
            POSENC_RULE_ABOVE);
    REFUSES(posenc_add_sinusoidal(t, 64, 1, 2, 4, 0, 1, 0, MAX, 0), INVALID, POSENC_PARAM_OFFSET, 9, "offset",
            POSENC_RULE_INTEGER);
    CHECK(holds(MAX, POSENC_POSITION_MIN, (double)MAX - 1));
    REFUSES(posenc_add_sinusoidal(t, 64, 1, 2, 4, 0, 1, 0, 0, 7), INVALID, POSENC_PARAM_LAYOUT, 10, "layout",
            POSENC_RULE_ENUM);
    REFUSES(posenc_add_sinusoidal(t, 64, 1, 2, 2, 0, 1, 0, 0, POSENC_LAYOUT_FAIRSEQ), INVALID, POSENC_PARAM_D_MODEL, 5,
            "d_model", POSENC_RULE_INTEGER);
    REFUSES(posenc_add_sinusoidal(t, 7, 1, 2, 4, 0, 1, 0, 0, 0), POSENC_ERR_BUFFER_TOO_SMALL, NONE, 2, "x_len",
            POSENC_RULE_LENGTH);
}

static void test_sinusoidal_2d_records(void)
{
    float t[64];
    REFUSES(posenc_sinusoidal_2d(t, 64, BIG, 1, 8, 0, 0, 0, 0), INVALID, POSENC_PARAM_HEIGHT, 3, "height",
            POSENC_RULE_INTEGER);
    REFUSES(posenc_sinusoidal_2d(t, 64, 1, BIG, 8, 0, 0, 0, 0), INVALID, POSENC_PARAM_WIDTH, 4, "width",
            POSENC_RULE_INTEGER);
    REFUSES(posenc_sinusoidal_2d(t, 64, 2, 2, 6, 0, 0, 0, 0), INVALID, POSENC_PARAM_D_MODEL_2D, 5, "d_model",
            POSENC_RULE_MULTIPLE);
    CHECK(holds(6, 4, POSENC_POSITION_MAX) && has_why());
    REFUSES(posenc_sinusoidal_2d(t, 64, 2, 2, 0, 0, 0, 0, 0), INVALID, POSENC_PARAM_D_MODEL_2D, 5, "d_model",
            POSENC_RULE_MULTIPLE);
    REFUSES(posenc_sinusoidal_2d(t, 64, 2, 2, 8, 1, 0, 0, 0), INVALID, POSENC_PARAM_BASE, 6, "base",
            POSENC_RULE_ABOVE);
    REFUSES(posenc_sinusoidal_2d(t, 64, 2, 2, 8, 0, 2, 0, 0), INVALID, POSENC_PARAM_CLS_TOKEN, 7, "cls_token",
            POSENC_RULE_FLAG);
    REFUSES(posenc_sinusoidal_2d(t, 64, 2, 2, 8, 0, 0, -1, 0), INVALID, POSENC_PARAM_BASE_SIZE, 8, "base_size",
            POSENC_RULE_ABOVE);
    REFUSES(posenc_sinusoidal_2d(t, 64, 2, 2, 8, 0, 0, NAN, 0), INVALID, POSENC_PARAM_BASE_SIZE, 8, "base_size",
            POSENC_RULE_ABOVE);
    REFUSES(posenc_sinusoidal_2d(t, 64, 2, 2, 8, 0, 0, 0, -1), INVALID, POSENC_PARAM_INTERPOLATION_SCALE, 9,
            "interpolation_scale", POSENC_RULE_ABOVE);
    /* coordinates that overflow: 1 / 5e-324 is inf */
    REFUSES(posenc_sinusoidal_2d(t, 64, 2, 2, 8, 0, 0, 0, 5e-324), INVALID, POSENC_PARAM_INTERPOLATION_SCALE, 9,
            "interpolation_scale", POSENC_RULE_RESULT);
    CHECK(posenc_last_error()->value == 5e-324 && has_why());
    REFUSES(posenc_sinusoidal_2d(t, 31, 2, 2, 8, 0, 0, 0, 0), POSENC_ERR_BUFFER_TOO_SMALL, NONE, 2, "out_len",
            POSENC_RULE_LENGTH);
    CHECK(holds(31, 32, 32));
}

static void test_timestep_records(void)
{
    float out[16];
    double ts[2] = { 1, 2 };
    REFUSES(posenc_timestep_embedding(NULL, 16, ts, 2, 4, 0, 1, 1, 0), POSENC_ERR_NULL_POINTER, NONE, 1, "out",
            POSENC_RULE_NOT_NULL);
    REFUSES(posenc_timestep_embedding(out, 16, NULL, 2, 4, 0, 1, 1, 0), POSENC_ERR_NULL_POINTER, NONE, 3, "timesteps",
            POSENC_RULE_NOT_NULL);
    REFUSES(posenc_timestep_embedding(out, 16, ts, 2, 0, 0, 1, 1, 0), INVALID, POSENC_PARAM_DIM, 5, "dim",
            POSENC_RULE_INTEGER);
    REFUSES(posenc_timestep_embedding(out, 16, ts, 2, 4, 2, 1, 1, 0), INVALID, POSENC_PARAM_FLIP_SIN_TO_COS, 6,
            "flip_sin_to_cos", POSENC_RULE_FLAG);
    REFUSES(posenc_timestep_embedding(out, 16, ts, 2, 4, 0, NAN, 1, 0), INVALID, POSENC_PARAM_DOWNSCALE_FREQ_SHIFT, 7,
            "downscale_freq_shift", POSENC_RULE_AT_LEAST);
    REFUSES(posenc_timestep_embedding(out, 16, ts, 2, 4, 0, 1, INFINITY, 0), INVALID, POSENC_PARAM_TIMESTEP_SCALE, 8,
            "scale", POSENC_RULE_AT_LEAST);
    REFUSES(posenc_timestep_embedding(out, 16, ts, 2, 4, 0, 1, 1, -1), INVALID, POSENC_PARAM_MAX_PERIOD, 9,
            "max_period", POSENC_RULE_ABOVE);
    /* the frequencies divide by floor(dim / 2) - downscale_freq_shift: % in why is lo, that half */
    REFUSES(posenc_timestep_embedding(out, 16, ts, 2, 8, 0, 4, 1, 0), INVALID, POSENC_PARAM_DOWNSCALE_FREQ_SHIFT, 7,
            "downscale_freq_shift", POSENC_RULE_RESULT);
    CHECK(holds(4, 4, 4) && has_why() && strchr(posenc_last_error()->why, '%'));
    /* a frequency that overflows: half - shift a tiny negative number */
    REFUSES(posenc_timestep_embedding(out, 16, ts, 2, 8, 0, 4.0000001, 1, 0), INVALID,
            POSENC_PARAM_DOWNSCALE_FREQ_SHIFT, 7, "downscale_freq_shift", POSENC_RULE_RESULT);
    double bad[3] = { 1, 2, NAN };
    REFUSES_AT(posenc_timestep_embedding(out, 16, bad, 3, 4, 0, 1, 1, 0), INVALID, POSENC_PARAM_TIMESTEPS, 3, 2,
               "timesteps", POSENC_RULE_AT_LEAST);
    /* an angle that overflows: recorded at the largest |t| */
    double huge[3] = { 1, -1e300, 2 };
    REFUSES_AT(posenc_timestep_embedding(out, 16, huge, 3, 4, 0, 1, 1e10, 0), INVALID, POSENC_PARAM_TIMESTEPS, 3, 1,
               "timesteps", POSENC_RULE_RESULT);
    CHECK(posenc_last_error()->value == -1e300 && has_why());
    REFUSES(posenc_timestep_embedding(out, 16, ts, SIZE_MAX / 2, 4, 0, 1, 1, 0), POSENC_ERR_SIZE_OVERFLOW, NONE, 4,
            "n * dim", POSENC_RULE_SIZE);
    REFUSES(posenc_timestep_embedding(out, 7, ts, 2, 4, 0, 1, 1, 0), POSENC_ERR_BUFFER_TOO_SMALL, NONE, 2, "out_len",
            POSENC_RULE_LENGTH);
    /* out over the timesteps it reads */
    union {
        double t[8];
        float out[16];
    } shared = { { 1, 2 } };
    REFUSES(posenc_timestep_embedding(shared.out, 4, shared.t, 2, 2, 0, 0, 1, 0), INVALID, NONE, 1, "out",
            POSENC_RULE_DISJOINT);
    CHECK(other_is("timesteps"));
}

static void test_relative_records(void)
{
    int32_t out[16];
    REFUSES(posenc_relative_positions(NULL, 16, 2, 2, 0), POSENC_ERR_NULL_POINTER, NONE, 1, "out",
            POSENC_RULE_NOT_NULL);
    REFUSES(posenc_relative_positions(out, 16, SIZE_MAX, 2, 0), POSENC_ERR_SIZE_OVERFLOW, NONE, 3,
            "query_len * key_len", POSENC_RULE_SIZE);
    REFUSES(posenc_relative_positions(out, 16, BIG + 1, 0, 0), INVALID, POSENC_PARAM_QUERY_LEN, 3, "query_len",
            POSENC_RULE_INTEGER);
    CHECK(holds((double)BIG + 1, 0, (double)BIG));
    REFUSES(posenc_relative_positions(out, 16, 0, BIG + 1, 0), INVALID, POSENC_PARAM_KEY_LEN, 4, "key_len",
            POSENC_RULE_INTEGER);
    /* j - i + shift within int32: the bounds of shift come from the lengths */
    REFUSES(posenc_relative_positions(out, 16, 3, 2, INT32_MIN + 1), INVALID, POSENC_PARAM_SHIFT, 5, "shift",
            POSENC_RULE_INTEGER);
    CHECK(holds(INT32_MIN + 1, (double)INT32_MIN + 2, (double)INT32_MAX - 1) && has_why());
    REFUSES(posenc_relative_positions(out, 3, 2, 2, 0), POSENC_ERR_BUFFER_TOO_SMALL, NONE, 2, "out_len",
            POSENC_RULE_LENGTH);
}

static void test_alibi_records(void)
{
    double slopes[4];
    float b[32];
    REFUSES(posenc_alibi_slopes(NULL, 4, 4, 0), POSENC_ERR_NULL_POINTER, NONE, 1, "out", POSENC_RULE_NOT_NULL);
    REFUSES(posenc_alibi_slopes(slopes, 4, 0, 0), INVALID, POSENC_PARAM_HEADS, 3, "heads", POSENC_RULE_INTEGER);
    REFUSES(posenc_alibi_slopes(slopes, 4, 4, -1), INVALID, POSENC_PARAM_MAX_BIAS, 4, "max_bias", POSENC_RULE_ABOVE);
    CHECK(holds(-1, 0, POSENC_REAL_MAX));
    REFUSES(posenc_alibi_slopes(slopes, 3, 4, 0), POSENC_ERR_BUFFER_TOO_SMALL, NONE, 2, "out_len",
            POSENC_RULE_LENGTH);

    REFUSES(posenc_alibi_bias(b, 32, 0, 2, 2, 0, 1, 0), INVALID, POSENC_PARAM_HEADS, 3, "heads", POSENC_RULE_INTEGER);
    REFUSES(posenc_alibi_bias(b, 32, 1, BIG + 1, 0, 0, 1, 0), INVALID, POSENC_PARAM_QUERY_LEN, 4, "query_len",
            POSENC_RULE_INTEGER);
    REFUSES(posenc_alibi_bias(b, 32, 1, 0, BIG + 1, 0, 1, 0), INVALID, POSENC_PARAM_KEY_LEN, 5, "key_len",
            POSENC_RULE_INTEGER);
    REFUSES(posenc_alibi_bias(b, 32, 1, 2, 2, -1, 1, 0), INVALID, POSENC_PARAM_QUERY_OFFSET, 6, "query_offset",
            POSENC_RULE_INTEGER);
    REFUSES(posenc_alibi_bias(b, 32, 1, 3, 1, INT32_MAX - 1, 1, 0), INVALID, POSENC_PARAM_QUERY_OFFSET, 6,
            "query_offset", POSENC_RULE_INTEGER);
    CHECK(holds(INT32_MAX - 1, 0, (double)INT32_MAX - 2) && has_why());
    REFUSES(posenc_alibi_bias(b, 32, 1, 2, 2, 0, 2, 0), INVALID, POSENC_PARAM_CAUSAL, 7, "causal", POSENC_RULE_FLAG);
    REFUSES(posenc_alibi_bias(b, 32, 1, 2, 2, 0, 1, NAN), INVALID, POSENC_PARAM_MAX_BIAS, 8, "max_bias",
            POSENC_RULE_ABOVE);
    REFUSES(posenc_alibi_bias(b, 3, 1, 2, 2, 0, 1, 0), POSENC_ERR_BUFFER_TOO_SMALL, NONE, 2, "out_len",
            POSENC_RULE_LENGTH);
}

static void test_bucket_records(void)
{
    int32_t out[16];
    float f[16], w[64];
    memset(w, 0, sizeof w);
    const double MAX = POSENC_POSITION_MAX;
    REFUSES(posenc_t5_buckets(out, 16, 2, 2, 2, 32, 128, 0), INVALID, POSENC_PARAM_BIDIRECTIONAL, 5, "bidirectional",
            POSENC_RULE_FLAG);
    /* bidirectional: an even count from 4 */
    REFUSES(posenc_t5_buckets(out, 16, 2, 2, 1, 31, 128, 0), INVALID, POSENC_PARAM_NUM_BUCKETS, 6, "num_buckets",
            POSENC_RULE_EVEN);
    CHECK(holds(31, 4, MAX) && has_why());
    REFUSES(posenc_t5_buckets(out, 16, 2, 2, 0, 1, 128, 0), INVALID, POSENC_PARAM_NUM_BUCKETS, 6, "num_buckets",
            POSENC_RULE_INTEGER);
    /* max_distance above the exact distances, num_buckets / 4 bidirectional, / 2 otherwise */
    REFUSES(posenc_t5_buckets(out, 16, 2, 2, 1, 32, 8, 0), INVALID, POSENC_PARAM_MAX_DISTANCE, 7, "max_distance",
            POSENC_RULE_INTEGER);
    CHECK(holds(8, 9, MAX) && has_why());
    REFUSES(posenc_t5_buckets(out, 16, 2, 2, 0, 32, 16, 0), INVALID, POSENC_PARAM_MAX_DISTANCE, 7, "max_distance",
            POSENC_RULE_INTEGER);
    CHECK(holds(16, 17, MAX));
    REFUSES(posenc_t5_buckets(out, 16, BIG + 1, 0, 1, 0, 0, 0), INVALID, POSENC_PARAM_QUERY_LEN, 3, "query_len",
            POSENC_RULE_INTEGER);
    REFUSES(posenc_t5_buckets(out, 16, 0, BIG + 1, 1, 0, 0, 0), INVALID, POSENC_PARAM_KEY_LEN, 4, "key_len",
            POSENC_RULE_INTEGER);
    REFUSES(posenc_t5_buckets(out, 16, 2, 2, 1, 0, 0, -1), INVALID, POSENC_PARAM_QUERY_OFFSET, 8, "query_offset",
            POSENC_RULE_INTEGER);
    REFUSES(posenc_t5_buckets(out, 3, 2, 2, 1, 0, 0, 0), POSENC_ERR_BUFFER_TOO_SMALL, NONE, 2, "out_len",
            POSENC_RULE_LENGTH);

    REFUSES(posenc_t5_bias(f, 16, NULL, 64, 1, 2, 2, 1, 32, 128, 0), POSENC_ERR_NULL_POINTER, NONE, 3, "weights",
            POSENC_RULE_NOT_NULL);
    REFUSES(posenc_t5_bias(f, 16, w, 64, 0, 2, 2, 1, 32, 128, 0), INVALID, POSENC_PARAM_HEADS, 5, "heads",
            POSENC_RULE_INTEGER);
    REFUSES(posenc_t5_bias(f, 16, w, 64, 1, 2, 2, 1, 30, 4, 0), INVALID, POSENC_PARAM_MAX_DISTANCE, 10,
            "max_distance", POSENC_RULE_INTEGER);
    REFUSES(posenc_t5_bias(f, 16, w, 64, 1, 2, 2, 1, 31, 128, 0), INVALID, POSENC_PARAM_NUM_BUCKETS, 9,
            "num_buckets", POSENC_RULE_EVEN);
    REFUSES(posenc_t5_bias(f, 16, w, 64, 1, 2, 2, 7, 32, 128, 0), INVALID, POSENC_PARAM_BIDIRECTIONAL, 8,
            "bidirectional", POSENC_RULE_FLAG);
    REFUSES(posenc_t5_bias(f, 16, w, 64, 1, 2, 2, 1, 32, 128, -5), INVALID, POSENC_PARAM_QUERY_OFFSET, 11,
            "query_offset", POSENC_RULE_INTEGER);
    REFUSES(posenc_t5_bias(f, 16, w, 31, 1, 2, 2, 1, 32, 128, 0), POSENC_ERR_BUFFER_TOO_SMALL, NONE, 4, "weights_len",
            POSENC_RULE_LENGTH);
    REFUSES(posenc_t5_bias(w, 64, w + 2, 32, 1, 2, 2, 1, 32, 128, 0), INVALID, NONE, 1, "out", POSENC_RULE_DISJOINT);
    CHECK(other_is("weights"));

    float v;
    /* DeBERTa: bucket_size from 2, max_position bounded by the log term's denominator */
    REFUSES(posenc_deberta_bucket(&v, 3, 1, 0), INVALID, POSENC_PARAM_BUCKET_SIZE, 3, "bucket_size",
            POSENC_RULE_INTEGER);
    CHECK(holds(1, 2, MAX) && has_why());
    REFUSES(posenc_deberta_bucket(&v, 3, 256, 129), INVALID, POSENC_PARAM_MAX_POSITION_DEBERTA, 4, "max_position",
            POSENC_RULE_INTEGER);
    CHECK(holds(129, 130, MAX) && has_why());
    REFUSES(posenc_deberta_bucket(&v, 3, 256, 1), INVALID, POSENC_PARAM_MAX_POSITION_DEBERTA, 4, "max_position",
            POSENC_RULE_INTEGER);
    CHECK(holds(1, 130, MAX));
    REFUSES(posenc_deberta_bucket(&v, 3, 256, BIG), INVALID, POSENC_PARAM_MAX_POSITION_DEBERTA, 4, "max_position",
            POSENC_RULE_INTEGER);
    CHECK(posenc_deberta_bucket(&v, 3, 256, 130) == POSENC_OK); /* the bound it states is the bound */
    REFUSES(posenc_deberta_buckets(out, 16, 2, 2, 1, 0), INVALID, POSENC_PARAM_BUCKET_SIZE, 5, "bucket_size",
            POSENC_RULE_INTEGER);
    REFUSES(posenc_deberta_buckets(out, 16, 2, 2, 8, 5), INVALID, POSENC_PARAM_MAX_POSITION_DEBERTA, 6, "max_position",
            POSENC_RULE_INTEGER);
    CHECK(holds(5, 6, MAX));
    REFUSES(posenc_deberta_buckets(out, 16, BIG + 1, 0, 0, 0), INVALID, POSENC_PARAM_QUERY_LEN, 3, "query_len",
            POSENC_RULE_INTEGER);
    REFUSES(posenc_deberta_buckets(out, 16, 0, BIG + 1, 0, 0), INVALID, POSENC_PARAM_KEY_LEN, 4, "key_len",
            POSENC_RULE_INTEGER);
    /* a log ratio just above 1 in float32: the far buckets pass int32 */
    size_t bucket = (size_t)1 << 30, position = ((size_t)1 << 29) + 2 + 32;
    REFUSES(posenc_deberta_buckets(out, 0, BIG, 0, bucket, position), INVALID, POSENC_PARAM_QUERY_LEN, 3, "query_len",
            POSENC_RULE_RESULT);
    float far;
    CHECK(posenc_deberta_bucket(&far, INT32_MAX, bucket, position) == POSENC_OK && far >= 2147483648.0f);
    CHECK(holds((double)BIG, far, far) && has_why()); /* the bucket that passes int32 */
    REFUSES(posenc_deberta_buckets(out, 0, 0, BIG, bucket, position), INVALID, POSENC_PARAM_KEY_LEN, 4, "key_len",
            POSENC_RULE_RESULT);
    CHECK(posenc_deberta_bucket(&far, 1 - INT32_MAX - 1, bucket, position) == POSENC_OK);
    CHECK(holds((double)BIG, far, far) && far < -2147483648.0f);
    REFUSES(posenc_deberta_buckets(out, 3, 2, 2, 0, 0), POSENC_ERR_BUFFER_TOO_SMALL, NONE, 2, "out_len",
            POSENC_RULE_LENGTH);
}

static void test_transformer_xl_records(void)
{
    float out[16];
    REFUSES(posenc_transformer_xl_embedding(out, 16, BIG + 1, 4, 0), INVALID, POSENC_PARAM_KEY_LEN, 3, "key_len",
            POSENC_RULE_INTEGER);
    REFUSES(posenc_transformer_xl_embedding(out, 16, 2, 3, 0), INVALID, POSENC_PARAM_D_MODEL_EVEN, 4, "d_model",
            POSENC_RULE_EVEN);
    CHECK(holds(3, 2, POSENC_POSITION_MAX) && has_why());
    REFUSES(posenc_transformer_xl_embedding(out, 16, 2, 4, -1), INVALID, POSENC_PARAM_CLAMP_LENGTH, 5, "clamp_length",
            POSENC_RULE_INTEGER);
    CHECK(holds(-1, 0, POSENC_POSITION_MAX) && has_why());
    REFUSES(posenc_transformer_xl_embedding(out, 7, 2, 4, 0), POSENC_ERR_BUFFER_TOO_SMALL, NONE, 2, "out_len",
            POSENC_RULE_LENGTH);
}

static void test_mrope_records(void)
{
    int32_t out[64];
    posenc_mrope_span text = { POSENC_MROPE_TEXT, 2, 0, 0, 0 };
    posenc_mrope_span image = { POSENC_MROPE_IMAGE, 1, 4, 4, 0 };
    posenc_mrope_span spans[2] = { text, image };
    REFUSES(posenc_mrope_positions(out, 64, 6, NULL, 2, 2, 0), POSENC_ERR_NULL_POINTER, NONE, 4, "spans",
            POSENC_RULE_NOT_NULL);
    REFUSES(posenc_mrope_positions(out, 64, 6, spans, 2, BIG, 0), INVALID, POSENC_PARAM_SPATIAL_MERGE_SIZE, 6,
            "spatial_merge_size", POSENC_RULE_INTEGER);
    REFUSES(posenc_mrope_positions(out, 64, 6, spans, 2, 2, -1), INVALID, POSENC_PARAM_TOKENS_PER_SECOND, 7,
            "tokens_per_second", POSENC_RULE_AT_LEAST);
    CHECK(posenc_mrope_positions(out, 64, 6, spans, 2, 2, 0) == POSENC_OK);
    /* seq is the tokens of the spans: % in why is that count */
    REFUSES(posenc_mrope_positions(out, 64, 7, spans, 2, 2, 0), INVALID, POSENC_PARAM_SEQ, 3, "seq",
            POSENC_RULE_RESULT);
    CHECK(holds(7, 6, 6) && has_why());
    REFUSES(posenc_mrope_positions(out, 17, 6, spans, 2, 2, 0), POSENC_ERR_BUFFER_TOO_SMALL, NONE, 2, "out_len",
            POSENC_RULE_LENGTH);
    REFUSES(posenc_mrope_positions((int32_t *)spans, 64, 6, spans, 2, 2, 0), INVALID, NONE, 1, "out",
            POSENC_RULE_DISJOINT);
    CHECK(other_is("spans"));

    /* the span that fails is the record's element */
    spans[1].h = 3;
    REFUSES_AT(posenc_mrope_positions(out, 64, 6, spans, 2, 2, 0), INVALID, POSENC_PARAM_SPAN_H, 4, 1, "spans.h",
               POSENC_RULE_MULTIPLE);
    CHECK(holds(3, 2, POSENC_POSITION_MAX) && other_is("spatial_merge_size"));
    spans[1].h = 4, spans[1].w = 0;
    REFUSES_AT(posenc_mrope_positions(out, 64, 6, spans, 2, 2, 0), INVALID, POSENC_PARAM_SPAN_W, 4, 1, "spans.w",
               POSENC_RULE_INTEGER);
    spans[1].w = 4, spans[1].t = 0;
    REFUSES_AT(posenc_mrope_positions(out, 64, 6, spans, 2, 2, 0), INVALID, POSENC_PARAM_SPAN_T, 4, 1, "spans.t",
               POSENC_RULE_INTEGER);
    spans[1].t = 1, spans[1].kind = 9;
    REFUSES_AT(posenc_mrope_positions(out, 64, 6, spans, 2, 2, 0), INVALID, POSENC_PARAM_SPAN_KIND, 4, 1, "spans.kind",
               POSENC_RULE_ENUM);
    spans[1].kind = POSENC_MROPE_VIDEO, spans[1].seconds_per_grid = -1;
    REFUSES_AT(posenc_mrope_positions(out, 64, 6, spans, 2, 2, 0), INVALID, POSENC_PARAM_SECONDS_PER_GRID, 4, 1,
               "spans.seconds_per_grid", POSENC_RULE_AT_LEAST);
    /* the last frame past int32: (t - 1) * seconds_per_grid * tokens_per_second */
    spans[1].t = 3, spans[1].seconds_per_grid = 1e9;
    REFUSES_AT(posenc_mrope_positions(out, 64, 14, spans, 2, 2, 25), INVALID, POSENC_PARAM_SECONDS_PER_GRID, 4, 1,
               "spans.seconds_per_grid", POSENC_RULE_RESULT);
    spans[0].t = BIG;
    REFUSES_AT(posenc_mrope_positions(out, 64, 6, spans, 2, 2, 0), INVALID, POSENC_PARAM_SPAN_T, 4, 0, "spans.t",
               POSENC_RULE_INTEGER);
    CHECK(holds((double)BIG, 0, POSENC_POSITION_MAX));
    /* a text span that ends at the last int32 position: the next span's positions pass it */
    spans[0].t = POSENC_POSITION_MAX, spans[1] = image;
    REFUSES_AT(posenc_mrope_positions(out, 64, 6, spans, 2, 2, 0), INVALID, NONE, 4, 1, "spans", POSENC_RULE_RESULT);
    CHECK(has_why());
}

static void test_encoder_block_records(void)
{
    float x[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, out[16], table[8], w[16];
    int32_t tokens[3] = { 0, 1, 2 };
    REFUSES(posenc_softmax(NULL, 8, 2, 4), POSENC_ERR_NULL_POINTER, NONE, 1, "x", POSENC_RULE_NOT_NULL);
    REFUSES(posenc_softmax(x, 8, 2, 0), INVALID, POSENC_PARAM_COLS, 4, "cols", POSENC_RULE_INTEGER);
    REFUSES(posenc_softmax(x, 8, SIZE_MAX, 4), POSENC_ERR_SIZE_OVERFLOW, NONE, 3, "rows * cols", POSENC_RULE_SIZE);
    REFUSES(posenc_softmax(x, 7, 2, 4), POSENC_ERR_BUFFER_TOO_SMALL, NONE, 2, "x_len", POSENC_RULE_LENGTH);
    x[5] = NAN;
    REFUSES_AT(posenc_softmax(x, 8, 2, 4), INVALID, POSENC_PARAM_SCORES, 1, 5, "x", POSENC_RULE_RESULT);
    CHECK(isnan(posenc_last_error()->value) && has_why());
    x[5] = INFINITY;
    REFUSES_AT(posenc_softmax(x, 8, 2, 4), INVALID, POSENC_PARAM_SCORES, 1, 5, "x", POSENC_RULE_RESULT);
    x[5] = -INFINITY;
    CHECK(posenc_softmax(x, 8, 2, 4) == POSENC_OK); /* a masked score */

    memset(table, 0, sizeof table);
    REFUSES(posenc_embed(out, 16, NULL, 3, table, 8, 4, 2, 1), POSENC_ERR_NULL_POINTER, NONE, 3, "tokens",
            POSENC_RULE_NOT_NULL);
    REFUSES(posenc_embed(out, 16, tokens, 3, NULL, 8, 4, 2, 1), POSENC_ERR_NULL_POINTER, NONE, 5, "table",
            POSENC_RULE_NOT_NULL);
    REFUSES(posenc_embed(out, 16, tokens, 3, table, 8, 0, 2, 1), INVALID, POSENC_PARAM_VOCAB_SIZE, 7, "vocab_size",
            POSENC_RULE_INTEGER);
    REFUSES(posenc_embed(out, 16, tokens, 3, table, 8, 4, 0, 1), INVALID, POSENC_PARAM_ENCODER_D_MODEL, 8, "d_model",
            POSENC_RULE_INTEGER);
    REFUSES(posenc_embed(out, 16, tokens, 3, table, 8, 4, 2, INFINITY), INVALID, POSENC_PARAM_EMBED_FACTOR, 9, "scale",
            POSENC_RULE_AT_LEAST);
    REFUSES(posenc_embed(out, 5, tokens, 3, table, 8, 4, 2, 1), POSENC_ERR_BUFFER_TOO_SMALL, NONE, 2, "out_len",
            POSENC_RULE_LENGTH);
    REFUSES(posenc_embed(out, 16, tokens, 3, table, 7, 4, 2, 1), POSENC_ERR_BUFFER_TOO_SMALL, NONE, 6, "table_len",
            POSENC_RULE_LENGTH);
    /* a token past the vocabulary: its bound comes from vocab_size */
    REFUSES_AT(posenc_embed(out, 16, tokens, 3, table, 4, 2, 2, 1), INVALID, POSENC_PARAM_TOKENS, 3, 2, "tokens",
               POSENC_RULE_INTEGER);
    CHECK(holds(2, 0, 1) && other_is("vocab_size - 1"));
    REFUSES(posenc_embed(table, 8, tokens, 3, table, 8, 4, 2, 1), INVALID, NONE, 1, "out", POSENC_RULE_DISJOINT);
    CHECK(other_is("table"));

    REFUSES(posenc_layer_norm(out, 16, NULL, 8, 2, 4, NULL, NULL, 0), POSENC_ERR_NULL_POINTER, NONE, 3, "x",
            POSENC_RULE_NOT_NULL);
    REFUSES(posenc_layer_norm(out, 16, x, 8, 2, 0, NULL, NULL, 0), INVALID, POSENC_PARAM_ENCODER_D_MODEL, 6, "d_model",
            POSENC_RULE_INTEGER);
    REFUSES(posenc_layer_norm(out, 16, x, 8, 2, 4, NULL, NULL, -1), INVALID, POSENC_PARAM_EPS, 9, "eps",
            POSENC_RULE_ABOVE);
    REFUSES(posenc_layer_norm(out, 16, x, 7, 2, 4, NULL, NULL, 0), POSENC_ERR_BUFFER_TOO_SMALL, NONE, 4, "x_len",
            POSENC_RULE_LENGTH);
    REFUSES(posenc_layer_norm(out, 16, out + 2, 8, 2, 4, NULL, NULL, 0), INVALID, NONE, 1, "out",
            POSENC_RULE_DISJOINT);
    CHECK(other_is("x"));

    memset(w, 0, sizeof w);
    REFUSES(posenc_linear(out, 16, x, 8, 2, 0, w, 16, 4, NULL), INVALID, POSENC_PARAM_IN_FEATURES_NN, 6, "in_features",
            POSENC_RULE_INTEGER);
    REFUSES(posenc_linear(out, 16, x, 8, 2, 4, w, 16, 0, NULL), INVALID, POSENC_PARAM_OUT_FEATURES, 9, "out_features",
            POSENC_RULE_INTEGER);
    REFUSES(posenc_linear(out, 16, x, 8, 2, 4, w, 15, 4, NULL), POSENC_ERR_BUFFER_TOO_SMALL, NONE, 8, "weight_len",
            POSENC_RULE_LENGTH);
    REFUSES(posenc_linear(out, 16, x, 8, 2, 4, w, 16, 4, out + 3), INVALID, NONE, 1, "out", POSENC_RULE_DISJOINT);
    CHECK(other_is("bias"));

    float probs[8];
    REFUSES(posenc_attention(out, 16, x, x, x, 8, 2, 0, 4, NULL, 0, NULL, 0, probs, 8, NULL, 0), INVALID,
            POSENC_PARAM_ENCODER_HEADS, 8, "heads", POSENC_RULE_INTEGER);
    REFUSES(posenc_attention(out, 16, x, x, x, 8, 2, 1, 0, NULL, 0, NULL, 0, probs, 8, NULL, 0), INVALID,
            POSENC_PARAM_HEAD_DIM, 9, "head_dim", POSENC_RULE_INTEGER);
    REFUSES(posenc_attention(out, 16, x, x, x, 8, 2, 1, 4, NULL, 0, NULL, 2, probs, 8, NULL, 0), INVALID,
            POSENC_PARAM_CAUSAL, 13, "causal", POSENC_RULE_FLAG);
    REFUSES(posenc_attention(out, 16, x, x, x, 8, 2, 1, 4, NULL, 0, NULL, 0, NULL, 0, NULL, 0),
            POSENC_ERR_NULL_POINTER, NONE, 16, "work", POSENC_RULE_NOT_NULL);
    REFUSES(posenc_attention(out, 16, x, x, x, 8, 2, 1, 4, NULL, 0, NULL, 0, probs, 3, NULL, 0),
            POSENC_ERR_BUFFER_TOO_SMALL, NONE, 15, "probs_len", POSENC_RULE_LENGTH);
    REFUSES(posenc_attention(out, 16, x, x, x, 8, 2, 1, 4, NULL, 0, NULL, 0, out + 4, 4, NULL, 0), INVALID, NONE, 14,
            "probs", POSENC_RULE_DISJOINT);
    CHECK(other_is("out"));

    float params[64], work[16];
    REFUSES(posenc_feed_forward(out, 16, x, 8, 2, 4, 2, params, 64, 9, work, 16), INVALID, POSENC_PARAM_ACTIVATION, 10,
            "activation", POSENC_RULE_ENUM);
    REFUSES(posenc_feed_forward(out, 16, x, 8, 2, 4, 0, params, 64, 0, work, 16), INVALID, POSENC_PARAM_D_FF, 7,
            "d_ff", POSENC_RULE_INTEGER);
    REFUSES(posenc_feed_forward(out, 16, x, 8, 2, 4, 2, params, 21, 0, work, 16), POSENC_ERR_BUFFER_TOO_SMALL, NONE, 9,
            "params_len", POSENC_RULE_LENGTH);
    CHECK(holds(21, 22, 22)); /* [w1 | b1 | w2 | b2]: 8 + 2 + 8 + 4 */
    REFUSES(posenc_feed_forward(out, 16, x, 8, 2, 4, 2, params, 64, 0, out + 4, 4), INVALID, NONE, 11, "work",
            POSENC_RULE_DISJOINT);
    CHECK(other_is("out"));

    REFUSES(posenc_mean_pool(out, 16, x, 8, 2, 0, NULL), INVALID, POSENC_PARAM_ENCODER_D_MODEL, 6, "d_model",
            POSENC_RULE_INTEGER);
    REFUSES(posenc_mean_pool(out, 3, x, 8, 2, 4, NULL), POSENC_ERR_BUFFER_TOO_SMALL, NONE, 2, "out_len",
            POSENC_RULE_LENGTH);
    REFUSES(posenc_mean_pool(out, 16, out + 2, 8, 2, 4, NULL), INVALID, NONE, 1, "out", POSENC_RULE_DISJOINT);
    CHECK(other_is("x"));
}

void test_errors(void)
{
    test_sinusoidal_records();
    test_sinusoidal_2d_records();
    test_timestep_records();
    test_relative_records();
    test_alibi_records();
    test_bucket_records();
    test_transformer_xl_records();
    test_mrope_records();
    test_encoder_block_records();
}
