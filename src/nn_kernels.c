/*
 * nn_kernels.c: matrix products four floats at a time through simd.h. The
 * blocked paths compute each output exactly as the one-output path does (the
 * order is fixed in nn_kernels.h), so results do not depend on where an
 * output falls in the blocking, nor on the build (SIMD or scalar twin).
 */
#include "nn_kernels.h"

#include "simd.h"

/* Scalar tails stay loops: unrolling them buys nothing and the wasm ships inline. */
#if defined(__clang__)
#define SCALAR_LOOP _Pragma("clang loop unroll(disable) vectorize(disable)")
#else
#define SCALAR_LOOP
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

static float finish(f32x4 acc, const float *x, const float *w, size_t n4, size_t n)
{
    float s = f32x4_sum(acc);
    SCALAR_LOOP
    for (size_t i = n4; i < n; i++)
        s += x[i] * w[i];
    return s;
}

/* Two rows by four outputs: each x and w load feeds four, resp. two, products. */
static void block_2x4(float *y0, float *y1, const float *x0, const float *x1, const float *w, size_t wstride,
                      size_t n)
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
    y0[0] = finish(a00, x0, w0, n4, n);
    y0[1] = finish(a01, x0, w1, n4, n);
    y0[2] = finish(a02, x0, w2, n4, n);
    y0[3] = finish(a03, x0, w3, n4, n);
    y1[0] = finish(a10, x1, w0, n4, n);
    y1[1] = finish(a11, x1, w1, n4, n);
    y1[2] = finish(a12, x1, w2, n4, n);
    y1[3] = finish(a13, x1, w3, n4, n);
}

void nn_linear(float *y, size_t ys, const float *x, size_t xs, size_t rows, const float *w,
               size_t wstride, size_t outs, size_t n, const float *bias)
{
    size_t outs4 = outs & ~(size_t)3;
    /* rows in pairs; an odd last row pairs with itself (same values, written twice) */
    for (size_t r = 0; r < rows; r += 2) {
        const float *x0 = x + r * xs, *x1 = r + 1 < rows ? x0 + xs : x0;
        float *y0 = y + r * ys, *y1 = r + 1 < rows ? y0 + ys : y0;
        for (size_t o = 0; o < outs4; o += 4)
            block_2x4(y0 + o, y1 + o, x0, x1, w + o * wstride, wstride, n);
        for (size_t o = outs4; o < outs; o++) {
            y0[o] = dot(x0, w + o * wstride, n);
            y1[o] = dot(x1, w + o * wstride, n);
        }
    }
    if (bias)
        for (size_t r = 0; r < rows; r++)
            for (size_t o = 0; o < outs; o++)
                y[r * ys + o] += bias[o];
}

void nn_mix(float *y, size_t ys, const float *a, size_t as, size_t rows, const float *b, size_t bs,
            size_t inner, size_t cols)
{
    size_t cols4 = cols & ~(size_t)3;
    /* two rows at a time share each load of b; an odd last row pairs with itself */
    for (size_t i = 0; i < rows; i += 2) {
        const float *a0 = a + i * as, *a1 = i + 1 < rows ? a0 + as : a0;
        float *y0 = y + i * ys, *y1 = i + 1 < rows ? y0 + ys : y0;
        for (size_t c = 0; c < cols4; c += 4) {
            f32x4 s0 = f32x4_splat(0.0f), s1 = s0;
            for (size_t j = 0; j < inner; j++) {
                f32x4 v = f32x4_load(b + j * bs + c);
                s0 = f32x4_add(s0, f32x4_mul(f32x4_splat(a0[j]), v));
                s1 = f32x4_add(s1, f32x4_mul(f32x4_splat(a1[j]), v));
            }
            f32x4_store(y0 + c, s0);
            f32x4_store(y1 + c, s1);
        }
        for (size_t c = cols4; c < cols; c++) {
            float s0 = 0.0f, s1 = 0.0f;
            SCALAR_LOOP
            for (size_t j = 0; j < inner; j++) {
                s0 += a0[j] * b[j * bs + c];
                s1 += a1[j] * b[j * bs + c];
            }
            y0[c] = s0, y1[c] = s1;
        }
    }
}
