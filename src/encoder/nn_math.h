/*
 * nn_math.h: the elementwise functions of the encoder in float, four lanes at
 * a time through simd.h (so the SIMD and scalar builds, and native and wasm,
 * give the same bits): exp for softmax, the GELUs. posenc's own, not libm's:
 * a libm call per score was most of the attention's time.
 */
#ifndef POSENC_NN_MATH_H
#define POSENC_NN_MATH_H

#include <stddef.h>

#include "simd.h"

/*
 * exp(x) for x <= 88 (the encoder takes it of x <= 0 only), within 1 ulp:
 * 0.98 ulp at most over every float of [-87.33, 0] (measured against
 * double exp; tests/c/test_kernels.c checks a sample of [-87.33, 88]).
 * Cody & Waite's reduction: x = k ln2 + r, k = round(x / ln2) (the
 * 1.5 * 2^23 rounding trick, ties to even), |r| <= 1.01 ln2 / 2,
 * r = (x - k ln2_hi) - k ln2_lo with ln2_hi 13 significant bits (k ln2_hi
 * exact for |k| < 2^11); then exp(r) = 1 + (r + r^2 q(r)), q a degree-4
 * least-squares fit on [-1.01 ln2 / 2, 1.01 ln2 / 2] (relative error 4e-9
 * before rounding); times 2^k, a
 * float built from k's bits (exact: one rounding-free multiply). x < -87.33
 * (where exp(x) < FLT_MIN) gives +0, so -INFINITY gives 0; NaN gives NaN.
 */
static inline f32x4 nn_exp4(f32x4 x)
{
    const f32x4 round = f32x4_splat(0x1.8p23f);
    f32x4 t = f32x4_add(f32x4_mul(x, f32x4_splat(0x1.715476p0f)), round); /* x / ln2 + 1.5 * 2^23 */
    f32x4 k = f32x4_sub(t, round);
    f32x4 r = f32x4_sub(x, f32x4_mul(k, f32x4_splat(0x1.62ep-1f))); /* exact (Sterbenz) */
    r = f32x4_sub(r, f32x4_mul(k, f32x4_splat(0x1.0bfbe8p-15f)));
    f32x4 q = f32x4_add(f32x4_mul(f32x4_splat(0x1.686aa8p-10f), r), f32x4_splat(0x1.124194p-7f));
    q = f32x4_add(f32x4_mul(q, r), f32x4_splat(0x1.555b96p-5f));
    q = f32x4_add(f32x4_mul(q, r), f32x4_splat(0x1.555486p-3f));
    q = f32x4_add(f32x4_mul(q, r), f32x4_splat(0x1.fffff8p-2f));
    f32x4 e = f32x4_add(f32x4_splat(1.0f), f32x4_add(f32x4_mul(q, f32x4_mul(r, r)), r));
    /* 2^k: the low bits of t hold k (|k| < 2^22), shifted into the exponent
       field of 1.0f (the rest falls off); a NaN e stays NaN through the multiply */
    f32x4 two_k = f32x4_from_bits(u32x4_add(u32x4_shl(f32x4_bits(t), 23), f32x4_bits(f32x4_splat(1.0f))));
    return f32x4_zero_where(f32x4_lt(x, f32x4_splat(-87.33f)), f32x4_mul(e, two_k));
}

/*
 * Softmax of one row in place, stably: m = max_j x[j] (NaN entries are
 * skipped), e_j = exp(x[j] - m) by nn_exp4 (the subtraction in float), the
 * sum of the e_j in double, then x[j] = (float)(e_j * (1 / sum)) in double.
 * The sum's order: four lane sums over j = 4c + l (c ascending), then
 * (l0 + l1) + (l2 + l3), then the tail j >= 4 floor(n / 4) in order. A row
 * of only -INFINITY becomes zeros.
 */
void nn_softmax_row(float *x, size_t n);

/* nn_softmax_row given the row's maximum m, as nn_softmax_row finds it
 * (the largest entry, NaN skipped; -INFINITY when every entry is): for a
 * caller that has just written the row and kept its maximum. */
void nn_softmax_row_max(float *x, size_t n, float m);

/* nn_softmax_row_max in its two halves, for a caller with several rows in
 * hand (attention's block of queries): each row's chain of exp, sum,
 * reciprocal and scale is long, and running the halves row after row lets
 * the rows' chains overlap. nn_softmax_exp writes e_j over x and returns
 * their sum (0 for a row of only -INFINITY, which it zeroes);
 * nn_softmax_scale then divides the row by that sum (none when it is 0). */
double nn_softmax_exp(float *x, size_t n, float m);
void nn_softmax_scale(float *x, size_t n, double sum);

/* The largest entry of x (NaN skipped; -INFINITY for none): lanes, then in order. */
float nn_row_max(const float *x, size_t n);

/*
 * The activations of the feed-forward block, in place on n floats
 * (posenc_activation). ReLU: x > 0 ? x : +0, exactly. GELU (erf
 * form): x Phi(x) with Phi(x) = 1 - Q(x) for x >= 0 and Q(|x|) for x < 0,
 * Q(a) = erfc(a / sqrt 2) / 2 = t exp(-a^2 / 2) P(t), t = 1 / (1 + 0.3 a), P
 * a degree-9 least-squares fit (relative error 9e-9 before rounding): Q keeps
 * its relative accuracy in the tail, where 1 + erf loses it. GELU (tanh
 * form): x / 2 (1 + tanh u), u = sqrt(2/pi) (x + 0.044715 x^3), as
 * x / (1 + e) for u >= 0 and x e / (1 + e) for u < 0, e = exp(-2 |u|).
 * SiLU: x / (1 + e) for x >= 0 and x e / (1 + e) for x < 0, e = exp(-|x|)
 * (x sigmoid(x) without exp overflowing), within 2 ulp of x sigmoid(x)
 * for x >= -87.33; below, -0 (exp underflows: the true value is under 1e-35
 * in magnitude; tests/c/test_block.c checks a sample).
 * The GELUs within 1.5e-7 max(|x|, 1) of the exact function (at most 1.22e-7 and
 * 1.29e-7 over every float of [-20, 20]; about 1 ulp where |GELU(x)| >= 1;
 * tests/c/test_kernels.c checks a sample).
 */
void nn_activate(float *x, size_t n, int activation);

/* out (== x allowed) = (x - mean) / sqrt(var + eps) * gamma + beta, per row
 * (gamma, beta NULL: 1 and 0): the mean, then the biased variance, each summed
 * in k order in double, then one rounding to float (posenc_layer_norm). */
void nn_layer_norm(float *out, const float *x, size_t rows, size_t d, const float *gamma,
                   const float *beta, double eps);

/* out (== x allowed) = x / sqrt(mean(x^2) + eps) * gamma, per row (RMSNorm,
 * Zhang & Sennrich 2019; HF LlamaRMSNorm): the mean of squares summed in k
 * order in double, then (float)(x[k] * r * gamma[k]) in double, r =
 * 1 / sqrt(mean + eps) (gamma NULL: 1). */
void nn_rms_norm(float *out, const float *x, size_t rows, size_t d, const float *gamma, double eps);

#endif
