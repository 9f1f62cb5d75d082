/* The 2-D sine-cosine table and timestep embeddings against the formulas of
 * posenc.h evaluated in double, and their error statuses. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "posenc.h"

#define ULP1 (1.0 / 8388608.0) /* 2^-23, the accuracy contract */

/* posenc_sinusoidal_2d's formula: [sin x w | cos x w | sin y w | cos y w], w_k = base^(-k/q). */
static double table_2d(size_t width, size_t height, size_t d, double base, double base_size, double interp,
                       size_t patch, size_t k)
{
    size_t q = d / 4, part = k / q;
    double n = part < 2 ? (double)width : (double)height;
    double c = part < 2 ? (double)(patch % width) : (double)(patch / width);
    if (base_size > 0)
        c = c / (n / base_size);
    c /= interp;
    double w = pow(base, -(double)(k % q) / (double)q);
    return part % 2 ? cos(c * w) : sin(c * w);
}

static void test_sinusoidal_2d_formula(void)
{
    static const struct {
        size_t h, w, d;
        double base, base_size, interp;
        int cls;
    } cases[] = {
        { 14, 14, 768, 10000, 0, 1, 1 }, { 3, 5, 12, 10000, 0, 1, 0 }, { 7, 1100, 8, 500000, 0, 1, 0 },
        { 40, 24, 32, 10000, 32, 2, 0 }, { 9, 4, 4, 2, 0, 0.25, 1 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        size_t rows = cases[i].cls + cases[i].h * cases[i].w, d = cases[i].d;
        float *t = malloc(rows * d * sizeof *t);
        int st = posenc_sinusoidal_2d(t, rows * d, cases[i].h, cases[i].w, d, cases[i].base, cases[i].cls,
                                      cases[i].base_size, cases[i].interp);
        double worst = 0;
        for (size_t r = 0; r < rows; r++)
            for (size_t k = 0; k < d; k++) {
                double want = cases[i].cls && r == 0 ? 0.0
                              : table_2d(cases[i].w, cases[i].h, d, cases[i].base, cases[i].base_size,
                                         cases[i].interp, r - (size_t)cases[i].cls, k);
                double e = fabs((double)t[r * d + k] - want);
                worst = e > worst || isnan(e) ? (isnan(e) ? INFINITY : e) : worst;
            }
        CHECKF(st == POSENC_OK && worst <= ULP1, "case %zu: status %d error %g", i, st, worst);
        free(t);
    }
}

/* Zero means default: base 0 is 10000, interpolation_scale 0 is 1. */
static void test_sinusoidal_2d_defaults(void)
{
    float a[3 * 4 * 8], b[3 * 4 * 8];
    CHECK(posenc_sinusoidal_2d(a, 96, 3, 4, 8, 0, 0, 0, 0) == POSENC_OK);
    CHECK(posenc_sinusoidal_2d(b, 96, 3, 4, 8, 10000, 0, 0, 1) == POSENC_OK);
    CHECK(memcmp(a, b, sizeof a) == 0);
}

static void test_sinusoidal_2d_errors(void)
{
    float t[64];
    for (int i = 0; i < 64; i++)
        t[i] = 42.0f;
    CHECK(posenc_sinusoidal_2d(NULL, 64, 2, 2, 8, 0, 0, 0, 0) == POSENC_ERR_NULL_POINTER);
    CHECK(posenc_sinusoidal_2d(t, 64, 2, 2, 6, 0, 0, 0, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_sinusoidal_2d(t, 64, 2, 2, 0, 0, 0, 0, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_sinusoidal_2d(t, 64, 2, 2, 8, 1.0, 0, 0, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_sinusoidal_2d(t, 64, 2, 2, 8, NAN, 0, 0, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_sinusoidal_2d(t, 64, 2, 2, 8, 0, 2, 0, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_sinusoidal_2d(t, 64, 2, 2, 8, 0, 0, -1, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_sinusoidal_2d(t, 64, 2, 2, 8, 0, 0, INFINITY, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_sinusoidal_2d(t, 64, 2, 2, 8, 0, 0, 0, -2) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_sinusoidal_2d(t, 64, 2, 2, 8, 0, 0, 0, NAN) == POSENC_ERR_INVALID_ARGUMENT);
    /* coordinates that overflow: 1 / 5e-324 is inf */
    CHECK(posenc_sinusoidal_2d(t, 64, 2, 2, 8, 0, 0, 0, 5e-324) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_sinusoidal_2d(t, 64, (size_t)1 << 32, 1, 8, 0, 0, 0, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_sinusoidal_2d(t, 64, INT32_MAX, INT32_MAX, INT32_MAX & ~3, 0, 0, 0, 0) == POSENC_ERR_SIZE_OVERFLOW);
    CHECK(posenc_sinusoidal_2d(t, 63, 2, 4, 8, 0, 0, 0, 0) == POSENC_ERR_BUFFER_TOO_SMALL);
    CHECK(posenc_sinusoidal_2d(t, 64, 2, 4, 8, 0, 1, 0, 0) == POSENC_ERR_BUFFER_TOO_SMALL); /* the cls row */
    int untouched = 1;
    for (int i = 0; i < 64; i++)
        untouched &= t[i] == 42.0f;
    CHECK(untouched);
    CHECK(posenc_sinusoidal_2d(t, 0, 0, 3, 8, 0, 0, 0, 0) == POSENC_OK);
    CHECK(posenc_sinusoidal_2d(t, 8, 0, 3, 8, 0, 1, 0, 0) == POSENC_OK && t[0] == 0.0f && t[7] == 0.0f &&
          t[8] == 42.0f);
}

/* posenc_timestep_embedding's formula. */
static double timestep(double t, size_t dim, int flip, double shift, double scale, double max_period, size_t k)
{
    size_t half = dim / 2;
    if (k >= 2 * half)
        return 0.0;
    double w = exp(-log(max_period) * (double)(k % half) / ((double)half - shift));
    int is_sin = (k < half) != flip;
    return is_sin ? sin(scale * t * w) : cos(scale * t * w);
}

static void test_timestep_formula(void)
{
    static const struct {
        size_t dim;
        int flip;
        double shift, scale, max_period;
    } cases[] = {
        { 320, 1, 0, 1, 10000 }, { 257, 0, 1, 1, 10000 }, { 7, 1, 0, 1000, 10000 }, { 1024, 0, 0.5, 3.5, 5000 },
        { 2, 0, 0, 1, 10000 },   { 1, 0, 1, 1, 10000 },
    };
    enum { N = 1200 };
    double *ts = malloc(N * sizeof *ts);
    for (int r = 0; r < N; r++) /* a run of integers, then real numbers */
        ts[r] = r < 1100 ? (double)r : (double)r * 0.731 - 500.0;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        size_t dim = cases[i].dim;
        float *e = malloc(N * dim * sizeof *e);
        int st = posenc_timestep_embedding(e, N * dim, ts, N, dim, cases[i].flip, cases[i].shift, cases[i].scale,
                                           cases[i].max_period);
        double worst = 0;
        for (size_t r = 0; r < N; r++)
            for (size_t k = 0; k < dim; k++) {
                double want = timestep(ts[r], dim, cases[i].flip, cases[i].shift, cases[i].scale,
                                       cases[i].max_period, k);
                double err = fabs((double)e[r * dim + k] - want);
                worst = err > worst || isnan(err) ? (isnan(err) ? INFINITY : err) : worst;
            }
        CHECKF(st == POSENC_OK && worst <= ULP1, "case %zu: status %d error %g", i, st, worst);
        free(e);
    }
    free(ts);
}

static void test_timestep_errors(void)
{
    float e[16];
    double ts[2] = { 1.0, 2.0 }, bad[2] = { 1.0, NAN }, huge[1] = { 1e300 };
    for (int i = 0; i < 16; i++)
        e[i] = 42.0f;
    CHECK(posenc_timestep_embedding(NULL, 16, ts, 2, 8, 0, 1, 1, 0) == POSENC_ERR_NULL_POINTER);
    CHECK(posenc_timestep_embedding(e, 16, NULL, 2, 8, 0, 1, 1, 0) == POSENC_ERR_NULL_POINTER);
    CHECK(posenc_timestep_embedding(e, 16, ts, 2, 0, 0, 1, 1, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_timestep_embedding(e, 16, ts, 2, 8, 2, 1, 1, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_timestep_embedding(e, 16, ts, 2, 8, 0, 4, 1, 0) == POSENC_ERR_INVALID_ARGUMENT); /* half - shift = 0 */
    CHECK(posenc_timestep_embedding(e, 16, ts, 2, 2, 0, 1, 1, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_timestep_embedding(e, 16, ts, 2, 8, 0, NAN, 1, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_timestep_embedding(e, 16, ts, 2, 8, 0, 1, INFINITY, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_timestep_embedding(e, 16, ts, 2, 8, 0, 1, 1, -5) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_timestep_embedding(e, 16, bad, 2, 8, 0, 1, 1, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_timestep_embedding(e, 16, huge, 1, 8, 0, 1, 1e10, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_timestep_embedding(e, 16, ts, 1, 200, 0, 100.01, 1, 0) == POSENC_ERR_BUFFER_TOO_SMALL);
    CHECK(posenc_timestep_embedding(e, 16, ts, SIZE_MAX / 2, 8, 0, 1, 1, 0) == POSENC_ERR_SIZE_OVERFLOW);
    CHECK(posenc_timestep_embedding(e, 15, ts, 2, 8, 0, 1, 1, 0) == POSENC_ERR_BUFFER_TOO_SMALL);
    int untouched = 1;
    for (int i = 0; i < 16; i++)
        untouched &= e[i] == 42.0f;
    CHECK(untouched);
    /* dim 1: half = 0, nothing divides by half - shift; a zero column */
    CHECK(posenc_timestep_embedding(e, 16, ts, 2, 1, 0, 0, 1, 0) == POSENC_OK && e[0] == 0.0f && e[1] == 0.0f);
    CHECK(posenc_timestep_embedding(e, 0, NULL, 0, 8, 0, 1, 1, 0) == POSENC_OK);
}

/* An overflowing w_k (the shift just past half) is rejected, even at t = 0 (0 * inf is NaN). */
static void test_timestep_overflowing_frequency(void)
{
    enum { D = 200 };
    float e[D];
    double zero[1] = { 0.0 };
    for (int i = 0; i < D; i++)
        e[i] = 42.0f;
    CHECK(posenc_timestep_embedding(e, D, zero, 1, D, 0, 100.01, 1, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(e[0] == 42.0f && e[D - 1] == 42.0f);
}

/* out must not cover the timesteps, which every block of frequencies reads again. */
static void test_timestep_overlap(void)
{
    union {
        double d[8];
        float f[16];
    } mem = { { 1.0, 2.0, 3.0, 4.0 } };
    CHECK(posenc_timestep_embedding(mem.f + 4, 8, mem.d + 2, 2, 4, 0, 0, 1, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(mem.d[2] == 3.0 && mem.d[3] == 4.0);
    CHECK(posenc_timestep_embedding(mem.f + 8, 8, mem.d, 2, 4, 0, 0, 1, 0) == POSENC_OK); /* touching only */
}

void test_vision(void)
{
    test_timestep_overlap();
    test_sinusoidal_2d_formula();
    test_sinusoidal_2d_defaults();
    test_sinusoidal_2d_errors();
    test_timestep_formula();
    test_timestep_errors();
    test_timestep_overflowing_frequency();
}
