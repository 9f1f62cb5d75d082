/* Sinusoidal tables against the formulas of posenc.h evaluated in double. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "posenc.h"

#define ULP1 (1.0 / 8388608.0) /* 2^-23, the accuracy contract */

/* The reference: PE(p, k) straight from the formula, in double. */
static double reference(int layout, size_t d, double base, double p, size_t k)
{
    size_t half = d / 2;
    if (layout == POSENC_LAYOUT_INTERLEAVED) {
        double w = pow(base, -(double)(k - k % 2) / (double)d);
        return k % 2 ? cos(p * w) : sin(p * w);
    }
    if (layout == POSENC_LAYOUT_CONCATENATED) {
        size_t n_sin = d - half;
        size_t i = k < n_sin ? k : k - n_sin;
        double w = pow(base, -2.0 * (double)i / (double)d);
        return k < n_sin ? sin(p * w) : cos(p * w);
    }
    /* tensor2tensor / fairseq */
    if (k >= 2 * half)
        return 0.0;
    size_t i = k < half ? k : k - half;
    double inc = log(base) / (half > 1 ? (double)(half - 1) : 1.0);
    double w = exp(-(double)i * inc);
    return k < half ? sin(p * w) : cos(p * w);
}

static double max_error(const float *t, int layout, size_t len, size_t d, double base,
                        int32_t offset)
{
    double worst = 0;
    for (size_t r = 0; r < len; r++)
        for (size_t k = 0; k < d; k++) {
            double e = fabs((double)t[r * d + k] - reference(layout, d, base, (double)offset + (double)r, k));
            if (e > worst || isnan(e))
                worst = isnan(e) ? INFINITY : e;
        }
    return worst;
}

static void test_layouts_against_formula(void)
{
    static const size_t dims[] = { 1, 2, 3, 4, 5, 6, 7, 20, 64, 129, 300 };
    static const int layouts[] = { POSENC_LAYOUT_INTERLEAVED, POSENC_LAYOUT_CONCATENATED,
                                   POSENC_LAYOUT_TENSOR2TENSOR, POSENC_LAYOUT_FAIRSEQ };
    static const int32_t offsets[] = { 0, 1000, 1 << 20, -77 };
    const size_t len = 70; /* spans more than two recurrence anchors */
    float *t = malloc(len * 300 * sizeof *t);
    for (size_t li = 0; li < 4; li++)
        for (size_t di = 0; di < sizeof dims / sizeof *dims; di++)
            for (size_t oi = 0; oi < 4; oi++) {
                size_t d = dims[di];
                int st = posenc_sinusoidal(t, len * d, len, d, 0, offsets[oi], layouts[li]);
                if (layouts[li] == POSENC_LAYOUT_FAIRSEQ && d < 4) {
                    CHECKF(st == POSENC_ERR_INVALID_ARGUMENT, "fairseq d=%zu", d);
                    continue;
                }
                double e = max_error(t, layouts[li], len, d, 10000.0, offsets[oi]);
                CHECKF(st == POSENC_OK && e <= ULP1, "layout %d d=%zu offset %d: status %d error %g",
                       layouts[li], d, offsets[oi], st, e);
            }
    free(t);
}

static void test_accuracy_long_positions(void)
{
    /* dense rows near 2^20 and 2^24, several widths and bases */
    static const double bases[] = { 10000.0, 500000.0, 2.0 };
    static const int32_t offsets[] = { (1 << 20) - 64, (1 << 24) - 64 };
    float *t = malloc(128 * 256 * sizeof *t);
    for (size_t bi = 0; bi < 3; bi++)
        for (size_t oi = 0; oi < 2; oi++) {
            int st = posenc_sinusoidal(t, 128 * 256, 128, 256, bases[bi], offsets[oi], 0);
            double e = max_error(t, 0, 128, 256, bases[bi], offsets[oi]);
            CHECKF(st == 0 && e <= ULP1, "base %g offset %d: error %g", bases[bi], offsets[oi], e);
        }
    free(t);
}

