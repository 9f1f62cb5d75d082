/*
 * nn_math.c: softmax rows and the feed-forward activations, four floats at a
 * time (formulas, orders and error bounds in nn_math.h). The tails run the
 * same vector code on a padded copy, so a value never depends on where it
 * falls in a row.
 */
#include "nn_math.h"

#include <math.h>

#include "posenc.h"

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
    size_t n4 = n & ~(size_t)3, j;
    if (m == -INFINITY) { /* every key masked: no attention rather than 0/0 */
        for (j = 0; j < n; j++)
            x[j] = 0.0f;
        return;
    }
    /* exp(x - max) <= 1: the encoder article's exp(x) / sum exp(x) overflows to inf / inf */
    f32x4 mv = f32x4_splat(m);
    f64x2 s01 = f64x2_splat(0.0), s23 = s01;
    for (j = 0; j < n4; j += 4) {
        f32x4 e = nn_exp4(f32x4_sub(f32x4_load(x + j), mv));
        f32x4_store(x + j, e);
        s01 = f64x2_add(s01, f64x2_from_f32x4_low(e));
        s23 = f64x2_add(s23, f64x2_from_f32x4_high(e));
    }
    double sum = f64x2_sum(s01) + f64x2_sum(s23);
    if (j < n) {
        float tail[4] = { -INFINITY, -INFINITY, -INFINITY, -INFINITY };
        for (size_t t = j; t < n; t++)
            tail[t - j] = x[t];
        f32x4_store(tail, nn_exp4(f32x4_sub(f32x4_load(tail), mv)));
        for (size_t t = j; t < n; t++) {
            x[t] = tail[t - j];
            sum += x[t];
        }
    }
    f64x2 inv = f64x2_splat(1.0 / sum); /* sum >= 1: the maximum contributes exp(0) */
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

/* x Phi(x), Phi by Q(a) = erfc(a / sqrt 2) / 2 = t exp(-a^2 / 2) P(t), t = 1 / (1 + 0.3 a) */
static f32x4 gelu4(f32x4 x)
{
    static const float P[10] = { 0x1.ea3d56p-4f,  0x1.e9b5p-4f,    0x1.c408e6p-4f,  0x1.3e9fbp-4f,
                                 0x1.912ad8p-4f,  -0x1.533c8ap-4f, 0x1.914adep-3f,  -0x1.d9dca6p-3f,
                                 0x1.d21d04p-4f,  -0x1.560abcp-6f };
    f32x4 a = f32x4_abs(x), one = f32x4_splat(1.0f);
    f32x4 t = f32x4_div(one, f32x4_add(one, f32x4_mul(f32x4_splat(0.3f), a)));
    f32x4 p = f32x4_splat(P[9]);
    for (int i = 8; i >= 0; i--)
        p = f32x4_add(f32x4_mul(p, t), f32x4_splat(P[i]));
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

static f32x4 activate4(f32x4 x, int activation)
{
    switch (activation) {
    case POSENC_ACTIVATION_GELU:
        return gelu4(x);
    case POSENC_ACTIVATION_GELU_TANH:
        return gelu_tanh4(x);
    default:
        return relu4(x);
    }
}

void nn_activate(float *x, size_t n, int activation)
{
    size_t n4 = n & ~(size_t)3, j;
    /* the switch outside the loop: one tight loop per activation */
    switch (activation) {
    case POSENC_ACTIVATION_GELU:
        for (j = 0; j < n4; j += 4)
            f32x4_store(x + j, gelu4(f32x4_load(x + j)));
        break;
    case POSENC_ACTIVATION_GELU_TANH:
        for (j = 0; j < n4; j += 4)
            f32x4_store(x + j, gelu_tanh4(f32x4_load(x + j)));
        break;
    default:
        for (j = 0; j < n4; j += 4)
            f32x4_store(x + j, relu4(f32x4_load(x + j)));
    }
    if (n4 < n) {
        float tail[4] = { 0.0f, 0.0f, 0.0f, 0.0f };
        for (j = n4; j < n; j++)
            tail[j - n4] = x[j];
        f32x4_store(tail, activate4(f32x4_load(tail), activation));
        for (j = n4; j < n; j++)
            x[j] = tail[j - n4];
    }
}
