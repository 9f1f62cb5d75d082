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
 * y[i * ys + c] = sum_j a[i * as + j] * b[j * bs + c], i < rows, c < cols,
 * summed over j = 0, 1, ... in order (attention probabilities times values).
 */
void nn_mix(float *y, size_t ys, const float *a, size_t as, size_t rows, const float *b, size_t bs,
            size_t inner, size_t cols);

#endif
