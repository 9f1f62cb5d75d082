/*
 * nn_math.c: softmax rows and the feed-forward activations, four floats at a
 * time (formulas, orders and error bounds in nn_math.h). The tails run the
 * same vector code on a padded copy, so a value never depends on where it
 * falls in a row.
 */
#include "nn_math.h"

#include <math.h>

#include "posenc_encoder.h"

/* Loops that stay loops: their speed comes from independent chains, not from
 * vectorizing or unrolling (which only grows the wasm, shipped inline). */
#if defined(__clang__)
#define PLAIN_LOOP _Pragma("clang loop unroll(disable) vectorize(disable)")
#else
#define PLAIN_LOOP
#endif

float nn_row_max(const float *x, size_t n)
{
    size_t n4 = n & ~(size_t)3, j;
    f32x4 m4 = f32x4_splat(-INFINITY);
    for (j = 0; j < n4; j += 4) {
        f32x4 v = f32x4_load(x + j);
        m4 = f32x4_select(f32x4_gt(v, m4), v, m4);
    }
    float lanes[4], m = -INFINITY;
    f32x4_store(lanes, m4);
    for (int l = 0; l < 4; l++)
        m = lanes[l] > m ? lanes[l] : m;
    for (j = n4; j < n; j++)
        m = x[j] > m ? x[j] : m;
    return m;
}

void nn_softmax_row(float *x, size_t n)
{
    nn_softmax_row_max(x, n, nn_row_max(x, n));
}

void nn_softmax_row_max(float *x, size_t n, float m)
{
    nn_softmax_scale(x, n, nn_softmax_exp(x, n, m));
}

/* nn_softmax_exp and nn_softmax_scale are not inlined: one copy of each in
 * the wasm (and one of the exp: the tail runs in the loop for that reason). */
__attribute__((noinline)) double nn_softmax_exp(float *x, size_t n, float m)
{
    size_t n4 = n & ~(size_t)3, j;
    if (m == -INFINITY) { /* every key masked: no attention rather than 0/0 */
        for (j = 0; j < n; j++)
            x[j] = 0.0f;
        return 0.0;
    }
    /* exp(x - max) <= 1: the encoder article's exp(x) / sum exp(x) overflows to inf / inf */
    f32x4 mv = f32x4_splat(m);
    f64x2 s01 = f64x2_splat(0.0), s23 = s01; /* the lane sums: lanes 0, 1 and 2, 3 */
    float tail[4] = { 0.0f, 0.0f, 0.0f, 0.0f }; /* the last step writes it when n is not a multiple of 4 */
    for (j = 0; j < n; j += 4) {
        size_t left = n - j; /* the last four or fewer: padded with -inf (exp 0) in registers */
        f32x4 v = left >= 4 ? f32x4_load(x + j)
                            : f32x4_make(x[j], left > 1 ? x[j + 1] : -INFINITY, left > 2 ? x[j + 2] : -INFINITY,
                                         -INFINITY);
        f32x4 e = nn_exp4(f32x4_sub(v, mv));
        if (left < 4) {
            f32x4_store(tail, e);
            break;
        }
        f32x4_store(x + j, e);
        s01 = f64x2_add(s01, f64x2_from_f32x4_low(e));
        s23 = f64x2_add(s23, f64x2_from_f32x4_high(e));
    }
    double sum = f64x2_sum(s01) + f64x2_sum(s23);
    for (j = n4; j < n; j++) { /* the tail added in order */
        x[j] = tail[j - n4];
        sum += x[j];
    }
    return sum; /* >= 1: the maximum contributes exp(0) */
}

__attribute__((noinline)) void nn_softmax_scale(float *x, size_t n, double sum)
{
    size_t n4 = n & ~(size_t)3, j;
    if (sum == 0.0) /* a masked row, zeroed by nn_softmax_exp */
        return;
    f64x2 inv = f64x2_splat(1.0 / sum);
    for (j = 0; j < n4; j += 4) {
        f32x4 e = f32x4_load(x + j);
        f32x4_store(x + j, f32x4_from_f64x2(f64x2_mul(f64x2_from_f32x4_low(e), inv),
                                            f64x2_mul(f64x2_from_f32x4_high(e), inv)));
    }
    for (; j < n; j++)
        x[j] = (float)(x[j] * (1.0 / sum));
}

/* x > 0 ? x : +0 (NaN and -0 give +0) */
static f32x4 relu4(f32x4 x)
{
    return f32x4_select(f32x4_gt(x, f32x4_splat(0.0f)), x, f32x4_splat(0.0f));
}

/* c0 + c1 t, one step of Estrin's scheme */
static f32x4 pair(float c0, float c1, f32x4 t)
{
    return f32x4_add(f32x4_mul(f32x4_splat(c1), t), f32x4_splat(c0));
}

/* x Phi(x), Phi by Q(a) = erfc(a / sqrt 2) / 2 = t exp(-a^2 / 2) P(t), t = 1 / (1 + 0.3 a).
 * P by Estrin's scheme (pairs, then powers t^2, t^4 of t): its chain of
 * dependent operations is half Horner's, and this loop is bound by that chain. */
