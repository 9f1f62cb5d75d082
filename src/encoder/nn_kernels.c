/*
 * nn_kernels.c: matrix products four floats at a time through simd.h. The
 * blocked paths compute each output exactly as the one-output path does (the
 * order is fixed in nn_kernels.h), so results do not depend on where an
 * output falls in the blocking, nor on the build (SIMD or scalar twin).
 */
#include "nn_kernels.h"

#include "posenc_encoder.h"
#include "simd.h"

/* Scalar tails stay loops: unrolling them buys nothing and the wasm ships inline. */
#if defined(__clang__)
#define SCALAR_LOOP _Pragma("clang loop unroll(disable) vectorize(disable)")
#else
#define SCALAR_LOOP
#endif

/* The blocks are called from two places (row pairs, a lone row): inlined in
 * both, or the pairs' loop measured 1.3x slower (a call per block). */
#if defined(__GNUC__)
#define ALWAYS_INLINE __attribute__((always_inline))
#else
#define ALWAYS_INLINE
#endif

/* One dot product, the reference order. */
static float dot(const float *x, const float *w, size_t n)
{
    size_t n4 = n & ~(size_t)3, i;
    f32x4 acc = f32x4_splat(0.0f);
    for (i = 0; i < n4; i += 4)
        acc = f32x4_add(acc, f32x4_mul(f32x4_load(x + i), f32x4_load(w + i)));
    float s = f32x4_sum(acc);
    SCALAR_LOOP
    for (; i < n; i++)
        s += x[i] * w[i];
    return s;
}

/*
 * Every kernel's last step, for four outputs and for one: the sum, plus its
 * bias (NULL: none), written to y, or added to y (add): each step rounded, as
 * separate passes for the bias and the residual would round them.
 */
static inline ALWAYS_INLINE void put4(float *y, f32x4 s, const float *bias, int add)
{
    if (bias)
        s = f32x4_add(s, f32x4_load(bias));
    f32x4_store(y, add ? f32x4_add(f32x4_load(y), s) : s);
}

static inline ALWAYS_INLINE void put(float *y, float v, const float *bias, int add)
{
    if (bias)
        v += *bias;
    *y = add ? *y + v : v;
}

/*
 * Two rows by four outputs: each x and w load feeds four, resp. two, products.
 * The eight lane sums are reduced four at a time (f32x4_sum4: the order of
 * f32x4_sum), the tail i >= n4 added after in order, then the bias.
 */
static inline ALWAYS_INLINE void block_2x4(float *y0, float *y1, const float *x0, const float *x1, const float *w,
                                           size_t wstride, size_t n, const float *bias, int add)
{
    size_t n4 = n & ~(size_t)3;
    const float *w0 = w, *w1 = w + wstride, *w2 = w + 2 * wstride, *w3 = w + 3 * wstride;
    f32x4 a00 = f32x4_splat(0.0f), a01 = a00, a02 = a00, a03 = a00;
    f32x4 a10 = a00, a11 = a00, a12 = a00, a13 = a00;
    for (size_t i = 0; i < n4; i += 4) {
        f32x4 u = f32x4_load(x0 + i), v = f32x4_load(x1 + i), k;
        k = f32x4_load(w0 + i);
        a00 = f32x4_add(a00, f32x4_mul(u, k));
        a10 = f32x4_add(a10, f32x4_mul(v, k));
        k = f32x4_load(w1 + i);
        a01 = f32x4_add(a01, f32x4_mul(u, k));
        a11 = f32x4_add(a11, f32x4_mul(v, k));
        k = f32x4_load(w2 + i);
        a02 = f32x4_add(a02, f32x4_mul(u, k));
        a12 = f32x4_add(a12, f32x4_mul(v, k));
        k = f32x4_load(w3 + i);
        a03 = f32x4_add(a03, f32x4_mul(u, k));
        a13 = f32x4_add(a13, f32x4_mul(v, k));
    }
    f32x4 s0 = f32x4_sum4(a00, a01, a02, a03), s1 = f32x4_sum4(a10, a11, a12, a13);
    if (n4 == n) { /* put4's steps, the bias loaded once for both rows */
        if (bias) {
            f32x4 b = f32x4_load(bias);
            s0 = f32x4_add(s0, b), s1 = f32x4_add(s1, b);
        }
        put4(y1, s1, NULL, add);
        put4(y0, s0, NULL, add);
        return;
    }
    float t0[4], t1[4];
    f32x4_store(t0, s0);
    f32x4_store(t1, s1);
    for (size_t o = 0; o < 4; o++) {
        const float *wo = w + o * wstride;
        SCALAR_LOOP
        for (size_t i = n4; i < n; i++) {
            t0[o] += x0[i] * wo[i];
            t1[o] += x1[i] * wo[i];
        }
        put(y1 + o, t1[o], bias ? bias + o : NULL, add);
        put(y0 + o, t0[o], bias ? bias + o : NULL, add);
    }
}