static void test_add(void)
{
    enum { B = 3, S = 5, D = 7 };
    float x[B * S * D], expect[B * S * D], pe[S * D];
    const float scale = sqrtf((float)D);
    for (int order = 0; order < 2; order++) {
        for (int i = 0; i < B * S * D; i++)
            x[i] = (float)i * 0.25f - 10.0f;
        posenc_sinusoidal(pe, S * D, S, D, 0, 3, POSENC_LAYOUT_TENSOR2TENSOR);
        for (int b = 0; b < B; b++)
            for (int s = 0; s < S; s++)
                for (int k = 0; k < D; k++) {
                    int at = order == POSENC_ORDER_BSD ? (b * S + s) * D + k : (s * B + b) * D + k;
                    expect[at] = x[at] * scale + pe[s * D + k];
                }
        int st = posenc_add_sinusoidal(x, B * S * D, B, S, D, order, scale, 0, 3,
                                       POSENC_LAYOUT_TENSOR2TENSOR);
        CHECKF(st == 0 && memcmp(x, expect, sizeof x) == 0, "add order %d", order);
    }
}

static void test_errors_write_nothing(void)
{
    float t[64];
    for (int i = 0; i < 64; i++)
        t[i] = 42.0f;
    CHECK(posenc_sinusoidal(NULL, 64, 2, 2, 0, 0, 0) == POSENC_ERR_NULL_POINTER);
    CHECK(posenc_sinusoidal(t, 64, 2, 0, 0, 0, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_sinusoidal(t, 64, 2, 2, 1.0, 0, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_sinusoidal(t, 64, 2, 2, NAN, 0, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_sinusoidal(t, 64, 2, 2, INFINITY, 0, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_sinusoidal(t, 64, 2, 2, -5.0, 0, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_sinusoidal(t, 64, 2, 2, 0, 0, 4) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_sinusoidal(t, 64, 2, 2, 0, 0, -1) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_sinusoidal(t, 64, 2, 2, 0, INT32_MAX, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_sinusoidal(t, 64, 1, 2, 0, INT32_MAX, 0) == POSENC_OK);
    for (int i = 0; i < 64; i++)
        t[i] = 42.0f;
    /* d_model past its row (2^31 - 1): within the rows, length * d_model fits a 64-bit size_t */
    CHECK(posenc_sinusoidal(t, 64, INT32_MAX, SIZE_MAX / 1024, 0, 0, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_sinusoidal(t, 63, 8, 8, 0, 0, 0) == POSENC_ERR_BUFFER_TOO_SMALL);
    CHECK(posenc_add_sinusoidal(t, 64, 0, 2, 2, 0, 1, 0, 0, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_add_sinusoidal(t, 64, 1, 2, 2, 2, 1, 0, 0, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_add_sinusoidal(t, 64, 1, 2, 2, 0, NAN, 0, 0, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_add_sinusoidal(t, 64, SIZE_MAX / 4, 4, 2, 0, 1, 0, 0, 0) == POSENC_ERR_INVALID_ARGUMENT); /* batch */
    CHECK(posenc_add_sinusoidal(t, 64, INT32_MAX, INT32_MAX, INT32_MAX, 0, 1, 0, 0, 0) == POSENC_ERR_SIZE_OVERFLOW);
    CHECK(posenc_add_sinusoidal(t, 64, 2, 8, 8, 0, 1, 0, 0, 0) == POSENC_ERR_BUFFER_TOO_SMALL);
    int untouched = 1;
    for (int i = 0; i < 64; i++)
        untouched &= t[i] == 42.0f;
    CHECK(untouched);
    CHECK(posenc_sinusoidal(t, 0, 0, 5, 0, 0, 0) == POSENC_OK); /* empty table */
}

void test_sinusoidal(void)
{
    test_layouts_against_formula();
    test_accuracy_long_positions();
    test_add();
    test_errors_write_nothing();
}
