/*
 * half_weights.c: the encoder's matrix products with F16 or BF16 weights
 * (nn_linear_half: widened in registers for one row, through a widened tile
 * of four rows of W for more) against nn_linear on the same values widened to
 * float32 in memory, called straight for bench/half-weights.mjs. Compiled
 * as the SIMD build compiles the kernels (-O2 -msimd128).
 */
#include <stddef.h>
#include <stdint.h>

#include "nn_kernels.h"

/* format 0: float32 weights (nn_linear); 1: F16; 2: BF16 (posenc_weight_format). */
__attribute__((used)) void matvec(int format, float *y, const float *x, size_t rows, const void *w, size_t outs,
                                  size_t n, float *tile, int reps)
{
    for (int r = 0; r < reps; r++) {
        if (format == 0)
            nn_linear(y, outs, x, n, rows, (const float *)w, n, outs, n, NULL);
        else
            nn_linear_half(y, outs, x, n, rows, w, format, outs, n, NULL, tile, 0);
    }
}

__attribute__((used)) void widen(int format, float *out, const void *w, size_t count)
{
    nn_widen(out, w, format, count);
}
