/* test_kernels.c: the encoder's internal kernels (src/nn_math.h,
 * src/nn_attend.h, src/nn_kernels.h) against plain loops written here: values
 * against the maths in double, and bits against the summation orders the
 * headers promise, evaluated one value at a time. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "nn_attend.h"
#include "nn_kernels.h"
#include "nn_math.h"
#include "posenc_encoder.h"

#define COUNT(a) (sizeof(a) / sizeof(a)[0])

static uint32_t rng = 2024;

static float uniform(float a)
{
    rng = rng * 1664525u + 1013904223u;
    return (float)(((double)(rng >> 8) / 16777216.0 * 2.0 - 1.0) * a);
}

static float from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* nn_exp4 on one value (lane 0 of a splat; every lane computes the same) */
static float exp1(float x)
{
    float out[4];
    f32x4_store(out, nn_exp4(f32x4_splat(x)));
    return out[0];
}

/* |got - want| in units of the float spacing at want (want a normal float's magnitude) */
static double ulps(float got, double want)
{
    int e;
    frexp(want, &e);
    return fabs((double)got - want) / ldexp(1.0, e - 24);
}

static void test_exp(void)
{
    double worst = 0;
    float worst_x = 0;
    /* every 4099th float of [-87.33, 0] and of [0, 88] */
    for (uint32_t u = 0x80000000u; from_bits(u) >= -87.33f; u += 4099) {
        float x = from_bits(u), y = exp1(x);
        double e = ulps(y, exp((double)x));
        if (e > worst)
            worst = e, worst_x = x;
    }
    for (uint32_t u = 0; from_bits(u) <= 88.0f; u += 4099) {
        float x = from_bits(u), y = exp1(x);
        double e = ulps(y, exp((double)x));
        if (e > worst)
            worst = e, worst_x = x;
    }
    CHECKF(worst < 1.0, "exp: %.3f ulp at %a", worst, (double)worst_x);
    CHECK(exp1(0.0f) == 1.0f && exp1(-0.0f) == 1.0f);
    CHECK(exp1(-INFINITY) == 0.0f && exp1(-87.34f) == 0.0f && exp1(-1000.0f) == 0.0f);
    CHECK(exp1(-87.33f) >= 0x1p-126f);
    CHECK(isnan(exp1(NAN)));
}

/* The documented order of nn_softmax_row, one value at a time. */
static void softmax_reference(float *x, size_t n)
{
    float m = -INFINITY;
    for (size_t j = 0; j < n; j++)
        m = x[j] > m ? x[j] : m;
    if (m == -INFINITY) {
        for (size_t j = 0; j < n; j++)
            x[j] = 0.0f;
        return;
    }
    double lane[4] = { 0, 0, 0, 0 }, sum;
    size_t n4 = n & ~(size_t)3;
    for (size_t j = 0; j < n; j++)
        x[j] = exp1(x[j] - m);
    for (size_t j = 0; j < n4; j++)
        lane[j % 4] += x[j];
    sum = (lane[0] + lane[1]) + (lane[2] + lane[3]);
    for (size_t j = n4; j < n; j++)
        sum += x[j];
    for (size_t j = 0; j < n; j++)
        x[j] = (float)(x[j] * (1.0 / sum));
}

static void test_softmax(void)
{
    static const size_t lengths[] = { 1, 2, 3, 4, 5, 7, 8, 13, 37, 514 };
    static float x[514], y[514];
    for (size_t t = 0; t < COUNT(lengths); t++) {
        size_t n = lengths[t];
        for (size_t j = 0; j < n; j++)
            x[j] = j % 5 == 3 ? -INFINITY : uniform(12.0f);
        memcpy(y, x, n * sizeof *x);
        double want[514], m = -INFINITY, sum = 0;
        for (size_t j = 0; j < n; j++)
            m = fmax(m, x[j]);
        for (size_t j = 0; j < n; j++)
            sum += want[j] = exp((double)x[j] - m);
        nn_softmax_row(x, n);
        softmax_reference(y, n);
        CHECKF(memcmp(x, y, n * sizeof *x) == 0, "softmax n = %zu: not the documented order", n);
        double err = 0;
        for (size_t j = 0; j < n; j++)
            err = fmax(err, fabs(x[j] - want[j] / sum));
        CHECKF(err < 3e-7, "softmax n = %zu: error %g", n, err);
    }
    float masked[6] = { -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY };
    nn_softmax_row(masked, 6);
    CHECK(masked[0] == 0.0f && masked[4] == 0.0f && masked[5] == 0.0f);
}

