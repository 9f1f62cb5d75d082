/*
 * kernels.c: the encoder's kernels (src/encoder/nn_kernels.c, nn_attend.c,
 * nn_math.c) called straight, at the shapes of the copy-task models, for
 * bench/kernels.mjs: where a prefill, a one-token step and a full pass spend
 * their time. Compiled as the SIMD build compiles the kernels (-O2
 * -msimd128). Each probe repeats its call `reps` times.
 */
#include <stddef.h>
#include <stdint.h>

#include "nn_attend.h"
#include "nn_kernels.h"
#include "nn_math.h"
#include "posenc_encoder.h"

/* y [rows][outs] = x [rows][n] W^T + b, W [outs][n] (nn.Linear) */
__attribute__((used)) void kernel_linear(float *y, const float *x, size_t rows, const float *w, size_t outs,
                                         size_t n, const float *b, int reps)
{
    for (int r = 0; r < reps; r++)
        nn_linear(y, outs, x, n, rows, w, n, outs, n, b);
}

__attribute__((used)) void kernel_gelu(float *x, size_t n, int reps)
{
    for (int r = 0; r < reps; r++)
        nn_activate(x, n, POSENC_ACTIVATION_GELU);
}

__attribute__((used)) void kernel_layer_norm(float *out, const float *x, size_t rows, size_t d, const float *gamma,
                                             int reps)
{
    for (int r = 0; r < reps; r++)
        nn_layer_norm(out, x, rows, d, gamma, gamma + d, 1e-5);
}

/*
 * One head of causal self-attention over queries [first, first + rows)
 * against keys [0, first + rows), rows d_model floats apart (the heads
 * interleaved, as the encoder lays them out). parts: 0 the kernel itself
 * (nn_attend_head); else nn_attend_head's loop redone from its parts, up to
 * 1 the scores (q k^T, nn_linear), 2 + their row maximum (nn_row_max, the
 * pass that scales and masks them), 3 + the softmax (nn_softmax_row_max),
 * 4 + p v (nn_mix).
 */
__attribute__((used)) void kernel_attend(float *out, const float *q, const float *k, const float *v, size_t d_model,
                                         size_t head_dim, size_t first, size_t rows, float *scratch, int parts,
                                         int reps)
{
    size_t keys = first + rows;
    nn_head a = { .out = out, .out_stride = d_model, .q = q, .k = k, .v = v, .q_stride = d_model,
                  .kv_stride = d_model, .head_dim = head_dim, .first = first, .rows = rows, .keys = keys,
                  .scale = 0.25f, .causal = 1, .scratch = scratch };
    for (int r = 0; r < reps; r++) {
        if (parts == 0) {
            nn_attend_head(&a);
            continue;
        }
        for (size_t r0 = 0, nr; r0 < rows; r0 += nr) {
            nr = rows - r0 < NN_ATTEND_ROWS ? rows - r0 : NN_ATTEND_ROWS;
            size_t last = first + r0 + nr - 1, span = last + 1 < keys ? last + 1 : keys;
            nn_linear(scratch, keys, q + r0 * d_model, d_model, nr, k, d_model, span, head_dim, NULL);
            for (size_t t = 0; parts >= 2 && t < nr; t++) {
                size_t n = first + r0 + t + 1;
                float m = nn_row_max(scratch + t * keys, n);
                if (parts >= 3)
                    nn_softmax_row_max(scratch + t * keys, n, m);
                for (size_t j = n; j < span; j++)
                    scratch[t * keys + j] = 0.0f;
            }
            if (parts >= 4)
                nn_mix(out + r0 * d_model, d_model, scratch, keys, nr, v, d_model, span, head_dim);
        }
    }
}
