/* test_hardening.c: regressions found by the fuzz targets in tests/fuzz/.
 * Each test failed before its fix. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "rope_calls.h"
#include "posenc_encoder.h"

#define COUNT(a) (sizeof(a) / sizeof(a)[0])

/* An empty result returns at once, however large its other dimensions: the
 * routines used to compute every frequency (sinusoidal, add_sinusoidal) or
 * every head's slope (alibi_bias), or loop over every batch (rope_apply),
 * before noticing there was nothing to write: about 2 s per 2^26, so at the
 * sizes below centuries. No clock here (a loaded machine must not fail this
 * test): a regression does not return, and the run's timeout reports it; how
 * long the calls take is bench/budgets.mjs's measurement (the same routines,
 * through the wasm build). */
static void test_empty_results_do_no_work(void)
{
    size_t big = POSENC_POSITION_MAX; /* the largest count a parameter takes (posenc.h's table) */
    float x[4] = { 1, 2, 3, 4 };
    double inv_freq[1] = { 1.0 };
    int32_t positions[1] = { 0 };
    CHECK(posenc_sinusoidal(x, 0, 0, big, 0, 0, POSENC_LAYOUT_INTERLEAVED) == POSENC_OK);
    CHECK(posenc_add_sinusoidal(x, 0, 1, 0, big, POSENC_ORDER_BSD, 1.0f, 0, 0, POSENC_LAYOUT_CONCATENATED) ==
          POSENC_OK);
    CHECK(posenc_alibi_bias(x, 0, big, 0, 4, 0, 1, 0) == POSENC_OK);
    CHECK(posenc_alibi_bias(x, 0, big, 4, 0, 0, 0, 0) == POSENC_OK);
    CHECK(rope_apply_with(x, 0, big, 0, 1, 2, 2, POSENC_ROPE_HALF, inv_freq, 1.0, 0, positions, 0,
                            POSENC_ROPE_PRECISION_FLOAT64) == POSENC_OK);
    /* attention over zero tokens: it looped over every head */
    CHECK(posenc_attention(x, 0, x, x, x, 0, 0, big, 1, NULL, 0, NULL, 0, NULL, 0, NULL, 0) == POSENC_OK);
    CHECK(x[0] == 1 && x[3] == 4);
}

/* Frequencies and attention factors that pass as "finite" but overflow the
 * angle p * f (double, or float32 in the float32 recipe) or the float cache
 * A cos: the caches held NaN and inf. Now rejected, nothing written. */
static void test_rope_rejects_overflowing_parameters(void)
{
    static const double bad_freq[] = { 1e300, -1e300, 0x1p64 * 2, DBL_MAX, 1e39 };
    static const double bad_attention[] = { 1e300, 1e39, DBL_MAX };
    float c[4], s[4], x[8];
    double f[2] = { 1.0, 0.01 };
    int32_t positions[2] = { 0, INT32_MAX };
    int rejected = 0, cases = 0, untouched = 1;
    for (int precision = 0; precision < 2; precision++) {
        for (size_t i = 0; i < COUNT(bad_freq); i++) {
            f[1] = bad_freq[i];
            memset(c, 0x5A, sizeof c);
            memset(x, 0x5A, sizeof x);
            rejected += rope_cache_with(c, s, 4, 2, 0, positions, 4, f, 1.0, precision) ==
                        POSENC_ERR_INVALID_ARGUMENT;
            rejected += rope_apply_with(x, 8, 1, 2, 1, 4, 4, POSENC_ROPE_HALF, f, 1.0, 0, positions, 2,
                                          precision) == POSENC_ERR_INVALID_ARGUMENT;
            untouched &= c[0] == c[3] && x[0] == x[7];
            cases += 2;
        }
        f[1] = 0.01;
        for (size_t i = 0; i < COUNT(bad_attention); i++) {
            rejected += rope_cache_with(c, s, 4, 2, 0, positions, 4, f, bad_attention[i], precision) ==
                        POSENC_ERR_INVALID_ARGUMENT;
            rejected += rope_apply_with(x, 8, 1, 2, 1, 4, 4, POSENC_ROPE_HALF, f, bad_attention[i], 0,
                                          positions, 2, precision) == POSENC_ERR_INVALID_ARGUMENT;
            cases += 2;
        }
    }
    CHECKF(rejected == cases, "%d of %d rejected", rejected, cases);
    CHECK(untouched);
    /* the largest allowed values still give finite caches at the extreme positions */
    f[1] = 0x1p64;
    int32_t extremes[2] = { INT32_MIN, INT32_MAX };
    int finite = 1;
    for (int precision = 0; precision < 2; precision++) {
        CHECK(rope_cache_with(c, s, 4, 2, 0, extremes, 4, f, FLT_MAX, precision) == POSENC_OK);
        for (int i = 0; i < 4; i++)
            finite &= isfinite(c[i]) && isfinite(s[i]);
    }
    CHECK(finite);
    /* rope_frequencies refuses scalings whose frequencies overflow that range */
    double inv[2], attention = 0;
    posenc_rope_scaling linear = { 0 };
    linear.type = POSENC_ROPE_LINEAR;
    linear.factor = 1e-300; /* f_0 = 1 / factor = 1e300 */
    CHECK(rope_freqs(inv, 2, 4, 0, &linear, 0, &attention) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(attention == 0);
    posenc_rope_scaling yarn = { 0 };
    yarn.type = POSENC_ROPE_YARN;
    yarn.factor = 4;
    yarn.original_max_position_embeddings = 4096;
    yarn.attention_factor = 1e300;
    CHECK(rope_freqs(inv, 2, 4, 0, &yarn, 0, &attention) == POSENC_ERR_INVALID_ARGUMENT);
}

/* A product with a zero factor is zero, whatever the others: a partial
 * product that overflows (heads * query_len with key_len = 0) used to make
 * alibi_bias answer POSENC_ERR_SIZE_OVERFLOW, which the JS binding (that
 * computes 0 elements) reported as an internal error. heads and batch are at
 * most 2^31 - 1 (their rows), so the partial products overflow wasm32's
 * size_t, not a 64-bit one. */
static void test_zero_products_do_not_overflow(void)
{
    float x[1] = { 5 };
    size_t big = INT32_MAX;
    CHECK(posenc_alibi_bias(x, 0, big, (size_t)1 << 31, 0, 0, 1, 0) == POSENC_OK);
    CHECK(posenc_add_sinusoidal(x, 0, big, 0, 4, POSENC_ORDER_SBD, 1.0f, 0, 0, 0) == POSENC_OK);
    CHECK(x[0] == 5);
    /* a true overflow is still one */
    CHECK(posenc_alibi_bias(x, 1, big, (size_t)1 << 31, (size_t)1 << 31, 0, 1, 0) == POSENC_ERR_SIZE_OVERFLOW);
}

void test_hardening(void)
{
    test_zero_products_do_not_overflow();
    test_empty_results_do_no_work();
    test_rope_rejects_overflowing_parameters();
}
