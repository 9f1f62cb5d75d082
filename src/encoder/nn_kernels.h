/* nn_kernels.h: the matrix products of the encoder (src/encoder/nn_ops.c, src/encoder/encoder.c). */
#ifndef POSENC_NN_KERNELS_H
#define POSENC_NN_KERNELS_H

#include <stddef.h>

/*
 * y[r * ys + o] = dot(x + r * xs, w + o * wstride, n) (+ bias[o] when bias is
 * not NULL), r < rows, o < outs: nn.Linear with weight [outs][n] (PyTorch's
 * layout), and q k^T with strided heads. Every dot sums in one order whatever
 * the blocking and the build: four lane sums over i = 4c + l (c ascending),
 * then (l0 + l1) + (l2 + l3), then the tail i >= 4 floor(n / 4) in order.
 */
void nn_linear(float *y, size_t ys, const float *x, size_t xs, size_t rows, const float *w,
               size_t wstride, size_t outs, size_t n, const float *bias);

/*
 * nn_linear added into y: y[r * ys + o] += dot (+ bias[o]), the product (and
 * its bias) rounded before the add, so the same bits as nn_linear into a
 * scratch row and a separate add: a residual connection without the pass.
 */
void nn_linear_add(float *y, size_t ys, const float *x, size_t xs, size_t rows, const float *w,
                   size_t wstride, size_t outs, size_t n, const float *bias);

/*
 * nn_linear with W [outs][n] held as 16-bit halves (format: a
 * posenc_weight_format, F16 or BF16; row o starts at half o * n): the same
 * outputs, bit for bit, as nn_linear on the halves widened to float32. One
 * row: each weight widened in registers as it is read; more rows: four rows
 * of W at a time widened into tile (4 n floats), which every row then reads.
 * add: 0 writes y, as nn_linear; 1 adds into it, as nn_linear_add.
 */
void nn_linear_half(float *y, size_t ys, const float *x, size_t xs, size_t rows, const void *w, int format,
                    size_t outs, size_t n, const float *bias, float *tile, int add);

/* out[i] = half i at w widened to float32 (format F16 or BF16), i < n. */
void nn_widen(float *out, const void *w, int format, size_t n);

/*
 * y[i * ys + c] = sum_j a[i * as + j] * b[j * bs + c], i < rows, c < cols,
 * summed over j = 0, 1, ... in order (attention probabilities times values).
 */
void nn_mix(float *y, size_t ys, const float *a, size_t as, size_t rows, const float *b, size_t bs,
            size_t inner, size_t cols);

#endif
