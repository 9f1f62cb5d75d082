/* test_biases.c: ALiBi, T5 and DeBERTa buckets, Transformer-XL's sinusoid.
 * Expected values are copied from tests/fixtures/reference.json or evaluated
 * here from the published formulas, never from posenc's own output. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "posenc.h"

#define COUNT(a) (sizeof(a) / sizeof(a)[0])

/* ---------------------------------------------------------------- ALiBi */

static void test_alibi_slopes(void)
{
    /* reference.json alibiSlopes (paper rule; non-powers of two unsorted) */
    static const double h3[] = { 0.0625, 0.00390625, 0.25 };
    static const double h6[] = { 0.25, 0.0625, 0.015625, 0.00390625, 0.5, 0.125 };
    static const double h12[] = { 0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125,
                                  0.00390625, 0.7071067811865475, 0.35355339059327373,
                                  0.17677669529663687, 0.08838834764831843 };
    static const double h6_16[] = { 0.0625, 0.00390625, 0.000244140625, 1.52587890625e-05,
                                    0.25, 0.015625 };
    double s[64];
    double worst = 0;
    CHECK(posenc_alibi_slopes(s, 3, 3, 8) == POSENC_OK && memcmp(s, h3, sizeof h3) == 0);
    CHECK(posenc_alibi_slopes(s, 6, 6, 0) == POSENC_OK && memcmp(s, h6, sizeof h6) == 0);
    CHECK(posenc_alibi_slopes(s, 6, 6, 16) == POSENC_OK && memcmp(s, h6_16, sizeof h6_16) == 0);
    CHECK(posenc_alibi_slopes(s, 64, 12, 8) == POSENC_OK);
    for (size_t h = 0; h < COUNT(h12); h++)
        worst = fmax(worst, fabs(s[h] - h12[h]) / h12[h]);
    CHECKF(worst <= 0x1p-52, "relative error %g", worst);
    /* a power of two: 2^(-8 (h+1) / 64) */
    CHECK(posenc_alibi_slopes(s, 64, 64, 8) == POSENC_OK);
    worst = 0;
    for (int h = 0; h < 64; h++)
        worst = fmax(worst, fabs(s[h] / exp2(-8.0 * (h + 1) / 64) - 1));
    CHECKF(worst <= 0x1p-52, "relative error %g", worst);

    /* bad input: nothing written */
    s[0] = 42;
    CHECK(posenc_alibi_slopes(s, 64, 0, 8) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_alibi_slopes(s, 64, 4, -1) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_alibi_slopes(s, 64, 4, NAN) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_alibi_slopes(s, 64, 4, INFINITY) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_alibi_slopes(s, 3, 4, 8) == POSENC_ERR_BUFFER_TOO_SMALL);
    CHECK(posenc_alibi_slopes(NULL, 4, 4, 8) == POSENC_ERR_NULL_POINTER);
    CHECK(s[0] == 42);
}

