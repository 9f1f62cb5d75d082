/*
 * rope_rotate.c: the RoPE rotation kernels, four floats at a time through
 * simd.h. Each SIMD path computes exactly what rotate_scalar computes (the
 * same float operations in the same order), which also finishes the tails.
 */
#include "rope_rotate.h"

#include "posenc.h"
#include "simd.h"

/* The reference for one pair; b * (-s) + a * c == a * c - b * s exactly. */
static inline void rotate_scalar(float *a, float *b, float c, float s)
{
    float ac = *a * c, bs = *b * s, bc = *b * c, as = *a * s;
    *a = ac - bs;
    *b = bc + as;
}

void rope_rotate_spread(int layout, size_t n, float *c, float *s)
{
    if (layout != POSENC_ROPE_INTERLEAVED)
        return;
    for (size_t k = n; k-- > 0;) { /* from the top: pair k moves to 2k, 2k + 1 */
        float ck = c[k], sk = s[k];
        c[2 * k] = c[2 * k + 1] = ck;
        s[2 * k] = -sk;
        s[2 * k + 1] = sk;
    }
}

/* 'half': a = v[k..k+3], b = v[half + k..], four pairs per f32x4; each head's
 * pairs are contiguous, so the inner loop walks them with unit stride. */
static size_t rotate_half(float *x, size_t count, size_t stride, size_t half, size_t k0, size_t n,
                          const float *c, const float *s, size_t coeff_stride)
{
    size_t n4 = n - n % 4;
    for (size_t v = 0; v < count; v++) {
        float *a = x + v * stride + k0, *b = a + half;
        const float *cv = c + v * coeff_stride, *sv = s + v * coeff_stride;
        for (size_t k = 0; k < n4; k += 4) {
            f32x4 c4 = f32x4_load(cv + k), s4 = f32x4_load(sv + k);
            f32x4 a4 = f32x4_load(a + k), b4 = f32x4_load(b + k);
            f32x4_store(a + k, f32x4_sub(f32x4_mul(a4, c4), f32x4_mul(b4, s4)));
            f32x4_store(b + k, f32x4_add(f32x4_mul(b4, c4), f32x4_mul(a4, s4)));
        }
    }
    return n4;
}

/* 'interleaved': [a0 b0 a1 b1] [c0 c0 c1 c1] + [b0 a0 b1 a1] [-s0 s0 -s1 s1], two
 * pairs per f32x4, on the coefficients rope_rotate_spread laid out. */
static size_t rotate_interleaved(float *x, size_t count, size_t stride, size_t k0, size_t n,
                                 const float *c, const float *s, size_t coeff_stride)
{
    size_t n2 = n - n % 2;
    for (size_t v = 0; v < count; v++) {
        float *p = x + v * stride + 2 * k0;
        const float *cv = c + v * coeff_stride, *sv = s + v * coeff_stride;
        for (size_t i = 0; i < 2 * n2; i += 4) {
            f32x4 p4 = f32x4_load(p + i);
            f32x4_store(p + i, f32x4_add(f32x4_mul(p4, f32x4_load(cv + i)),
                                         f32x4_mul(f32x4_swap_pairs(p4), f32x4_load(sv + i))));
        }
    }
    return n2;
}

void rope_rotate(float *x, size_t count, size_t stride, size_t half, size_t k0, size_t n, int layout,
                 const float *c, const float *s, size_t coeff_stride)
{
    int interleaved = layout == POSENC_ROPE_INTERLEAVED;
    size_t done = interleaved ? rotate_interleaved(x, count, stride, k0, n, c, s, coeff_stride)
                              : rotate_half(x, count, stride, half, k0, n, c, s, coeff_stride);
    for (size_t v = 0; v < count; v++) {
        float *p = x + v * stride;
        const float *cv = c + v * coeff_stride, *sv = s + v * coeff_stride;
        for (size_t k = done; k < n; k++) {
            size_t i = k0 + k;
            float *a = interleaved ? p + 2 * i : p + i, *b = interleaved ? a + 1 : a + half;
            /* spread: pair k's cos at 2k, its sin (positive) at 2k + 1 */
            rotate_scalar(a, b, interleaved ? cv[2 * k] : cv[k], interleaved ? sv[2 * k + 1] : sv[k]);
        }
    }
}