/*
 * One row by four outputs (a single token's projections, a query's scores),
 * block_2x4's order per output, each row computed once. Four, not eight: the
 * lanes of each output are one chain of adds (the order fixes them), so more
 * outputs would put more chains in flight, but eight weight rows' addresses
 * spill V8's x64 registers: 1x8 and 1x6 measured no faster than a row
 * paired with itself, 1x4 about 1.4x faster (bench/kernels.mjs, on each).
 */
static inline ALWAYS_INLINE void block_1x4(float *y, const float *x, const float *w, size_t wstride, size_t n,
                                           const float *bias, int add)
{
    size_t n4 = n & ~(size_t)3;
    const float *w0 = w, *w1 = w + wstride, *w2 = w + 2 * wstride, *w3 = w + 3 * wstride;
    f32x4 a0 = f32x4_splat(0.0f), a1 = a0, a2 = a0, a3 = a0;
    for (size_t i = 0; i < n4; i += 4) {
        f32x4 u = f32x4_load(x + i);
        a0 = f32x4_add(a0, f32x4_mul(u, f32x4_load(w0 + i)));
        a1 = f32x4_add(a1, f32x4_mul(u, f32x4_load(w1 + i)));
        a2 = f32x4_add(a2, f32x4_mul(u, f32x4_load(w2 + i)));
        a3 = f32x4_add(a3, f32x4_mul(u, f32x4_load(w3 + i)));
    }
    f32x4 s0 = f32x4_sum4(a0, a1, a2, a3);
    if (n4 == n) {
        put4(y, s0, bias, add);
        return;
    }
    float t[4];
    f32x4_store(t, s0);
    for (size_t o = 0; o < 4; o++) {
        const float *wo = w + o * wstride;
        SCALAR_LOOP
        for (size_t i = n4; i < n; i++)
            t[o] += x[i] * wo[i];
        put(y + o, t[o], bias ? bias + o : NULL, add);
    }
}

/* One row: four outputs at a time, then one by one. */
static void linear_row(float *y, const float *x, const float *w, size_t wstride, size_t outs, size_t n,
                       const float *bias, int add)
{
    size_t o = 0;
    for (; o + 4 <= outs; o += 4)
        block_1x4(y + o, x, w + o * wstride, wstride, n, bias ? bias + o : NULL, add);
    for (; o < outs; o++) {
        float t = dot(x, w + o * wstride, n);
        put(y + o, t, bias ? bias + o : NULL, add);
    }
}

/* nn_linear (add 0) and nn_linear_add (add 1). */
static void linear(float *y, size_t ys, const float *x, size_t xs, size_t rows, const float *w, size_t wstride,
                   size_t outs, size_t n, const float *bias, int add)
{
    size_t outs4 = outs & ~(size_t)3, r;
    /* rows in pairs; an odd last row alone */
    for (r = 0; r + 2 <= rows; r += 2) {
        const float *x0 = x + r * xs, *x1 = x0 + xs;
        float *y0 = y + r * ys, *y1 = y0 + ys;
        for (size_t o = 0; o < outs4; o += 4)
            block_2x4(y0 + o, y1 + o, x0, x1, w + o * wstride, wstride, n, bias ? bias + o : NULL, add);
        for (size_t o = outs4; o < outs; o++) {
            float t0 = dot(x0, w + o * wstride, n), t1 = dot(x1, w + o * wstride, n);
            put(y1 + o, t1, bias ? bias + o : NULL, add);
            put(y0 + o, t0, bias ? bias + o : NULL, add);
        }
    }
    if (r < rows)
        linear_row(y + r * ys, x + r * xs, w, wstride, outs, n, bias, add);
}