static double gelu(double x) { return 0.5 * x * (1 + erf(x / sqrt(2.0))); }

static double gelu_tanh(double x)
{
    return 0.5 * x * (1 + tanh(sqrt(2 / 3.14159265358979323846) * (x + 0.044715 * x * x * x)));
}

static void test_activations(void)
{
    enum { N = 40003 };
    static float x[N], g[N], t[N], r[N];
    for (size_t i = 0; i < N; i++)
        x[i] = i < 40001 ? -20.0f + (float)i * 1e-3f : (i == 40001 ? -0.0f : 0.0f);
    memcpy(g, x, sizeof x), memcpy(t, x, sizeof x), memcpy(r, x, sizeof x);
    nn_activate(g, N, POSENC_ACTIVATION_GELU); /* N is odd: the tail too */
    nn_activate(t, N, POSENC_ACTIVATION_GELU_TANH);
    nn_activate(r, N, POSENC_ACTIVATION_RELU);
    double eg = 0, et = 0;
    int relu_exact = 1;
    for (size_t i = 0; i < N; i++) {
        double scale = fmax(fabs(x[i]), 1.0);
        eg = fmax(eg, fabs(g[i] - gelu(x[i])) / scale);
        et = fmax(et, fabs(t[i] - gelu_tanh(x[i])) / scale);
        float want = x[i] > 0.0f ? x[i] : 0.0f;
        relu_exact &= memcmp(&r[i], &want, sizeof want) == 0;
    }
    CHECKF(eg <= 1.5e-7, "GELU: error %g max(|x|, 1)", eg);
    CHECKF(et <= 1.5e-7, "GELU (tanh): error %g max(|x|, 1)", et);
    CHECK(relu_exact);
    float special[4] = { INFINITY, NAN, 1e30f, -1e30f };
    nn_activate(special, 4, POSENC_ACTIVATION_GELU);
    CHECK(special[0] == INFINITY && isnan(special[1]) && special[2] == 1e30f && special[3] == 0.0f);
    float special_t[4] = { INFINITY, NAN, 1e30f, -1e30f };
    nn_activate(special_t, 4, POSENC_ACTIVATION_GELU_TANH);
    CHECK(special_t[0] == INFINITY && isnan(special_t[1]) && special_t[2] == 1e30f && special_t[3] == 0.0f);
}

/* Layer norm, one row at a time in the documented order: the rows nn_layer_norm interleaves give the same bits. */
static void test_layer_norm(void)
{
    enum { R = 9, D = 37 };
    static float x[R * D], y[R * D], z[R * D], g[D], b[D];
    for (size_t i = 0; i < R * D; i++)
        x[i] = uniform(3.0f) + (float)(i / D);
    for (size_t k = 0; k < D; k++)
        g[k] = 1.0f + uniform(0.5f), b[k] = uniform(0.5f);
    for (int affine = 0; affine <= 1; affine++) {
        nn_layer_norm(y, x, R, D, affine ? g : NULL, affine ? b : NULL, 1e-5);
        for (size_t r = 0; r < R; r++) {
            const float *xr = x + r * D;
            double mean = 0.0, var = 0.0;
            for (size_t k = 0; k < D; k++)
                mean += xr[k];
            mean /= D;
            for (size_t k = 0; k < D; k++)
                var += ((double)xr[k] - mean) * ((double)xr[k] - mean);
            double rstd = 1.0 / sqrt(var / D + 1e-5);
            for (size_t k = 0; k < D; k++) {
                double t = ((double)xr[k] - mean) * rstd;
                z[r * D + k] = (float)(t * (affine ? g[k] : 1.0) + (affine ? b[k] : 0.0));
            }
        }
        CHECK(memcmp(y, z, sizeof y) == 0);
        memcpy(y, x, sizeof x);
        nn_layer_norm(y, y, R, D, affine ? g : NULL, affine ? b : NULL, 1e-5); /* in place */
        CHECK(memcmp(y, z, sizeof y) == 0);
    }
}

/* ------------------------------------------------------------ products */

/* nn_linear's documented order for one output: lanes over i = 4c + l, (l0 + l1) + (l2 + l3), the tail, the bias */
static float dot_reference(const float *x, const float *w, size_t n, const float *bias)
{
    float lane[4] = { 0, 0, 0, 0 };
    size_t n4 = n & ~(size_t)3;
    for (size_t i = 0; i < n4; i++)
        lane[i % 4] += x[i] * w[i];
    float s = (lane[0] + lane[1]) + (lane[2] + lane[3]);
    for (size_t i = n4; i < n; i++)
        s += x[i] * w[i];
    return bias ? s + *bias : s;
}