static void test_alibi_bias(void)
{
    enum { H = 3, Q = 5, K = 7 };
    static const double m[H] = { 0.0625, 0.00390625, 0.25 };
    float b[H * Q * K], row[H * K];
    for (int causal = 0; causal <= 1; causal++) {
        int ok = 1, neg_zero = 0;
        CHECK(posenc_alibi_bias(b, COUNT(b), H, Q, K, 2, causal, 8) == POSENC_OK);
        for (int h = 0; h < H; h++)
            for (int r = 0; r < Q; r++)
                for (int j = 0; j < K; j++) {
                    int i = 2 + r;
                    float v = b[(h * Q + r) * K + j];
                    float want = causal && j > i ? -INFINITY : (float)(-m[h] * abs(i - j));
                    ok &= v == want;
                    neg_zero |= v == 0 && signbit(v);
                }
        CHECKF(ok, "causal %d", causal);
        CHECK(!neg_zero);
        /* decoding: one query at offset 2 + r equals row r of the full matrix */
        ok = 1;
        for (int r = 0; r < Q; r++) {
            ok &= posenc_alibi_bias(row, COUNT(row), H, 1, K, 2 + r, causal, 8) == POSENC_OK;
            for (int h = 0; h < H; h++)
                ok &= memcmp(row + h * K, b + (h * Q + r) * K, K * sizeof *row) == 0;
        }
        CHECK(ok);
    }
    /* monotone: the bias never increases with the distance |i - j| */
    float w[4 * 64 * 64];
    int mono = 1;
    CHECK(posenc_alibi_bias(w, COUNT(w), 4, 64, 64, 0, 0, 8) == POSENC_OK);
    for (int h = 0; h < 4; h++)
        for (int i = 0; i < 64; i++)
            for (int j = 1; j < 64; j++) {
                const float *r = w + (h * 64 + i) * 64;
                mono &= j <= i ? r[j] >= r[j - 1] : r[j] <= r[j - 1];
            }
    CHECK(mono);
    /* the last position 2^31 - 1 */
    CHECK(posenc_alibi_bias(row, 2, 1, 1, 2, INT32_MAX, 1, 8) == POSENC_OK &&
          row[0] == (float)(-0x1p-8 * 2147483647.0) && row[1] == (float)(-0x1p-8 * 2147483646.0));

    /* bad input: nothing written */
    b[0] = 42;
    CHECK(posenc_alibi_bias(b, COUNT(b), 0, Q, K, 0, 1, 8) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_alibi_bias(b, COUNT(b), H, Q, K, -1, 1, 8) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_alibi_bias(b, COUNT(b), H, Q, K, 0, 2, 8) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_alibi_bias(b, COUNT(b), H, Q, K, 0, 1, NAN) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_alibi_bias(b, COUNT(b), H, 2, K, INT32_MAX, 1, 8) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_alibi_bias(b, COUNT(b) - 1, H, Q, K, 0, 1, 8) == POSENC_ERR_BUFFER_TOO_SMALL);
    CHECK(posenc_alibi_bias(b, COUNT(b), SIZE_MAX / 2, 2, 2, 0, 1, 8) == POSENC_ERR_INVALID_ARGUMENT); /* heads */
    CHECK(posenc_alibi_bias(b, COUNT(b), INT32_MAX, (size_t)1 << 31, (size_t)1 << 31, 0, 1, 8) ==
          POSENC_ERR_SIZE_OVERFLOW);
    CHECK(posenc_alibi_bias(NULL, COUNT(b), H, Q, K, 0, 1, 8) == POSENC_ERR_NULL_POINTER);
    CHECK(b[0] == 42);
    CHECK(posenc_alibi_bias(b, 0, H, 0, K, 0, 1, 8) == POSENC_OK && b[0] == 42);
}

/* ---------------------------------------------------------------- T5 */

/* the bucket of rel = key - query: a query at -rel against key 0, or a query
 * at 0 against keys 0..rel */
static int32_t t5_one(int64_t rel, int bidirectional, size_t nb, size_t md)
{
    static int32_t row[1 << 12];
    if (rel < 0)
        return posenc_t5_buckets(row, 1, 1, 1, bidirectional, nb, md, (int32_t)-rel) ? -1 : row[0];
    if (rel >= (int64_t)COUNT(row) ||
        posenc_t5_buckets(row, COUNT(row), 1, (size_t)rel + 1, bidirectional, nb, md, 0))
        return -1;
    return row[rel];
}

