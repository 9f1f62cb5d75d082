/*
 * nn_ops.c: the encoder's building blocks (formulas and sources in posenc_encoder.h):
 * embedding lookup, layer norm, linear, softmax, attention, feed-forward,
 * mean pooling. Statistics and softmax sums in double; products in float
 * through src/encoder/nn_kernels.c.
 */
#include "posenc_encoder.h"

#include <math.h>

#include "checked.h"
#include "nn_attend.h"
#include "nn_kernels.h"
#include "nn_math.h"
#include "nn_ops.h"

#define DEFAULT_EPS 1e-5

size_t nn_feed_forward_len(size_t d_model, size_t d_ff)
{
    size_t w, total;
    /* 2 d_ff d + d_ff + d */
    if (checked_mul3(2, d_ff, d_model, &w) || __builtin_add_overflow(w, d_ff, &total) ||
        __builtin_add_overflow(total, d_model, &total))
        return 0;
    return total;
}

int nn_valid_activation(int activation)
{
    return activation == POSENC_ACTIVATION_RELU || activation == POSENC_ACTIVATION_GELU ||
           activation == POSENC_ACTIVATION_GELU_TANH;
}

void nn_attend(float *out, const float *q, const float *k, const float *v, size_t stride, size_t first,
               size_t rows, size_t heads, size_t head_dim, nn_bias bias, const int32_t *key_mask,
               int causal, float *probs, float *scratch)
{
    size_t keys = first + rows;
    nn_head a = { .out_stride = stride, .q_stride = stride, .kv_stride = stride, .head_dim = head_dim,
                  .first = first, .rows = rows, .keys = keys,
                  .scale = (float)(1.0 / sqrt((double)head_dim)), .bias_step = bias.row_step,
                  .key_mask = key_mask, .causal = causal, .probs_stride = keys, .scratch = scratch };
    for (size_t h = 0; h < heads; h++) {
        size_t col = h * head_dim;
        a.out = out + col, a.q = q + col, a.k = k + col, a.v = v + col;
        a.bias = bias.base ? bias.base + h * bias.head_stride : NULL;
        a.probs = probs ? probs + h * rows * keys : NULL;
        nn_attend_head(&a);
    }
}

void nn_feed_forward(float *out, const float *x, size_t rows, size_t d, size_t d_ff,
                     const float *params, int activation, float *hidden)
{
    const float *w1 = params, *b1 = w1 + d_ff * d, *w2 = b1 + d_ff, *b2 = w2 + d * d_ff;
    nn_linear(hidden, d_ff, x, d, rows, w1, d, d_ff, d, b1);
    nn_activate(hidden, rows * d_ff, activation);
    nn_linear(out, d, hidden, d_ff, rows, w2, d_ff, d, d_ff, b2);
}

/* ------------------------------------------------------------ public routines */

int posenc_embed(float *out, size_t out_len, const int32_t *tokens, size_t seq, const float *table,
                 size_t table_len, size_t vocab_size, size_t d_model, float scale)
{
    size_t need, rows;
    if (!out || !table || (!tokens && seq))
        return POSENC_ERR_NULL_POINTER;
    if (vocab_size == 0 || d_model == 0 || !isfinite(scale))
        return POSENC_ERR_INVALID_ARGUMENT;
    if (checked_mul(seq, d_model, &need) || checked_mul(vocab_size, d_model, &rows))
        return POSENC_ERR_SIZE_OVERFLOW;
    if (out_len < need || table_len < rows)
        return POSENC_ERR_BUFFER_TOO_SMALL;
    for (size_t s = 0; s < seq; s++)
        if (tokens[s] < 0 || (size_t)tokens[s] >= vocab_size)
            return POSENC_ERR_INVALID_ARGUMENT;
    /* out is written while tokens are read: an out over the ids would turn
       checked ids into unchecked ones (a read out of bounds) */
    if (nn_overlap(out, need, table, rows) || nn_overlap(out, need, tokens, seq))
        return POSENC_ERR_INVALID_ARGUMENT;
    for (size_t s = 0; s < seq; s++) {
        const float *e = table + (size_t)tokens[s] * d_model;
        for (size_t k = 0; k < d_model; k++)
            out[s * d_model + k] = e[k] * scale;
    }
    return POSENC_OK;
}