void nn_linear(float *y, size_t ys, const float *x, size_t xs, size_t rows, const float *w,
               size_t wstride, size_t outs, size_t n, const float *bias)
{
    linear(y, ys, x, xs, rows, w, wstride, outs, n, bias, 0);
}

void nn_linear_add(float *y, size_t ys, const float *x, size_t xs, size_t rows, const float *w,
                   size_t wstride, size_t outs, size_t n, const float *bias)
{
    linear(y, ys, x, xs, rows, w, wstride, outs, n, bias, 1);
}

/* ------------------------------------------------------------ 16-bit weights */

/* Four and eight halves at p as floats, and half i (bf16: BF16, else F16). */
static inline ALWAYS_INLINE f32x4 load4_half(const unsigned char *p, int bf16)
{
    return bf16 ? f32x4_load_bf16(p) : f32x4_load_f16(p);
}

static inline ALWAYS_INLINE void load8_half(const unsigned char *p, int bf16, f32x4 *lo, f32x4 *hi)
{
    if (bf16)
        f32x4_load8_bf16(p, lo, hi);
    else
        f32x4_load8_f16(p, lo, hi);
}

static inline ALWAYS_INLINE float half_value(const unsigned char *p, size_t i, int bf16)
{
    return bf16 ? bf16_to_f32(half_at(p, i)) : f16_to_f32(half_at(p, i));
}

/* dot() with w as halves: the same order. */
static inline ALWAYS_INLINE float dot_half(const float *x, const unsigned char *w, size_t n, int bf16)
{
    size_t n4 = n & ~(size_t)3, i;
    f32x4 acc = f32x4_splat(0.0f);
    for (i = 0; i < n4; i += 4)
        acc = f32x4_add(acc, f32x4_mul(f32x4_load(x + i), load4_half(w + 2 * i, bf16)));
    float s = f32x4_sum(acc);
    SCALAR_LOOP
    for (; i < n; i++)
        s += x[i] * half_value(w, i, bf16);
    return s;
}

/*
 * block_1x4 with the four weight rows as halves (row o at w + 2 o n bytes):
 * eight per step, as two of block_1x4's steps of four in its order, then a
 * step of four, the tail and the bias as block_1x4 adds them. Memory-bound
 * at a model's size, a token's products read half the bytes (widening costs
 * a few lane operations per four weights: bench/half-weights.mjs).
 */
static inline ALWAYS_INLINE void block_1x4_half(float *y, const float *x, const unsigned char *w, size_t n,
                                                const float *bias, int bf16, int add)
{
    size_t n4 = n & ~(size_t)3, n8 = n & ~(size_t)7, i;
    const unsigned char *w0 = w, *w1 = w + 2 * n, *w2 = w + 4 * n, *w3 = w + 6 * n;
    f32x4 a0 = f32x4_splat(0.0f), a1 = a0, a2 = a0, a3 = a0, lo, hi;
    for (i = 0; i < n8; i += 8) {
        f32x4 u = f32x4_load(x + i), v = f32x4_load(x + i + 4);
        load8_half(w0 + 2 * i, bf16, &lo, &hi);
        a0 = f32x4_add(f32x4_add(a0, f32x4_mul(u, lo)), f32x4_mul(v, hi));
        load8_half(w1 + 2 * i, bf16, &lo, &hi);
        a1 = f32x4_add(f32x4_add(a1, f32x4_mul(u, lo)), f32x4_mul(v, hi));
        load8_half(w2 + 2 * i, bf16, &lo, &hi);
        a2 = f32x4_add(f32x4_add(a2, f32x4_mul(u, lo)), f32x4_mul(v, hi));
        load8_half(w3 + 2 * i, bf16, &lo, &hi);
        a3 = f32x4_add(f32x4_add(a3, f32x4_mul(u, lo)), f32x4_mul(v, hi));
    }
    if (i < n4) {
        f32x4 u = f32x4_load(x + i);
        a0 = f32x4_add(a0, f32x4_mul(u, load4_half(w0 + 2 * i, bf16)));
        a1 = f32x4_add(a1, f32x4_mul(u, load4_half(w1 + 2 * i, bf16)));
        a2 = f32x4_add(a2, f32x4_mul(u, load4_half(w2 + 2 * i, bf16)));
        a3 = f32x4_add(a3, f32x4_mul(u, load4_half(w3 + 2 * i, bf16)));
    }
    f32x4 s0 = f32x4_sum4(a0, a1, a2, a3);
    if (n4 == n) {
        put4(y, s0, bias, add);
        return;
    }
    float t[4];
    f32x4_store(t, s0);
    for (size_t o = 0; o < 4; o++) {
        const unsigned char *wo = w + 2 * o * n;
        SCALAR_LOOP
        for (size_t k = n4; k < n; k++)
            t[o] += x[k] * half_value(wo, k, bf16);
        put(y + o, t[o], bias ? bias + o : NULL, add);
    }
}