static void test_products(void)
{
    enum { MAXR = 7, MAXO = 21, MAXN = 70 };
    static float x[MAXR * MAXN], w[MAXO * MAXN], b[MAXO], y[MAXR * MAXO], a[MAXR * MAXN], m[MAXR * MAXO];
    static const size_t shapes[][3] = { { 1, 1, 1 },   { 2, 4, 16 },  { 3, 9, 7 },
                                        { 4, 8, 64 },  { 5, 13, 70 }, { 7, 5, 33 },
                                        /* one row (a single token; nn_mix's one-row path: 16, 4, 1 columns) */
                                        { 1, 21, 9 },  { 1, 20, 64 } };
    for (size_t i = 0; i < COUNT(x); i++)
        x[i] = uniform(2.0f), a[i] = uniform(1.0f);
    for (size_t i = 0; i < COUNT(w); i++)
        w[i] = uniform(1.0f);
    for (size_t i = 0; i < COUNT(b); i++)
        b[i] = uniform(1.0f);
    for (size_t t = 0; t < COUNT(shapes); t++) {
        size_t rows = shapes[t][0], outs = shapes[t][1], n = shapes[t][2];
        for (int biased = 0; biased <= 1; biased++) {
            nn_linear(y, MAXO, x, MAXN, rows, w, MAXN, outs, n, biased ? b : NULL);
            int same = 1;
            for (size_t r = 0; r < rows; r++)
                for (size_t o = 0; o < outs; o++) {
                    float want = dot_reference(x + r * MAXN, w + o * MAXN, n, biased ? b + o : NULL);
                    same &= memcmp(&want, &y[r * MAXO + o], sizeof want) == 0;
                }
            CHECKF(same, "nn_linear %zu x %zu x %zu, bias %d: not the documented order", rows, outs, n, biased);
            /* nn_linear_add: y + (the same product), rounded as two separate steps */
            float start[MAXR * MAXO] = { 0 };
            for (size_t i = 0; i < COUNT(start); i++)
                start[i] = uniform(4.0f);
            memcpy(m, start, sizeof start);
            nn_linear_add(m, MAXO, x, MAXN, rows, w, MAXN, outs, n, biased ? b : NULL);
            same = 1;
            for (size_t r = 0; r < rows; r++)
                for (size_t o = 0; o < MAXO; o++) {
                    size_t at = r * MAXO + o;
                    float want = o < outs ? start[at] + y[at] : start[at]; /* outputs past outs untouched */
                    same &= memcmp(&want, &m[at], sizeof want) == 0;
                }
            CHECKF(same, "nn_linear_add %zu x %zu x %zu, bias %d: not y + nn_linear", rows, outs, n, biased);
        }
        /* nn_mix: y[i][c] = sum_j a[i][j] b[j][c] in j order, b = w read as [n][outs] */
        nn_mix(m, MAXO, a, MAXN, rows, w, MAXO, n, outs);
        int same = 1;
        for (size_t r = 0; r < rows; r++)
            for (size_t c = 0; c < outs; c++) {
                float s = 0.0f;
                for (size_t j = 0; j < n; j++)
                    s += a[r * MAXN + j] * w[j * MAXO + c];
                same &= memcmp(&s, &m[r * MAXO + c], sizeof s) == 0;
            }
        CHECKF(same, "nn_mix %zu x %zu x %zu: not the documented order", rows, n, outs);
    }
}

/* ------------------------------------------------------------ attention */

enum { AS = 11, AD = 6, AN = AS * AD };

/* The attention of one head in double: queries first .. first + rows - 1 against keys 0 .. keys - 1. */
static void attend_reference(double *out, double *probs, const float *q, const float *k, const float *v,
                             size_t first, size_t rows, size_t keys, const float *bias, size_t bias_stride,
                             const int32_t *mask, int causal)
{
    for (size_t r = 0; r < rows; r++) {
        size_t i = first + r;
        double s[AS], m = -INFINITY, sum = 0;
        for (size_t j = 0; j < keys; j++) {
            int visible = (!mask || mask[j]) && (!causal || j <= i);
            double dot = 0;
            for (size_t c = 0; c < AD; c++)
                dot += (double)q[r * AD + c] * k[j * AD + c];
            s[j] = visible ? dot / sqrt((double)AD) + (bias ? bias[i * bias_stride + j] : 0.0) : -INFINITY;
            m = fmax(m, s[j]);
        }
        for (size_t j = 0; j < keys; j++)
            sum += s[j] == -INFINITY ? 0 : exp(s[j] - m);
        for (size_t j = 0; j < keys; j++)
            probs[r * keys + j] = s[j] == -INFINITY ? 0 : exp(s[j] - m) / sum;
        for (size_t c = 0; c < AD; c++) {
            double o = 0;
            for (size_t j = 0; j < keys; j++)
                o += probs[r * keys + j] * v[j * AD + c];
            out[r * AD + c] = o;
        }
    }
}

