/* nn_ops.h: the encoder's building blocks without argument checks, shared by
 * their public wrappers (src/encoder/nn_ops.c) and the layer stack (src/encoder/encoder.c). */
#ifndef POSENC_NN_OPS_H
#define POSENC_NN_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "checked.h"

/* Whether na elements at a and nb elements at b share memory, whatever their
 * element types (floats, int32 ids and masks, doubles); NULL and empty runs never do. */
#define nn_overlap(a, na, b, nb) \
    posenc_overlaps((a), posenc_bytes((na), sizeof *(a)), (b), posenc_bytes((nb), sizeof *(b)))

/* Floats of a feed-forward block [w1 | b1 | w2 | b2]; 0 on overflow. */
size_t nn_feed_forward_len(size_t d_model, size_t d_ff);


/* An additive score bias: query i's row of head h at
 * base + h * head_stride + i * row_step (nn_attend_head's bias and bias_step). */
typedef struct nn_bias {
    const float *base;
    size_t head_stride;
    ptrdiff_t row_step;
} nn_bias;

/* Scaled dot-product attention of every head (nn_attend_head): `rows`
 * queries at positions [first, first + rows) against the keys [0, first +
 * rows) (first = 0, rows = seq: self-attention; first = the tokens cached:
 * decoding with a KV cache). q and out hold the rows' queries and outputs,
 * each row q_stride floats apart, [heads][head_dim] within a row; k and v
 * every key and value, kv_stride apart, [heads / group][head_dim] within a
 * row: query head h reads key and value head h / group (grouped-query
 * attention; group 1: one each). bias: base NULL for none. window: 0, or
 * keys i - j >= window masked (nn_head). probs: [heads][rows][first + rows]
 * or NULL (then scratch holds min(NN_ATTEND_ROWS, rows) * (first + rows) floats). */
void nn_attend(float *out, const float *q, const float *k, const float *v, size_t q_stride, size_t kv_stride,
               size_t group, size_t first, size_t rows, size_t heads, size_t head_dim, nn_bias bias,
               const int32_t *key_mask, int causal, size_t window, float *probs, float *scratch);

/* out (== x allowed) = W2 act(W1 x + b1) + b2, hidden: rows * d_ff floats. */
void nn_feed_forward(float *out, const float *x, size_t rows, size_t d, size_t d_ff,
                     const float *params, int activation, float *hidden);

#endif
