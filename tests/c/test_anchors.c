/* test_anchors.c: the rows that the sin/cos recurrence (src/trig.c) does not
 * step to, but computes directly: the first row of a call or of a run of
 * consecutive positions, and every position that is a multiple of 1024,
 * position 0 among them. Each equals sin and cos of the double angle p * w,
 * rounded once to float, so position 0 is exactly sin 0 = 0, cos 0 = 1 in
 * every layout, ascending (negative offsets) or descending (Transformer-XL).
 * Before, a table that walked through 0 stepped to it: sin 0 came out as
 * 1.1e-16 and cos 0 as 1 - 1.1e-16. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rope_calls.h"
#include "posenc.h"

#define ANCHOR_EVERY 1024

static int is_anchor(int64_t p, size_t row)
{
    return row == 0 || p % ANCHOR_EVERY == 0;
}

/* Same bits: +0 is not -0. */
static int same(float a, float b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* ---------------------------------------------------------------- tables */

/* Column k of a sinusoidal row: the frequency index i, sine or cosine, or a zero column. */
typedef struct column { size_t i; int cosine, zero; } column;

static column column_of(int layout, size_t d, size_t k)
{
    size_t half = d / 2;
    column c = { 0, 0, 0 };
    if (layout == POSENC_LAYOUT_INTERLEAVED) {
        c.i = k / 2, c.cosine = (int)(k % 2);
    } else if (layout == POSENC_LAYOUT_CONCATENATED) {
        size_t n_sin = d - half;
        c.cosine = k >= n_sin, c.i = c.cosine ? k - n_sin : k;
    } else {
        c.zero = k >= 2 * half, c.cosine = k >= half, c.i = c.cosine ? k - half : k;
    }
    return c;
}

/* Every anchor row of a table (row r at position offset + r) against the
 * direct evaluation; position 0 exactly 0 and 1. */
static int table_anchors_direct(const float *t, size_t length, size_t d, int32_t offset, int layout,
                                const double *w, size_t row_stride, size_t copies, size_t copy_stride)
{
    int ok = 1;
    for (size_t r = 0; r < length; r++) {
        int64_t p = (int64_t)offset + (int64_t)r;
        if (!is_anchor(p, r))
            continue;
        for (size_t b = 0; b < copies; b++)
            for (size_t k = 0; k < d; k++) {
                column c = column_of(layout, d, k);
                double angle = (double)p * w[c.i];
                float want = c.zero ? 0.0f : (float)(c.cosine ? cos(angle) : sin(angle));
                if (p == 0)
                    ok &= same(want, c.cosine && !c.zero ? 1.0f : 0.0f); /* the reference itself */
                ok &= same(t[b * copy_stride + r * row_stride + k], want);
            }
    }
    return ok;
}

static void test_sinusoidal_anchors(void)
{
    static const size_t dims[] = { 7, 64, 300 }; /* 300: frequencies in more than one block */
    static const int32_t offsets[] = { -1, -5, -1023, -1024, -1025, -2500, 1000003 };
    enum { LENGTH = 3100 };
    float *t = malloc(sizeof *t * LENGTH * 300);
    double w[150];
    if (!t)
        return;
    for (int layout = 0; layout < 4; layout++)
        for (size_t di = 0; di < 3; di++)
            for (size_t oi = 0; oi < 7; oi++) {
                size_t d = dims[di];
                if (layout == POSENC_LAYOUT_FAIRSEQ && d < 4)
                    continue;
                int st = posenc_sinusoidal(t, LENGTH * d, LENGTH, d, 0, offsets[oi], layout);
                CHECK(posenc_sinusoidal_frequencies(w, 150, d, 0, layout) == POSENC_OK);
                CHECKF(st == POSENC_OK && table_anchors_direct(t, LENGTH, d, offsets[oi], layout, w, d, 1, 0),
                       "layout %d d %zu offset %d", layout, d, offsets[oi]);
            }
    free(t);
}

/* add_sinusoidal on zeros with scale 1 writes the table itself, in each copy. */
static void test_add_sinusoidal_anchors(void)
{
    enum { BATCH = 3, SEQ = 2100, D = 20 };
    float *x = malloc(sizeof *x * BATCH * SEQ * D);
    double w[10];
    if (!x)
        return;
    CHECK(posenc_sinusoidal_frequencies(w, 10, D, 0, POSENC_LAYOUT_INTERLEAVED) == POSENC_OK);
    for (int order = 0; order < 2; order++) {
        memset(x, 0, sizeof *x * BATCH * SEQ * D);
        int st = posenc_add_sinusoidal(x, BATCH * SEQ * D, BATCH, SEQ, D, order, 1.0f, 0, -1030,
                                       POSENC_LAYOUT_INTERLEAVED);
        size_t row_stride = order == POSENC_ORDER_BSD ? D : BATCH * D;
        size_t copy_stride = order == POSENC_ORDER_BSD ? SEQ * D : D;
        CHECKF(st == POSENC_OK && table_anchors_direct(x, SEQ, D, -1030, POSENC_LAYOUT_INTERLEAVED, w, row_stride,
                                                       BATCH, copy_stride),
               "order %d", order);
    }
    free(x);
}

/* Transformer-XL walks down: row r holds position top - r, clamped. */
static void test_transformer_xl_anchors(void)
{
    static const size_t lengths[] = { 2, 5, 1025, 3000 };
    static const int32_t clamps[] = { 0, 3, 2000 };
    enum { D = 16 };
    float *t = malloc(sizeof *t * 3000 * D);
    double w[D / 2];
    if (!t)
        return;
    for (size_t k = 0; k < D / 2; k++) /* mem_transformer.py: 1 / 10000^(arange(0, d, 2) / d) */
        w[k] = 1.0 / pow(10000.0, (double)(2 * k) / D);
    for (size_t li = 0; li < 4; li++)
        for (size_t ci = 0; ci < 3; ci++) {
            size_t len = lengths[li];
            int32_t clamp = clamps[ci];
            int ok = posenc_transformer_xl_embedding(t, len * D, len, D, clamp) == POSENC_OK;
            size_t first = clamp > 0 && len - 1 > (size_t)clamp ? len - 1 - (size_t)clamp : 0;
            for (size_t r = 0; r < len; r++) {
                int64_t p = (int64_t)(len - 1 - r);
                if (clamp > 0 && p > clamp)
                    p = clamp;
                if (!(r <= first || p % ANCHOR_EVERY == 0))
                    continue;
                for (size_t k = 0; k < D / 2; k++) {
                    ok &= same(t[r * D + k], (float)sin((double)p * w[k]));
                    ok &= same(t[r * D + D / 2 + k], (float)cos((double)p * w[k]));
                }
            }
            /* the last row is position 0 */
            for (size_t k = 0; k < D; k++)
                ok &= same(t[(len - 1) * D + k], k < D / 2 ? 0.0f : 1.0f);
            CHECKF(ok, "key_len %zu clamp %d", len, clamp);
        }
    free(t);
}

/* ---------------------------------------------------------------- RoPE */

static const double rope_freq[4] = { 1.0, 0.17782794100389229, 0.031622776601683791, 0.0056234132519034911 };

/* cos and sin rows of a cache at anchor rows (rows with positions[r], or offset + r). */
static int cache_anchors_direct(const float *c, const float *s, size_t length, const int32_t *positions,
                                int32_t offset, double a, int precision)
{
    int ok = 1;
    for (size_t r = 0; r < length; r++) {
        int64_t p = positions ? positions[r] : (int64_t)offset + (int64_t)r;
        int run_start = r == 0 || (positions && positions[r] != positions[r - 1] + 1);
        if (!run_start && p % ANCHOR_EVERY != 0 && precision == POSENC_ROPE_PRECISION_FLOAT64)
            continue; /* the float32 recipe computes every row directly: all checked */
        for (size_t k = 0; k < 4; k++) {
            float want_c, want_s;
            if (precision == POSENC_ROPE_PRECISION_FLOAT64) {
                want_c = (float)(a * cos((double)p * rope_freq[k]));
                want_s = (float)(a * sin((double)p * rope_freq[k]));
            } else {
                float angle = (float)p * (float)rope_freq[k];
                want_c = (float)cos((double)angle) * (float)a;
                want_s = (float)sin((double)angle) * (float)a;
            }
            ok &= same(c[r * 4 + k], want_c) && same(s[r * 4 + k], want_s);
            if (p == 0)
                ok &= same(c[r * 4 + k], (float)a) && same(s[r * 4 + k], 0.0f);
        }
    }
    return ok;
}

static void test_rope_cache_anchors(void)
{
    enum { LEN = 2600 };
    static float c[LEN * 4], s[LEN * 4];
    static int32_t listed[LEN];
    static const double factors[] = { 1.0, 1.25 };
    for (size_t r = 0; r < LEN; r++) /* runs crossing 0: -3..3, then 7, then -1030 onwards */
        listed[r] = r < 7 ? (int32_t)r - 3 : r == 7 ? 7 : (int32_t)r - 1038;
    for (int precision = 0; precision < 2; precision++)
        for (size_t fi = 0; fi < 2; fi++) {
            double a = factors[fi];
            CHECKF(rope_cache_with(c, s, LEN * 4, LEN, -1500, NULL, 8, rope_freq, a, precision) == POSENC_OK &&
                       cache_anchors_direct(c, s, LEN, NULL, -1500, a, precision),
                   "offset, precision %d, A %g", precision, a);
            CHECKF(rope_cache_with(c, s, LEN * 4, LEN, 0, listed, 8, rope_freq, a, precision) == POSENC_OK &&
                       cache_anchors_direct(c, s, LEN, listed, 0, a, precision),
                   "listed, precision %d, A %g", precision, a);
        }
}

/* x rotated at an anchor row equals the rotation (as the kernel rounds it:
 * a' = float(a c) - float(b s), b' = float(b c) + float(a s)) by the direct
 * c and s; at position 0 that is the identity. With a = 0, b = 1 a stepped
 * sin 0 = 1.1e-16 showed as a' = -1.1e-16. */
static int rotated_directly(const float *x, const float *was, int64_t p, int layout, int precision)
{
    int ok = 1;
    for (size_t h = 0; h < 2; h++)
        for (size_t k = 0; k < 4; k++) {
            size_t i = layout == POSENC_ROPE_HALF ? k : 2 * k, j = layout == POSENC_ROPE_HALF ? k + 4 : 2 * k + 1;
            float c, s;
            if (precision == POSENC_ROPE_PRECISION_FLOAT64) {
                c = (float)cos((double)p * rope_freq[k]), s = (float)sin((double)p * rope_freq[k]);
            } else {
                float angle = (float)p * (float)rope_freq[k];
                c = (float)cos((double)angle), s = (float)sin((double)angle);
            }
            float a = was[h * 8 + i], b = was[h * 8 + j];
            float ac = a * c, bs = b * s, bc = b * c, as = a * s;
            ok &= same(x[h * 8 + i], ac - bs) && same(x[h * 8 + j], bc + as);
            if (p == 0)
                ok &= same(x[h * 8 + i], a) && same(x[h * 8 + j], b);
        }
    return ok;
}

static void test_rope_apply_anchors(void)
{
    enum { BATCH = 2, SEQ = 2100, HEADS = 2, HD = 8, ROW = HEADS * HD };
    size_t n = (size_t)BATCH * SEQ * ROW;
    float *x = malloc(sizeof *x * n), *was = malloc(sizeof *x * n);
    static int32_t positions[BATCH * SEQ];
    if (!x || !was) {
        free(x);
        free(was);
        return;
    }
    for (size_t r = 0; r < SEQ; r++) /* batch 0 from -1050, batch 1 from -7 */
        positions[r] = (int32_t)r - 1050, positions[SEQ + r] = (int32_t)r - 7;
    for (int layout = 0; layout < 2; layout++)
        for (int precision = 0; precision < 2; precision++)
            for (int listed = 0; listed < 2; listed++) {
                for (size_t i = 0; i < n; i++) /* every pair (a, b) = (0, 1) */
                    was[i] = (float)(layout == POSENC_ROPE_HALF ? (i % HD) / 4 : i % 2);
                memcpy(x, was, sizeof *x * n);
                int ok = rope_apply_with(x, n, BATCH, SEQ, HEADS, HD, HD, layout, rope_freq, 1.0,
                                           listed ? 0 : -1050, listed ? positions : NULL,
                                           listed ? BATCH * SEQ : 0, precision) == POSENC_OK;
                for (size_t b = 0; b < BATCH; b++)
                    for (size_t r = 0; r < SEQ; r++) {
                        int64_t p = listed ? positions[b * SEQ + r] : (int64_t)r - 1050;
                        if (is_anchor(p, r) || precision == POSENC_ROPE_PRECISION_FLOAT32)
                            ok &= rotated_directly(x + (b * SEQ + r) * ROW, was + (b * SEQ + r) * ROW, p, layout,
                                                   precision);
                    }
                CHECKF(ok, "layout %d precision %d listed %d", layout, precision, listed);
            }
    free(x);
    free(was);
}

void test_anchors(void)
{
    test_sinusoidal_anchors();
    test_add_sinusoidal_anchors();
    test_transformer_xl_anchors();
    test_rope_cache_anchors();
    test_rope_apply_anchors();
}