static double max_error(const float *got, const double *want, size_t n)
{
    double err = 0, scale = 0;
    for (size_t i = 0; i < n; i++) {
        err = fmax(err, fabs(got[i] - want[i]));
        scale = fmax(scale, fabs(want[i]));
    }
    return err / scale;
}

static void test_attend_head(void)
{
    static float q[AN], k[AN], v[AN], plane[AS * AS], rel[2 * AS - 1];
    static const int32_t mask[AS] = { 1, 1, 0, 1, 1, 1, 1, 0, 1, 1, 1 };
    for (size_t i = 0; i < AN; i++)
        q[i] = uniform(1.5f), k[i] = uniform(1.5f), v[i] = uniform(1.0f);
    /* a relative bias (ALiBi-like plus noise) and the full plane it stands for */
    for (size_t o = 0; o < 2 * AS - 1; o++)
        rel[o] = -0.25f * fabsf((float)o - (float)(AS - 1)) + uniform(0.1f);
    for (size_t i = 0; i < AS; i++)
        for (size_t j = 0; j < AS; j++)
            plane[i * AS + j] = rel[(AS - 1) + j - i];
    for (int causal = 0; causal <= 1; causal++)
        for (int masked = 0; masked <= 1; masked++)
            for (int biased = 0; biased <= 1; biased++) {
                /* zeroed: cppcheck cannot see nn_attend_head write them through the struct */
                float out[AN] = { 0 }, out_rel[AN] = { 0 }, out_probs[AN] = { 0 }, probs[AS * AS] = { 0 },
                      scratch[NN_ATTEND_ROWS * AS];
                double want[AN], want_p[AS * AS];
                nn_head a = { .out = out, .out_stride = AD, .q = q, .k = k, .v = v, .q_stride = AD,
                              .kv_stride = AD, .head_dim = AD, .first = 0, .rows = AS, .keys = AS,
                              .scale = (float)(1.0 / sqrt((double)AD)), .bias = biased ? plane : NULL,
                              .bias_step = AS, .key_mask = masked ? mask : NULL, .causal = causal,
                              .scratch = scratch };
                nn_attend_head(&a);
                attend_reference(want, want_p, q, k, v, 0, AS, AS, biased ? plane : NULL, AS,
                                 masked ? mask : NULL, causal);
                double e = max_error(out, want, AN);
                CHECKF(e < 1e-6, "attention causal %d masked %d biased %d: error %g", causal, masked, biased, e);
                /* the same bias as a relative row: the same bits */
                a.out = out_rel, a.bias = biased ? rel + (AS - 1) : NULL, a.bias_step = -1;
                nn_attend_head(&a);
                CHECK(memcmp(out, out_rel, sizeof out) == 0);
                /* probabilities kept: the same output; 0 past the keys a query reads */
                a.out = out_probs, a.probs = probs, a.probs_stride = AS;
                nn_attend_head(&a);
                CHECK(memcmp(out, out_probs, sizeof out) == 0);
                CHECKF(max_error(probs, want_p, AS * AS) < 1e-6, "probs %g", max_error(probs, want_p, AS * AS));
                int zeros = 1;
                for (size_t i = 0; i < AS; i++)
                    for (size_t j = 0; j < AS; j++)
                        if ((causal && j > i) || (masked && !mask[j]))
                            zeros &= probs[i * AS + j] == 0.0f;
                CHECK(zeros);
                /* queries at positions 5 .. 10 alone against every key (the
                   form a key-value cache calls): the full pass's rows, bit for bit */
                float tail[6 * AD] = { 0 };
                a.out = tail, a.q = q + 5 * AD, a.first = 5, a.rows = 6, a.probs = NULL;
                nn_attend_head(&a);
                CHECK(memcmp(tail, out + 5 * AD, sizeof tail) == 0);
            }
}

void test_kernels(void)
{
    test_exp();
    test_softmax();
    test_activations();
    test_products();
    test_layer_norm();
    test_attend_head();
}