int posenc_layer_norm(float *out, size_t out_len, const float *x, size_t x_len, size_t rows, size_t d_model,
                      const float *gamma, const float *beta, double eps)
{
    size_t need;
    if (!out || !x)
        return POSENC_ERR_NULL_POINTER;
    if (eps == 0.0)
        eps = DEFAULT_EPS;
    if (d_model == 0 || !isfinite(eps) || !(eps > 0.0))
        return POSENC_ERR_INVALID_ARGUMENT;
    if (checked_mul(rows, d_model, &need))
        return POSENC_ERR_SIZE_OVERFLOW;
    if (out_len < need || x_len < need)
        return POSENC_ERR_BUFFER_TOO_SMALL;
    if (out != x && nn_overlap(out, need, x, need))
        return POSENC_ERR_INVALID_ARGUMENT; /* in place, or apart */
    if (nn_overlap(out, need, gamma, d_model) || nn_overlap(out, need, beta, d_model))
        return POSENC_ERR_INVALID_ARGUMENT;
    nn_layer_norm(out, x, rows, d_model, gamma, beta, eps);
    return POSENC_OK;
}

int posenc_linear(float *out, size_t out_len, const float *x, size_t x_len, size_t rows,
                  size_t in_features, const float *weight, size_t weight_len, size_t out_features,
                  const float *bias)
{
    size_t need, in, w;
    if (!out || !x || !weight)
        return POSENC_ERR_NULL_POINTER;
    if (in_features == 0 || out_features == 0)
        return POSENC_ERR_INVALID_ARGUMENT;
    if (checked_mul(rows, out_features, &need) || checked_mul(rows, in_features, &in) ||
        checked_mul(out_features, in_features, &w))
        return POSENC_ERR_SIZE_OVERFLOW;
    if (out_len < need || x_len < in || weight_len < w)
        return POSENC_ERR_BUFFER_TOO_SMALL;
    if (nn_overlap(out, need, x, in) || nn_overlap(out, need, weight, w) ||
        nn_overlap(out, need, bias, out_features))
        return POSENC_ERR_INVALID_ARGUMENT;
    nn_linear(out, out_features, x, in_features, rows, weight, in_features, out_features, in_features,
              bias);
    return POSENC_OK;
}

int posenc_softmax(float *x, size_t x_len, size_t rows, size_t cols)
{
    size_t need;
    if (!x)
        return POSENC_ERR_NULL_POINTER;
    if (cols == 0)
        return POSENC_ERR_INVALID_ARGUMENT;
    if (checked_mul(rows, cols, &need))
        return POSENC_ERR_SIZE_OVERFLOW;
    if (x_len < need)
        return POSENC_ERR_BUFFER_TOO_SMALL;
    for (size_t i = 0; i < need; i++)
        if (isnan(x[i]) || x[i] == INFINITY)
            return POSENC_ERR_INVALID_ARGUMENT;
    for (size_t r = 0; r < rows; r++)
        nn_softmax_row(x + r * cols, cols);
    return POSENC_OK;
}