/* One row against the halves: four outputs at a time, then one by one (linear_row's order). */
static inline ALWAYS_INLINE void linear_row_half(float *y, const float *x, const unsigned char *w, size_t outs,
                                                 size_t n, const float *bias, int bf16, int add)
{
    size_t o = 0;
    for (; o + 4 <= outs; o += 4)
        block_1x4_half(y + o, x, w + 2 * o * n, n, bias ? bias + o : NULL, bf16, add);
    for (; o < outs; o++) {
        float t = dot_half(x, w + 2 * o * n, n, bf16);
        put(y + o, t, bias ? bias + o : NULL, add);
    }
}

/* The two formats apart, each with its loads inlined. */
static void linear_row_f16(float *y, const float *x, const unsigned char *w, size_t outs, size_t n, const float *bias,
                           int add)
{
    linear_row_half(y, x, w, outs, n, bias, 0, add);
}

static void linear_row_bf16(float *y, const float *x, const unsigned char *w, size_t outs, size_t n, const float *bias,
                            int add)
{
    linear_row_half(y, x, w, outs, n, bias, 1, add);
}

void nn_widen(float *out, const void *w, int format, size_t n)
{
    const unsigned char *p = w;
    int bf16 = format == POSENC_WEIGHT_FORMAT_BF16;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        f32x4 lo, hi;
        load8_half(p + 2 * i, bf16, &lo, &hi);
        f32x4_store(out + i, lo);
        f32x4_store(out + i + 4, hi);
    }
    SCALAR_LOOP
    for (; i < n; i++)
        out[i] = half_value(p, i, bf16);
}

void nn_linear_half(float *y, size_t ys, const float *x, size_t xs, size_t rows, const void *w, int format,
                    size_t outs, size_t n, const float *bias, float *tile, int add)
{
    const unsigned char *p = w;
    if (rows == 1) {
        if (format == POSENC_WEIGHT_FORMAT_BF16)
            linear_row_bf16(y, x, p, outs, n, bias, add);
        else
            linear_row_f16(y, x, p, outs, n, bias, add);
        return;
    }
    /* every output of nn_linear sums in one order whatever its blocking: four
       outputs at a time give the whole product's bits */
    for (size_t o = 0; rows && o < outs; o += 4) {
        size_t k = outs - o < 4 ? outs - o : 4;
        nn_widen(tile, p + 2 * o * n, format, k * n);
        linear(y + o, ys, x, xs, rows, tile, n, k, n, bias ? bias + o : NULL, add);
    }
}

/* Up to four rows (a0..a3, the same row repeated when fewer) by eight columns:
 * each load of b feeds four products, each splat of a two. */
static void mix_4x8(float *const y[4], const float *const a[4], const float *b, size_t bs, size_t inner)
{
    f32x4 s00 = f32x4_splat(0.0f), s01 = s00, s10 = s00, s11 = s00, s20 = s00, s21 = s00, s30 = s00, s31 = s00;
    for (size_t j = 0; j < inner; j++) {
        f32x4 v0 = f32x4_load(b + j * bs), v1 = f32x4_load(b + j * bs + 4), p;
        p = f32x4_splat(a[0][j]);
        s00 = f32x4_add(s00, f32x4_mul(p, v0));
        s01 = f32x4_add(s01, f32x4_mul(p, v1));
        p = f32x4_splat(a[1][j]);
        s10 = f32x4_add(s10, f32x4_mul(p, v0));
        s11 = f32x4_add(s11, f32x4_mul(p, v1));
        p = f32x4_splat(a[2][j]);
        s20 = f32x4_add(s20, f32x4_mul(p, v0));
        s21 = f32x4_add(s21, f32x4_mul(p, v1));
        p = f32x4_splat(a[3][j]);
        s30 = f32x4_add(s30, f32x4_mul(p, v0));
        s31 = f32x4_add(s31, f32x4_mul(p, v1));
    }
    /* rows repeated for padding are written last, so the real row's values stand */
    f32x4_store(y[3], s30), f32x4_store(y[3] + 4, s31);
    f32x4_store(y[2], s20), f32x4_store(y[2] + 4, s21);
    f32x4_store(y[1], s10), f32x4_store(y[1] + 4, s11);
    f32x4_store(y[0], s00), f32x4_store(y[0] + 4, s01);
}

