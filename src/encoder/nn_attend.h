/* nn_attend.h: scaled dot-product attention of one head, for a block of
 * queries against a run of keys (the encoder's self-attention, and the form a
 * cache of keys and values needs: queries at positions [first, first + rows)
 * against keys [0, keys)). */
#ifndef POSENC_NN_ATTEND_H
#define POSENC_NN_ATTEND_H

#include <stddef.h>
#include <stdint.h>

/* Queries per block: each load of a key or value row serves this many. */
#define NN_ATTEND_ROWS 4

/*
 * One head. Query r (r < rows) sits at position i = first + r; key j at j.
 *   score[r][j] = q_r . k_j * scale + bias_i[j]   (nn_linear's dot, then one
 *                 float multiply and one add, as posenc_attention states),
 *                 -INFINITY where key_mask[j] == 0;
 *   causal: query i reads only the keys j <= i (the others are neither
 *           computed nor exponentiated: their probability is 0);
 *   window: 0, or the keys j <= i - window get -INFINITY (probability 0;
 *           a sliding window, HF's sliding_window_overlay);
 *   p[r][.]     = nn_softmax_row of the keys it reads;
 *   out[r][c]   = sum_j p[r][j] v_j[c], summed over j in order (nn_mix).
 * Rows: q row r at q + r * q_stride, out row r at out + r * out_stride, key
 * and value j at k + j * kv_stride and v + j * kv_stride.
 * bias NULL, or query i's bias row at bias + i * bias_step (a full plane:
 * bias_step = keys; a relative table, whose entry depends on j - i only:
 * bias_step = -1 with bias at the entry of j - i = 0).
 * probs NULL, or row r's probabilities written at probs + r * probs_stride:
 * keys floats, 0 past the keys the query reads. scratch:
 * min(NN_ATTEND_ROWS, rows) * keys floats, used when probs is NULL.
 */
typedef struct nn_head {
    float *out;
    size_t out_stride;
    const float *q, *k, *v;
    size_t q_stride, kv_stride, head_dim;
    size_t first, rows, keys;
    float scale;
    const float *bias;
    ptrdiff_t bias_step;
    const int32_t *key_mask;
    int causal;
    size_t window;
    float *probs;
    size_t probs_stride;
    float *scratch;
} nn_head;

void nn_attend_head(const nn_head *a);

#endif