int posenc_attention(float *out, size_t out_len, const float *q, const float *k, const float *v,
                     size_t qkv_len, size_t seq, size_t heads, size_t head_dim, const float *bias,
                     size_t bias_len, const int32_t *key_mask, int causal, float *probs,
                     size_t probs_len, float *work, size_t work_len)
{
    size_t need, plane, planes;
    if (!out || !q || !k || !v || (!bias && bias_len) || (!probs && probs_len) || (!work && work_len) ||
        (!probs && !work && seq))
        return POSENC_ERR_NULL_POINTER;
    if (heads == 0 || head_dim == 0 || (causal != 0 && causal != 1))
        return POSENC_ERR_INVALID_ARGUMENT;
    if (checked_mul3(seq, heads, head_dim, &need) || checked_mul(seq, seq, &plane) ||
        checked_mul(plane, heads, &planes))
        return POSENC_ERR_SIZE_OVERFLOW;
    if (out_len < need || qkv_len < need || (bias && bias_len < planes) || (probs && probs_len < planes) ||
        (!probs && work_len < plane))
        return POSENC_ERR_BUFFER_TOO_SMALL;
    float *scratch = probs ? probs : work;
    size_t scratch_len = probs ? planes : plane;
    if (nn_overlap(out, need, q, need) || nn_overlap(out, need, k, need) || nn_overlap(out, need, v, need) ||
        nn_overlap(out, need, bias, planes) || nn_overlap(scratch, scratch_len, out, need) ||
        nn_overlap(scratch, scratch_len, q, need) || nn_overlap(scratch, scratch_len, k, need) ||
        nn_overlap(scratch, scratch_len, v, need) || nn_overlap(scratch, scratch_len, bias, planes) ||
        nn_overlap(out, need, key_mask, seq) || nn_overlap(scratch, scratch_len, key_mask, seq))
        return POSENC_ERR_INVALID_ARGUMENT;
    if (need == 0) /* no token: no loop over the (maybe huge) heads */
        return POSENC_OK;
    nn_bias b = { bias, plane, (ptrdiff_t)seq };
    nn_attend(out, q, k, v, heads * head_dim, 0, seq, heads, head_dim, b, key_mask, causal, probs, work);
    return POSENC_OK;
}

int posenc_feed_forward(float *out, size_t out_len, const float *x, size_t x_len, size_t rows,
                        size_t d_model, size_t d_ff, const float *params, size_t params_len,
                        int activation, float *work, size_t work_len)
{
    size_t need, hidden, block = nn_feed_forward_len(d_model, d_ff);
    if (!out || !x || !params || (!work && rows))
        return POSENC_ERR_NULL_POINTER;
    if (d_model == 0 || d_ff == 0 || !nn_valid_activation(activation))
        return POSENC_ERR_INVALID_ARGUMENT;
    if (block == 0 || checked_mul(rows, d_model, &need) || checked_mul(rows, d_ff, &hidden))
        return POSENC_ERR_SIZE_OVERFLOW;
    if (out_len < need || x_len < need || params_len < block || work_len < hidden)
        return POSENC_ERR_BUFFER_TOO_SMALL;
    if ((out != x && nn_overlap(out, need, x, need)) || nn_overlap(out, need, params, block) ||
        nn_overlap(work, hidden, out, need) || nn_overlap(work, hidden, x, need) ||
        nn_overlap(work, hidden, params, block))
        return POSENC_ERR_INVALID_ARGUMENT;
    nn_feed_forward(out, x, rows, d_model, d_ff, params, activation, work);
    return POSENC_OK;
}

int posenc_mean_pool(float *out, size_t out_len, const float *x, size_t x_len, size_t seq, size_t d_model,
                     const int32_t *key_mask)
{
    size_t need;
    if (!out || !x)
        return POSENC_ERR_NULL_POINTER;
    if (d_model == 0)
        return POSENC_ERR_INVALID_ARGUMENT;
    if (checked_mul(seq, d_model, &need))
        return POSENC_ERR_SIZE_OVERFLOW;
    if (out_len < d_model || x_len < need)
        return POSENC_ERR_BUFFER_TOO_SMALL;
    if (nn_overlap(out, d_model, x, need) || nn_overlap(out, d_model, key_mask, seq))
        return POSENC_ERR_INVALID_ARGUMENT;
    size_t kept = 0;
    for (size_t s = 0; s < seq; s++)
        kept += !key_mask || key_mask[s];
    for (size_t k = 0; k < d_model; k++) {
        double sum = 0.0;
        for (size_t s = 0; s < seq; s++)
            if (!key_mask || key_mask[s])
                sum += x[s * d_model + k];
        out[k] = kept ? (float)(sum / (double)kept) : 0.0f;
    }
    return POSENC_OK;
}