static void test_t5_buckets(void)
{
    /* reference.json t5Buckets tables at these key - query distances */
    static const int rel[] = { -1000, -129, -128, -127, -91, -90, -64, -63, -32, -31, -16,
                               -15, -8, -7, -1, 0, 1, 7, 8, 15, 16, 17, 31, 32, 63, 64,
                               90, 91, 127, 128, 1000 };
    static const struct {
        int bidirectional;
        size_t nb, md;
        int32_t want[31];
    } cases[] = {
        { 1, 32, 128, { 15, 15, 15, 15, 15, 14, 14, 13, 12, 11, 10, 9, 8, 7, 1, 0, 17, 23, 24, 25,
                        26, 26, 27, 28, 29, 30, 30, 31, 31, 31, 31 } },
        { 0, 32, 128, { 31, 31, 31, 31, 29, 29, 26, 26, 21, 21, 16, 15, 8, 7, 1, 0, 0, 0, 0, 0, 0,
                        0, 0, 0, 0, 0, 0, 0, 0, 0, 0 } },
        { 1, 16, 64, { 7, 7, 7, 7, 7, 7, 7, 7, 7, 6, 6, 5, 5, 4, 1, 0, 9, 12, 13, 13, 14, 14, 14,
                       15, 15, 15, 15, 15, 15, 15, 15 } },
        { 0, 15, 64, { 14, 14, 14, 14, 14, 14, 14, 14, 12, 12, 9, 9, 7, 7, 1, 0, 0, 0, 0, 0, 0, 0,
                       0, 0, 0, 0, 0, 0, 0, 0, 0 } },
    };
    for (size_t c = 0; c < COUNT(cases); c++) {
        int ok = 1;
        for (size_t i = 0; i < COUNT(rel); i++)
            ok &= t5_one(rel[i], cases[c].bidirectional, cases[c].nb, cases[c].md) == cases[c].want[i];
        CHECKF(ok, "case %zu", c);
    }
    /* the defaults (0) are 32 / 128; the exact-integer log points 16, 32, 64 */
    CHECK(t5_one(16, 1, 0, 0) == 26 && t5_one(32, 1, 0, 0) == 28 && t5_one(64, 1, 0, 0) == 30);
    CHECK(t5_one(-16, 1, 0, 0) == 10 && t5_one(-32, 1, 0, 0) == 12 && t5_one(-64, 1, 0, 0) == 14);

    /* long-distance sweep: monotone in |rel|, in range, saturating at the last bucket */
    static int32_t wide[1 << 16];
    for (int bi = 0; bi <= 1; bi++) {
        int ok = 1;
        int32_t prev = 0, q[1];
        /* key 0 against a query at d: rel = -d, d up to 2^31 - 1 */
        for (int64_t d = 0;;) {
            ok &= posenc_t5_buckets(q, 1, 1, 1, bi, 32, 128, (int32_t)d) == POSENC_OK;
            ok &= q[0] >= prev && q[0] < (bi ? 16 : 32);
            prev = q[0];
            if (d == INT32_MAX)
                break;
            d = d < 4096 ? d + 1 : (d * 5 / 4 < INT32_MAX ? d * 5 / 4 : INT32_MAX);
        }
        CHECKF(ok && prev == (bi ? 15 : 31), "bidirectional %d: last %d", bi, prev);
        /* a query at 0 against keys 0 .. 65535: rel = +j */
        CHECK(posenc_t5_buckets(wide, COUNT(wide), 1, COUNT(wide), bi, 32, 128, 0) == POSENC_OK);
        ok = wide[0] == 0;
        for (size_t j = 1; j < COUNT(wide); j++)
            ok &= bi ? wide[j] >= wide[j - 1] && wide[j] >= 17 && wide[j] < 32 : wide[j] == 0;
        CHECKF(ok && wide[COUNT(wide) - 1] == (bi ? 31 : 0), "bidirectional %d", bi);
    }

    /* matrix = per-row decoding, every bucket in range, offsets up to int32 */
    enum { Q = 6, K = 300 };
    static int32_t mat[Q * K], one[K];
    for (int bi = 0; bi <= 1; bi++) {
        int ok = 1;
        CHECK(posenc_t5_buckets(mat, COUNT(mat), Q, K, bi, 32, 128, 150) == POSENC_OK);
        for (int r = 0; r < Q; r++) {
            ok &= posenc_t5_buckets(one, K, 1, K, bi, 32, 128, 150 + r) == POSENC_OK;
            ok &= memcmp(one, mat + r * K, sizeof one) == 0;
            for (int j = 0; j < K; j++)
                ok &= mat[r * K + j] >= 0 && mat[r * K + j] < 32;
        }
        CHECKF(ok, "bidirectional %d", bi);
    }
    CHECK(posenc_t5_buckets(one, 2, 1, 2, 1, 32, 128, INT32_MAX) == POSENC_OK && one[0] == 15 &&
          one[1] == 15);

    /* bad input: nothing written */
    mat[0] = 42;
    CHECK(posenc_t5_buckets(mat, COUNT(mat), Q, K, 1, 31, 128, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_t5_buckets(mat, COUNT(mat), Q, K, 1, 2, 128, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_t5_buckets(mat, COUNT(mat), Q, K, 0, 1, 128, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_t5_buckets(mat, COUNT(mat), Q, K, 1, 32, 8, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_t5_buckets(mat, COUNT(mat), Q, K, 0, 32, 16, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_t5_buckets(mat, COUNT(mat), Q, K, 2, 32, 128, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_t5_buckets(mat, COUNT(mat), Q, K, 1, 32, 128, -1) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_t5_buckets(mat, COUNT(mat), Q, K, 1, 32, 128, INT32_MAX) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_t5_buckets(mat, COUNT(mat), Q, K, 1, (size_t)INT32_MAX + 1, 128, 0) ==
          POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_t5_buckets(mat, COUNT(mat) - 1, Q, K, 1, 32, 128, 0) == POSENC_ERR_BUFFER_TOO_SMALL);
    CHECK(posenc_t5_buckets(mat, COUNT(mat), SIZE_MAX / 2, 4, 1, 32, 128, 0) ==
          POSENC_ERR_INVALID_ARGUMENT); /* positions beyond int32 */
    CHECK(posenc_t5_buckets(NULL, COUNT(mat), Q, K, 1, 32, 128, 0) == POSENC_ERR_NULL_POINTER);
    CHECK(mat[0] == 42);
    /* the smallest valid configurations */
    CHECK(posenc_t5_buckets(one, 4, 1, 4, 1, 4, 2, 1) == POSENC_OK && one[0] == 1 && one[1] == 0 &&
          one[2] == 3 && one[3] == 3);
    CHECK(posenc_t5_buckets(one, 3, 3, 1, 0, 2, 2, 0) == POSENC_OK && one[0] == 0 && one[1] == 1 &&
          one[2] == 1);
}

static void test_t5_bias(void)
{
    enum { H = 3, NB = 32, Q = 5, K = 40 };
    float weights[NB * H], out[H * Q * K];
    static int32_t buckets[Q * K];
    for (int b = 0; b < NB; b++)
        for (int h = 0; h < H; h++)
            weights[b * H + h] = (float)(100 * b + h) + 0.5f;
    for (int bi = 0; bi <= 1; bi++) {
        int ok = 1;
        CHECK(posenc_t5_buckets(buckets, COUNT(buckets), Q, K, bi, NB, 128, 7) == POSENC_OK);
        CHECK(posenc_t5_bias(out, COUNT(out), weights, COUNT(weights), H, Q, K, bi, NB, 128, 7) ==
              POSENC_OK);
        for (int h = 0; h < H; h++)
            for (int i = 0; i < Q * K; i++)
                ok &= out[h * Q * K + i] == weights[buckets[i] * H + h];
        CHECKF(ok, "bidirectional %d", bi);
        /* monotone in distance: buckets (hence 100 * b + h) never fall as |rel| grows on a side */
        int mono = 1;
        for (int r = 0; r < Q; r++)
            for (int j = 1; j < K; j++) {
                const float *row = out + r * K; /* head 0 */
                int rel = j - (7 + r);
                if (rel > 1 && bi)
                    mono &= row[j] >= row[j - 1];
                if (rel <= 0)
                    mono &= row[j] <= row[j - 1];
            }
        CHECK(mono);
    }
    /* one query row; a 1 x 1 matrix */
    CHECK(posenc_t5_bias(out, 3, weights, COUNT(weights), H, 1, 1, 1, NB, 128, 0) == POSENC_OK &&
          out[0] == 0.5f && out[1] == 1.5f && out[2] == 2.5f);
    out[0] = 42;
    CHECK(posenc_t5_bias(out, COUNT(out), weights, COUNT(weights) - 1, H, Q, K, 1, NB, 128, 0) ==
          POSENC_ERR_BUFFER_TOO_SMALL);
    CHECK(posenc_t5_bias(out, COUNT(out), weights, COUNT(weights), 0, Q, K, 1, NB, 128, 0) ==
          POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_t5_bias(out, COUNT(out), NULL, COUNT(weights), H, Q, K, 1, NB, 128, 0) ==
          POSENC_ERR_NULL_POINTER);
    CHECK(posenc_t5_bias(out, COUNT(out), weights, COUNT(weights), H, Q, K, 1, 33, 128, 0) ==
          POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_t5_bias(out, COUNT(out), weights, SIZE_MAX, SIZE_MAX / 16, 1, 1, 1, NB, 128, 0) ==
          POSENC_ERR_INVALID_ARGUMENT); /* heads */
    CHECK(posenc_t5_bias(out, COUNT(out), weights, SIZE_MAX, INT32_MAX, (size_t)1 << 31, (size_t)1 << 31, 1, NB,
                         128, 0) == POSENC_ERR_SIZE_OVERFLOW);
    CHECK(out[0] == 42);
}

/* ---------------------------------------------------------------- DeBERTa-v2 */

static void test_deberta_buckets(void)
{
    /* reference.json debertaBuckets tables at these query - key distances */
    static const int rel[] = { -2000, -1471, -512, -511, -300, -129, -128, -5, -4, -3, 0, 3, 4,
                               5, 8, 9, 15, 16, 17, 128, 129, 300, 511, 512, 1471, 2000 };
    static const int32_t want256[] = { -381, -352, -256, -255, -207, -129, -128, -5, -4, -3, 0,
                                       3, 4, 5, 8, 9, 15, 16, 17, 128, 129, 207, 255, 256, 352,
                                       381 };
    static const int32_t want8[] = { -19, -18, -16, -16, -14, -12, -12, -5, -4, -3, 0, 3, 4,
                                     5, 6, 6, 7, 8, 8, 12, 12, 14, 16, 16, 18, 19 };
    static int32_t col[2001], row[2001];
    /* column 0 of a [2001][1] matrix is bucket(q - 0) = bucket(q); row 0 of [1][2001] is bucket(-k) */
    CHECK(posenc_deberta_buckets(col, COUNT(col), 2001, 1, 0, 0) == POSENC_OK);
    CHECK(posenc_deberta_buckets(row, COUNT(row), 1, 2001, 256, 512) == POSENC_OK);
    int ok = 1;
    for (size_t i = 0; i < COUNT(rel); i++)
        ok &= (rel[i] >= 0 ? col[rel[i]] : row[-rel[i]]) == want256[i];
    CHECK(ok);
    CHECK(posenc_deberta_buckets(col, COUNT(col), 2001, 1, 8, 16) == POSENC_OK);
    CHECK(posenc_deberta_buckets(row, COUNT(row), 1, 2001, 8, 16) == POSENC_OK);
    ok = 1;
    for (size_t i = 0; i < COUNT(rel); i++)
        ok &= (rel[i] >= 0 ? col[rel[i]] : row[-rel[i]]) == want8[i];
    CHECK(ok);

    /* float32, not float64: the first distance where they differ (reference.json precisionAudit) */
    static int32_t far[65318];
    CHECK(posenc_deberta_buckets(far, COUNT(far), COUNT(far), 1, 256, 512) == POSENC_OK &&
          far[65317] == 700);

    /* matrix [q][k] = bucket(q - k): antisymmetric, Toeplitz, monotone in q - k */
    enum { Q = 40, K = 700 };
    static int32_t m[Q * K];
    CHECK(posenc_deberta_buckets(m, COUNT(m), Q, K, 256, 512) == POSENC_OK);
    CHECK(posenc_deberta_buckets(row, COUNT(row), 1, K, 256, 512) == POSENC_OK);
    ok = 1;
    for (int q = 0; q < Q; q++)
        for (int k = 0; k < K; k++) {
            int32_t v = m[q * K + k];
            ok &= (k >= q ? v == row[k - q] : v == -row[q - k]);
            ok &= k == 0 || v <= m[q * K + k - 1];
        }
    CHECK(ok);
    /* the longest distances */
    int32_t e[2];
    CHECK(posenc_deberta_buckets(e, 2, 1, 2, 256, 512) == POSENC_OK && e[0] == 0 && e[1] == -1);

    /* bad input */
    m[0] = 42;
    CHECK(posenc_deberta_buckets(m, COUNT(m), Q, K, 1, 512) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_deberta_buckets(m, COUNT(m), Q, K, 256, 129) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_deberta_buckets(m, COUNT(m), Q, K, 256, 100) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_deberta_buckets(m, COUNT(m), Q, K, (size_t)INT32_MAX + 1, 0) ==
          POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_deberta_buckets(m, COUNT(m) - 1, Q, K, 256, 512) == POSENC_ERR_BUFFER_TOO_SMALL);
    CHECK(posenc_deberta_buckets(NULL, COUNT(m), Q, K, 256, 512) == POSENC_ERR_NULL_POINTER);
    /* a float32 denominator log(f32((2^29 + 1) / 2^29)) = log(1) = 0 */
    CHECK(posenc_deberta_buckets(m, COUNT(m), Q, K, 1u << 30, (1u << 29) + 2) ==
          POSENC_ERR_INVALID_ARGUMENT);
    /* mid = 2^22: a denominator of 2.4e-7; at |q - k| = 2^23 the bucket is ~1e13, beyond int32 */
    CHECK(posenc_deberta_buckets(m, COUNT(m), (1u << 23) + 1, 1, 1u << 23, (1u << 22) + 2) ==
          POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_deberta_buckets(m, COUNT(m), 1, (1u << 23) + 1, 1u << 23, (1u << 22) + 2) ==
          POSENC_ERR_INVALID_ARGUMENT);
    CHECK(m[0] == 42);
    CHECK(posenc_deberta_buckets(e, 2, 2, 1, 1u << 23, (1u << 22) + 2) == POSENC_OK && e[1] == 1);
    CHECK(posenc_deberta_buckets(e, 2, 1, 2, 2, 3) == POSENC_OK && e[0] == 0 && e[1] == -1);
}

/* One relative position: reference.json's buckets, as floats, with no int32 cast. */
static void test_deberta_bucket(void)
{
    static const int32_t rel[] = { -2000, -512, -511, -300, -129, -128, 0, 3, 128, 129, 300, 511, 512, 2000 };
    static const float want[] = { -381, -256, -255, -207, -129, -128, 0, 3, 128, 129, 207, 255, 256, 381 };
    float v = 0;
    int ok = 1;
    for (size_t i = 0; i < COUNT(rel); i++)
        ok &= posenc_deberta_bucket(&v, rel[i], 256, 512) == POSENC_OK && v == want[i];
    CHECK(ok);
    CHECK(posenc_deberta_bucket(&v, -2000, 0, 0) == POSENC_OK && v == -381); /* the defaults */
    CHECK(posenc_deberta_bucket(&v, 65317, 256, 512) == POSENC_OK && v == 700); /* float32's answer */

    /* the values of posenc_deberta_buckets' matrix, row 0 and column 0 */
    enum { N = 3000 };
    static int32_t col[N], row[N];
    CHECK(posenc_deberta_buckets(col, N, N, 1, 16, 40) == POSENC_OK);
    CHECK(posenc_deberta_buckets(row, N, 1, N, 16, 40) == POSENC_OK);
    ok = 1;
    for (int32_t d = 0; d < N; d++) {
        float up = 0, down = 0;
        ok &= posenc_deberta_bucket(&up, d, 16, 40) == POSENC_OK && up == (float)col[d];
        ok &= posenc_deberta_bucket(&down, -d, 16, 40) == POSENC_OK && down == (float)row[d];
    }
    CHECK(ok);

    /* beyond int32, where posenc_deberta_buckets refuses the matrix: mid = 2^22, a
     * denominator of 2.4e-7, |q - k| = 2^23 gives about 1e13 */
    CHECK(posenc_deberta_bucket(&v, 1 << 23, 1u << 23, (1u << 22) + 2) == POSENC_OK && v > 2147483648.0f);
    CHECK(posenc_deberta_bucket(&v, -(1 << 23), 1u << 23, (1u << 22) + 2) == POSENC_OK && v < -2147483648.0f);
    CHECK(posenc_deberta_bucket(&v, INT32_MIN, 256, 512) == POSENC_OK && v < 0);

    /* bad input: nothing written */
    v = 42;
    CHECK(posenc_deberta_bucket(&v, 0, 1, 512) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_deberta_bucket(&v, 0, 256, 129) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_deberta_bucket(&v, 0, (size_t)INT32_MAX + 1, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_deberta_bucket(&v, 0, 256, (size_t)INT32_MAX + 1) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_deberta_bucket(&v, 0, 1u << 30, (1u << 29) + 2) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(v == 42);
    CHECK(posenc_deberta_bucket(NULL, 0, 256, 512) == POSENC_ERR_NULL_POINTER);
}

/* ---------------------------------------------------------------- Transformer-XL */

static double xl_expected(int pos, int col, int d)
{
    int k = col < d / 2 ? col : col - d / 2;
    double f = 1.0 / pow(10000.0, (double)(2 * k) / d);
    return col < d / 2 ? sin(pos * f) : cos(pos * f);
}

static void test_transformer_xl(void)
{
    /* reference.json transformerXLEmbedding, keyLength 5, dModel 8, row 3 (position 1) */
    static const double row3[8] = { 0.8414709848078965, 0.09983341664682815, 0.009999833334166664,
                                    0.0009999998333333417, 0.5403023058681398, 0.9950041652780258,
                                    0.9999500004166653, 0.9999995000000417 };
    float t[5 * 8];
    double worst = 0;
    CHECK(posenc_transformer_xl_embedding(t, 40, 5, 8, 0) == POSENC_OK);
    for (int k = 0; k < 8; k++)
        worst = fmax(worst, fabs(t[3 * 8 + k] - row3[k]));
    CHECKF(worst <= 0x1p-24, "error %g", worst);
    /* clamp 2: rows at positions 2 2 2 1 0 */
    float c[5 * 8];
    static const int clamped[5] = { 2, 2, 2, 1, 0 };
    CHECK(posenc_transformer_xl_embedding(c, 40, 5, 8, 2) == POSENC_OK);
    CHECK(memcmp(c, c + 2 * 8, 8 * sizeof *c) == 0 && memcmp(c + 8, c + 2 * 8, 8 * sizeof *c) == 0);
    worst = 0;
    for (int r = 0; r < 5; r++)
        for (int k = 0; k < 8; k++)
            worst = fmax(worst, fabs(c[r * 8 + k] - xl_expected(clamped[r], k, 8)) +
                                    fabs(t[r * 8 + k] - xl_expected(4 - r, k, 8)));
    CHECKF(worst <= 0x1p-24, "error %g", worst);

    /* long tables: within 2^-23 of the double formula at every row */
    enum { L = 70000, D = 10 };
    float *big = malloc(sizeof *big * L * D);
    CHECK(big != NULL);
    if (big) {
        for (int clamp = 0; clamp <= 60000; clamp += 60000) {
            worst = 0;
            CHECK(posenc_transformer_xl_embedding(big, (size_t)L * D, L, D, clamp) == POSENC_OK);
            for (int r = 0; r < L; r++) {
                int pos = L - 1 - r;
                if (clamp && pos > clamp)
                    pos = clamp;
                for (int k = 0; k < D; k++)
                    worst = fmax(worst, fabs(big[(size_t)r * D + k] - xl_expected(pos, k, D)));
            }
            CHECKF(worst <= 0x1p-23, "clamp %d: error %g", clamp, worst);
        }
        free(big);
    }

    /* bad input */
    t[0] = 42;
    CHECK(posenc_transformer_xl_embedding(t, 40, 5, 7, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_transformer_xl_embedding(t, 40, 5, 0, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_transformer_xl_embedding(t, 40, 5, 8, -1) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_transformer_xl_embedding(t, 39, 5, 8, 0) == POSENC_ERR_BUFFER_TOO_SMALL);
    CHECK(posenc_transformer_xl_embedding(t, 40, SIZE_MAX / 4, 8, 0) ==
          (sizeof(size_t) > 4 ? POSENC_ERR_INVALID_ARGUMENT : POSENC_ERR_SIZE_OVERFLOW));
    CHECK(posenc_transformer_xl_embedding(NULL, 40, 5, 8, 0) == POSENC_ERR_NULL_POINTER);
    CHECK(t[0] == 42);
    CHECK(posenc_transformer_xl_embedding(t, 0, 0, 8, 0) == POSENC_OK && t[0] == 42);
}

void test_biases(void)
{
    test_alibi_slopes();
    test_alibi_bias();
    test_t5_buckets();
    test_t5_bias();
    test_deberta_buckets();
    test_deberta_bucket();
    test_transformer_xl();
}
