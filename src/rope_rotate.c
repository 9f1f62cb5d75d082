/*
 * rope_rotate.c: the RoPE rotation kernels, four floats at a time through
 * simd.h, the coefficients kept in registers across all heads of a row.
 * Each SIMD path computes exactly what rotate_scalar computes (the same
 * float operations in the same order), which also finishes the tails.
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

/* 'half': a = v[k..k+3], b = v[half + k..], four pairs per f32x4; each head's
 * pairs are contiguous, so the inner loop walks them with unit stride. */
static size_t rotate_half(float *row, size_t heads, size_t head_stride, size_t half, size_t k0, size_t n,
                          const float *c, const float *s)
{
    size_t n4 = n - n % 4;
    for (size_t h = 0; h < heads; h++) {
        float *a = row + h * head_stride + k0, *b = a + half;
        for (size_t k = 0; k < n4; k += 4) {
            f32x4 c4 = f32x4_load(c + k), s4 = f32x4_load(s + k);
            f32x4 a4 = f32x4_load(a + k), b4 = f32x4_load(b + k);
            f32x4_store(a + k, f32x4_sub(f32x4_mul(a4, c4), f32x4_mul(b4, s4)));
            f32x4_store(b + k, f32x4_add(f32x4_mul(b4, c4), f32x4_mul(a4, s4)));
        }
    }
    return n4;
}

/* 'interleaved': [a0 b0 a1 b1] [c0 c0 c1 c1] + [b0 a0 b1 a1] [-s0 s0 -s1 s1]; the
 * spread coefficients are laid out once per row, then every head walks them. */
static size_t rotate_interleaved(float *row, size_t heads, size_t head_stride, size_t k0, size_t n,
                                 const float *c, const float *s)
{
    float cc[2 * ROPE_ROTATE_MAX_PAIRS], ss[2 * ROPE_ROTATE_MAX_PAIRS];
    size_t n2 = n - n % 2;
    for (size_t k = 0; k < n2; k++) {
        cc[2 * k] = cc[2 * k + 1] = c[k];
        ss[2 * k] = -s[k];
        ss[2 * k + 1] = s[k];
    }
    for (size_t h = 0; h < heads; h++) {
        float *v = row + h * head_stride + 2 * k0;
        for (size_t i = 0; i < 2 * n2; i += 4) {
            f32x4 v4 = f32x4_load(v + i);
            f32x4 r = f32x4_add(f32x4_mul(v4, f32x4_load(cc + i)), f32x4_mul(f32x4_swap_pairs(v4), f32x4_load(ss + i)));
            f32x4_store(v + i, r);
        }
    }
    return n2;
}

void rope_rotate_row(float *row, size_t heads, size_t head_stride, size_t half, size_t k0, size_t n,
                     int layout, const float *c, const float *s)
{
    int interleaved = layout == POSENC_ROPE_INTERLEAVED;
    size_t done = interleaved ? rotate_interleaved(row, heads, head_stride, k0, n, c, s)
                              : rotate_half(row, heads, head_stride, half, k0, n, c, s);
    for (size_t h = 0; h < heads; h++) {
        float *v = row + h * head_stride;
        for (size_t k = done; k < n; k++) {
            size_t i = k0 + k;
            float *a = interleaved ? v + 2 * i : v + i, *b = interleaved ? a + 1 : a + half;
            rotate_scalar(a, b, c[k], s[k]);
        }
    }
}