static f32x4 gelu4(f32x4 x)
{
    static const float P[10] = { 0x1.ea3d56p-4f,  0x1.e9b5p-4f,    0x1.c408e6p-4f,  0x1.3e9fbp-4f,
                                 0x1.912ad8p-4f,  -0x1.533c8ap-4f, 0x1.914adep-3f,  -0x1.d9dca6p-3f,
                                 0x1.d21d04p-4f,  -0x1.560abcp-6f };
    f32x4 a = f32x4_abs(x), one = f32x4_splat(1.0f);
    f32x4 t = f32x4_div(one, f32x4_add(one, f32x4_mul(f32x4_splat(0.3f), a)));
    f32x4 t2 = f32x4_mul(t, t), t4 = f32x4_mul(t2, t2);
    f32x4 p03 = f32x4_add(f32x4_mul(pair(P[2], P[3], t), t2), pair(P[0], P[1], t));
    f32x4 p47 = f32x4_add(f32x4_mul(pair(P[6], P[7], t), t2), pair(P[4], P[5], t));
    f32x4 p = f32x4_add(f32x4_mul(f32x4_add(f32x4_mul(pair(P[8], P[9], t), t4), p47), t4), p03);
    f32x4 e = nn_exp4(f32x4_sub(f32x4_splat(0.0f), f32x4_mul(f32x4_mul(a, a), f32x4_splat(0.5f))));
    f32x4 q = f32x4_mul(f32x4_mul(t, p), e);
    f32x4 phi = f32x4_select(f32x4_lt(x, f32x4_splat(0.0f)), q, f32x4_sub(one, q));
    return f32x4_mul(x, phi);
}

/* x / 2 (1 + tanh u) = x / (1 + e) (u >= 0), x e / (1 + e) (u < 0), e = exp(-2 |u|) */
static f32x4 gelu_tanh4(f32x4 x)
{
    f32x4 x3 = f32x4_mul(f32x4_mul(x, x), x);
    f32x4 u = f32x4_mul(f32x4_splat(0x1.988454p-1f), f32x4_add(x, f32x4_mul(f32x4_splat(0.044715f), x3)));
    f32x4 e = nn_exp4(f32x4_mul(f32x4_splat(-2.0f), f32x4_abs(u)));
    f32x4 d = f32x4_add(f32x4_splat(1.0f), e);
    f32x4 num = f32x4_select(f32x4_lt(u, f32x4_splat(0.0f)), f32x4_mul(x, e), x);
    return f32x4_div(num, d);
}

/* x sigmoid(x) = x / (1 + e) (x >= 0), x e / (1 + e) (x < 0), e = exp(-|x|) <= 1 */
static f32x4 silu4(f32x4 x)
{
    f32x4 e = nn_exp4(f32x4_sub(f32x4_splat(0.0f), f32x4_abs(x)));
    f32x4 num = f32x4_select(f32x4_lt(x, f32x4_splat(0.0f)), f32x4_mul(x, e), x);
    return f32x4_div(num, f32x4_add(f32x4_splat(1.0f), e));
}

/* One loop per activation over n4 floats (a multiple of 4); the tail runs the
 * same loop on a padded copy. */
__attribute__((noinline)) static void relu_run(float *x, size_t n4)
{
    for (size_t j = 0; j < n4; j += 4)
        f32x4_store(x + j, relu4(f32x4_load(x + j)));
}

__attribute__((noinline)) static void gelu_run(float *x, size_t n4)
{
    for (size_t j = 0; j < n4; j += 4)
        f32x4_store(x + j, gelu4(f32x4_load(x + j)));
}

__attribute__((noinline)) static void gelu_tanh_run(float *x, size_t n4)
{
    for (size_t j = 0; j < n4; j += 4)
        f32x4_store(x + j, gelu_tanh4(f32x4_load(x + j)));
}

__attribute__((noinline)) static void silu_run(float *x, size_t n4)
{
    for (size_t j = 0; j < n4; j += 4)
        f32x4_store(x + j, silu4(f32x4_load(x + j)));
}

void nn_activate(float *x, size_t n, int activation)
{
    void (*run)(float *, size_t) = activation == POSENC_ACTIVATION_GELU        ? gelu_run
                                   : activation == POSENC_ACTIVATION_GELU_TANH ? gelu_tanh_run
                                   : activation == POSENC_ACTIVATION_SILU      ? silu_run
                                                                               : relu_run;
    size_t n4 = n & ~(size_t)3;
    run(x, n4);
    if (n4 < n) {
        float tail[4] = { 0.0f, 0.0f, 0.0f, 0.0f };
        for (size_t j = n4; j < n; j++)
            tail[j - n4] = x[j];
        run(tail, 4);
        for (size_t j = n4; j < n; j++)
            x[j] = tail[j - n4];
    }
}