/* One row (a single query's p v): sixteen columns at a time, each splat of
 * a feeding four products, then eight, four, one; summed over j in order. */
static void mix_row(float *y, const float *a, const float *b, size_t bs, size_t inner, size_t cols)
{
    size_t c = 0;
    for (; c + 16 <= cols; c += 16) {
        f32x4 s0 = f32x4_splat(0.0f), s1 = s0, s2 = s0, s3 = s0;
        for (size_t j = 0; j < inner; j++) {
            const float *v = b + j * bs + c;
            f32x4 p = f32x4_splat(a[j]);
            s0 = f32x4_add(s0, f32x4_mul(p, f32x4_load(v)));
            s1 = f32x4_add(s1, f32x4_mul(p, f32x4_load(v + 4)));
            s2 = f32x4_add(s2, f32x4_mul(p, f32x4_load(v + 8)));
            s3 = f32x4_add(s3, f32x4_mul(p, f32x4_load(v + 12)));
        }
        f32x4_store(y + c, s0), f32x4_store(y + c + 4, s1), f32x4_store(y + c + 8, s2), f32x4_store(y + c + 12, s3);
    }
    for (; c + 4 <= cols; c += 4) {
        f32x4 s = f32x4_splat(0.0f);
        for (size_t j = 0; j < inner; j++)
            s = f32x4_add(s, f32x4_mul(f32x4_splat(a[j]), f32x4_load(b + j * bs + c)));
        f32x4_store(y + c, s);
    }
    for (; c < cols; c++) {
        float acc = 0.0f;
        SCALAR_LOOP
        for (size_t j = 0; j < inner; j++)
            acc += a[j] * b[j * bs + c];
        y[c] = acc;
    }
}

void nn_mix(float *y, size_t ys, const float *a, size_t as, size_t rows, const float *b, size_t bs,
            size_t inner, size_t cols)
{
    size_t cols8 = cols & ~(size_t)7, cols4 = cols & ~(size_t)3;
    if (rows == 1) {
        mix_row(y, a, b, bs, inner, cols);
        return;
    }
    /* four rows at a time share each load of b; missing rows repeat the last */
    for (size_t i = 0; i < rows; i += 4) {
        const float *ar[4];
        float *yr[4];
        for (size_t t = 0; t < 4; t++) {
            size_t row = i + t < rows ? i + t : rows - 1;
            ar[t] = a + row * as, yr[t] = y + row * ys;
        }
        for (size_t c = 0; c < cols8; c += 8) {
            float *yc[4] = { yr[0] + c, yr[1] + c, yr[2] + c, yr[3] + c };
            mix_4x8(yc, ar, b + c, bs, inner);
        }
        for (size_t c = cols8; c < cols4; c += 4) {
            f32x4 s[4] = { f32x4_splat(0.0f), f32x4_splat(0.0f), f32x4_splat(0.0f), f32x4_splat(0.0f) };
            for (size_t j = 0; j < inner; j++) {
                f32x4 v = f32x4_load(b + j * bs + c);
                for (size_t t = 0; t < 4; t++)
                    s[t] = f32x4_add(s[t], f32x4_mul(f32x4_splat(ar[t][j]), v));
            }
            for (size_t t = 4; t-- > 0;)
                f32x4_store(yr[t] + c, s[t]);
        }
        for (size_t c = cols4; c < cols; c++)
            for (size_t t = 4; t-- > 0;) {
                float acc = 0.0f;
                SCALAR_LOOP
                for (size_t j = 0; j < inner; j++)
                    acc += ar[t][j] * b[j * bs + c];
                yr[t][c] = acc;
            }
    }
}