/* One row's statistics: mean, then the biased variance, each summed in k order (torch's). */
static void row_stats(const float *x, size_t d, double eps, double *mean, double *rstd)
{
    double m = 0.0, v = 0.0;
    PLAIN_LOOP
    for (size_t k = 0; k < d; k++)
        m += x[k];
    m /= (double)d;
    PLAIN_LOOP
    for (size_t k = 0; k < d; k++)
        v += ((double)x[k] - m) * ((double)x[k] - m);
    *mean = m;
    *rstd = 1.0 / sqrt(v / (double)d + eps);
}

/* y[k] = (float)(((double)x[k] - mean) * rstd * gamma[k] + beta[k]) in double
 * (gamma NULL: 1, beta NULL: 0, still multiplied and added, as in the
 * scalar form), two k at a time: each value's operations are the same. */
static void row_out(float *y, const float *x, size_t d, double mean, double rstd, const float *gamma,
                    const float *beta)
{
    size_t d4 = d & ~(size_t)3, k;
    f64x2 m = f64x2_splat(mean), r = f64x2_splat(rstd), one = f64x2_splat(1.0), zero = f64x2_splat(0.0);
    for (k = 0; k < d4; k += 4) {
        f32x4 v = f32x4_load(x + k);
        f64x2 lo = f64x2_mul(f64x2_sub(f64x2_from_f32x4_low(v), m), r);
        f64x2 hi = f64x2_mul(f64x2_sub(f64x2_from_f32x4_high(v), m), r);
        if (gamma) {
            f32x4 g = f32x4_load(gamma + k);
            lo = f64x2_mul(lo, f64x2_from_f32x4_low(g)), hi = f64x2_mul(hi, f64x2_from_f32x4_high(g));
        } else {
            lo = f64x2_mul(lo, one), hi = f64x2_mul(hi, one);
        }
        if (beta) {
            f32x4 b = f32x4_load(beta + k);
            lo = f64x2_add(lo, f64x2_from_f32x4_low(b)), hi = f64x2_add(hi, f64x2_from_f32x4_high(b));
        } else {
            lo = f64x2_add(lo, zero), hi = f64x2_add(hi, zero);
        }
        f32x4_store(y + k, f32x4_from_f64x2(lo, hi));
    }
    PLAIN_LOOP
    for (; k < d; k++) {
        double t = ((double)x[k] - mean) * rstd;
        y[k] = (float)(t * (gamma ? gamma[k] : 1.0) + (beta ? beta[k] : 0.0));
    }
}

void nn_layer_norm(float *out, const float *x, size_t rows, size_t d, const float *gamma,
                   const float *beta, double eps)
{
    size_t r = 0;
    /* four rows at a time: four independent chains of double adds in flight
       instead of one (each row's sums in k order, the same bits) */
    for (; r + 4 <= rows; r += 4) {
        const float *x0 = x + r * d, *x1 = x0 + d, *x2 = x1 + d, *x3 = x2 + d;
        double m0 = 0.0, m1 = 0.0, m2 = 0.0, m3 = 0.0, v0 = 0.0, v1 = 0.0, v2 = 0.0, v3 = 0.0;
        PLAIN_LOOP
        for (size_t k = 0; k < d; k++)
            m0 += x0[k], m1 += x1[k], m2 += x2[k], m3 += x3[k];
        m0 /= (double)d, m1 /= (double)d, m2 /= (double)d, m3 /= (double)d;
        PLAIN_LOOP
        for (size_t k = 0; k < d; k++) {
            double a = (double)x0[k] - m0, b = (double)x1[k] - m1, c = (double)x2[k] - m2, e = (double)x3[k] - m3;
            v0 += a * a, v1 += b * b, v2 += c * c, v3 += e * e;
        }
        /* in place (out == x) is safe: all four rows are read before any is written */
        const double mean[4] = { m0, m1, m2, m3 }, var[4] = { v0, v1, v2, v3 };
        PLAIN_LOOP
        for (size_t t = 0; t < 4; t++)
            row_out(out + (r + t) * d, x + (r + t) * d, d, mean[t], 1.0 / sqrt(var[t] / (double)d + eps), gamma,
                    beta);
    }
    for (; r < rows; r++) {
        double mean, rstd;
        row_stats(x + r * d, d, eps, &mean, &rstd);
        row_out(out + r * d, x + r * d, d, mean, rstd, gamma, beta);
    }
}

void nn_rms_norm(float *out, const float *x, size_t rows, size_t d, const float *gamma, double eps)
{
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * d;
        float *y = out + r * d;
        double ss = 0.0;
        PLAIN_LOOP
        for (size_t k = 0; k < d; k++)
            ss += (double)xr[k] * (double)xr[k];
        double rstd = 1.0 / sqrt(ss / (double)d + eps);
        PLAIN_LOOP
        for (size_t k = 0; k < d; k++)
            y[k] = (float)((double)xr[k] * rstd * (gamma ? (double)gamma[k] : 1.0));
    }
}
