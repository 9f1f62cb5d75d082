/*
 * nn_ops.c: the encoder's building blocks (formulas and sources in posenc_encoder.h):
 * embedding lookup, layer norm, linear, softmax, attention, feed-forward,
 * mean pooling. Statistics and softmax sums in double; products in float
 * through src/encoder/nn_kernels.c.
 */
#include "posenc_encoder.h"

#include <math.h>

#include "checked.h"
#include "encoder_params.h"
#include "nn_attend.h"
#include "nn_kernels.h"
#include "nn_math.h"
#include "nn_ops.h"

size_t nn_feed_forward_len(size_t d_model, size_t d_ff)
{
    size_t w, total;
    /* 2 d_ff d + d_ff + d */
    if (checked_mul3(2, d_ff, d_model, &w) || __builtin_add_overflow(w, d_ff, &total) ||
        __builtin_add_overflow(total, d_model, &total))
        return 0;
    return total;
}

void nn_attend(float *out, const float *q, const float *k, const float *v, size_t q_stride, size_t kv_stride,
               size_t group, size_t first, size_t rows, size_t heads, size_t head_dim, nn_bias bias,
               const int32_t *key_mask, int causal, size_t window, float *probs, float *scratch)
{
    size_t keys = first + rows;
    nn_head a = { .out_stride = q_stride, .q_stride = q_stride, .kv_stride = kv_stride, .head_dim = head_dim,
                  .first = first, .rows = rows, .keys = keys,
                  .scale = (float)(1.0 / sqrt((double)head_dim)), .bias_step = bias.row_step,
                  .key_mask = key_mask, .causal = causal, .window = window, .probs_stride = keys,
                  .scratch = scratch };
    for (size_t h = 0; h < heads; h++) {
        size_t col = h * head_dim, kv_col = h / group * head_dim;
        a.out = out + col, a.q = q + col, a.k = k + kv_col, a.v = v + kv_col;
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
    int status;
    if (!out)
        return fail_null(1, "out");
    if (!tokens && seq)
        return fail_null(3, "tokens");
    if (!table)
        return fail_null(5, "table");
    if ((status = encoder_check(POSENC_PARAM_VOCAB_SIZE, 7, (double)vocab_size)) ||
        (status = encoder_check(POSENC_PARAM_ENCODER_D_MODEL, 8, (double)d_model)) ||
        (status = encoder_check(POSENC_PARAM_EMBED_FACTOR, 9, scale)))
        return status;
    if (checked_mul(seq, d_model, &need))
        return fail_size(4, "seq * d_model", seq, d_model);
    if (checked_mul(vocab_size, d_model, &rows))
        return fail_size(7, "vocab_size * d_model", vocab_size, d_model);
    if (out_len < need)
        return fail_length(2, "out_len", out_len, need);
    if (table_len < rows)
        return fail_length(6, "table_len", table_len, rows);
    for (size_t s = 0; s < seq; s++)
        if (tokens[s] < 0 || (size_t)tokens[s] >= vocab_size)
            return param_element(param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_TOKENS, 3, "tokens",
                                                   POSENC_RULE_INTEGER, tokens[s], 0.0, (double)vocab_size - 1.0,
                                                   "vocab_size - 1", NULL),
                                 s);
    /* out is written while tokens are read: an out over the ids would turn
       checked ids into unchecked ones (a read out of bounds) */
    if (nn_overlap(out, need, table, rows))
        return fail_overlap(1, "out", "table");
    if (nn_overlap(out, need, tokens, seq))
        return fail_overlap(1, "out", "tokens");
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
    int status;
    if (!out)
        return fail_null(1, "out");
    if (!x)
        return fail_null(3, "x");
    eps = encoder_or_default(POSENC_PARAM_EPS, eps);
    if ((status = encoder_check(POSENC_PARAM_ENCODER_D_MODEL, 6, (double)d_model)) ||
        (status = encoder_check(POSENC_PARAM_EPS, 9, eps)))
        return status;
    if (checked_mul(rows, d_model, &need))
        return fail_size(5, "rows * d_model", rows, d_model);
    if (out_len < need)
        return fail_length(2, "out_len", out_len, need);
    if (x_len < need)
        return fail_length(4, "x_len", x_len, need);
    if (out != x && nn_overlap(out, need, x, need))
        return fail_overlap(1, "out", "x"); /* in place, or apart */
    if (nn_overlap(out, need, gamma, d_model))
        return fail_overlap(1, "out", "gamma");
    if (nn_overlap(out, need, beta, d_model))
        return fail_overlap(1, "out", "beta");
    nn_layer_norm(out, x, rows, d_model, gamma, beta, eps);
    return POSENC_OK;
}

int posenc_linear(float *out, size_t out_len, const float *x, size_t x_len, size_t rows,
                  size_t in_features, const float *weight, size_t weight_len, size_t out_features,
                  const float *bias)
{
    size_t need, in, w;
    int status;
    if (!out)
        return fail_null(1, "out");
    if (!x)
        return fail_null(3, "x");
    if (!weight)
        return fail_null(7, "weight");
    if ((status = encoder_check(POSENC_PARAM_IN_FEATURES_NN, 6, (double)in_features)) ||
        (status = encoder_check(POSENC_PARAM_OUT_FEATURES, 9, (double)out_features)))
        return status;
    if (checked_mul(rows, out_features, &need))
        return fail_size(5, "rows * out_features", rows, out_features);
    if (checked_mul(rows, in_features, &in))
        return fail_size(5, "rows * in_features", rows, in_features);
    if (checked_mul(out_features, in_features, &w))
        return fail_size(9, "out_features * in_features", out_features, in_features);
    if (out_len < need)
        return fail_length(2, "out_len", out_len, need);
    if (x_len < in)
        return fail_length(4, "x_len", x_len, in);
    if (weight_len < w)
        return fail_length(8, "weight_len", weight_len, w);
    if (nn_overlap(out, need, x, in))
        return fail_overlap(1, "out", "x");
    if (nn_overlap(out, need, weight, w))
        return fail_overlap(1, "out", "weight");
    if (nn_overlap(out, need, bias, out_features))
        return fail_overlap(1, "out", "bias");
    nn_linear(out, out_features, x, in_features, rows, weight, in_features, out_features, in_features,
              bias);
    return POSENC_OK;
}

int posenc_softmax(float *x, size_t x_len, size_t rows, size_t cols)
{
    size_t need;
    int status;
    if (!x)
        return fail_null(1, "x");
    if ((status = encoder_check(POSENC_PARAM_COLS, 4, (double)cols)))
        return status;
    if (checked_mul(rows, cols, &need))
        return fail_size(3, "rows * cols", rows, cols);
    if (x_len < need)
        return fail_length(2, "x_len", x_len, need);
    /* -INFINITY is a masked score (probability 0); NaN and +INFINITY have no softmax */
    for (size_t i = 0; i < need; i++)
        if (isnan(x[i]) || x[i] == INFINITY)
            return param_element(param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_SCORES, 1, "x",
                                                   POSENC_RULE_RESULT, x[i], -INFINITY, POSENC_FLOAT_MAX, NULL,
                                                   "must be finite or -Infinity (a masked score)"),
                                 i);
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
    int status;
    if (!out)
        return fail_null(1, "out");
    if (!q)
        return fail_null(3, "q");
    if (!k)
        return fail_null(4, "k");
    if (!v)
        return fail_null(5, "v");
    if (!bias && bias_len)
        return fail_null(10, "bias");
    if (!probs && probs_len)
        return fail_null(14, "probs");
    if (!work && (work_len || (!probs && seq))) /* the scratch of a call without probs */
        return fail_null(16, "work");
    if ((status = encoder_check(POSENC_PARAM_ENCODER_HEADS, 8, (double)heads)) ||
        (status = encoder_check(POSENC_PARAM_HEAD_DIM, 9, (double)head_dim)) ||
        (status = encoder_check(POSENC_PARAM_CAUSAL, 13, causal)))
        return status;
    if (checked_mul3(seq, heads, head_dim, &need))
        return fail_size(7, "seq * heads * head_dim", seq, saturated_mul(heads, head_dim));
    if (checked_mul(seq, seq, &plane) || checked_mul(plane, heads, &planes))
        return fail_size(7, "seq * seq * heads", seq, saturated_mul(seq, heads));
    if (out_len < need)
        return fail_length(2, "out_len", out_len, need);
    if (qkv_len < need)
        return fail_length(6, "qkv_len", qkv_len, need);
    if (bias && bias_len < planes)
        return fail_length(11, "bias_len", bias_len, planes);
    if (probs && probs_len < planes)
        return fail_length(15, "probs_len", probs_len, planes);
    if (!probs && work_len < plane)
        return fail_length(17, "work_len", work_len, plane);
    float *scratch = probs ? probs : work;
    size_t scratch_len = probs ? planes : plane;
    int scratch_index = probs ? 14 : 16;
    const char *scratch_name = probs ? "probs" : "work";
    const void *inputs[] = { q, k, v, bias, key_mask };
    const size_t input_bytes[] = { posenc_bytes(need, sizeof *q), posenc_bytes(need, sizeof *k),
                                   posenc_bytes(need, sizeof *v), posenc_bytes(planes, sizeof *bias),
                                   posenc_bytes(seq, sizeof *key_mask) };
    static const char *const input_names[] = { "q", "k", "v", "bias", "key_mask" };
    size_t out_bytes = posenc_bytes(need, sizeof *out), scratch_bytes = posenc_bytes(scratch_len, sizeof *scratch);
    if (posenc_overlaps(scratch, scratch_bytes, out, out_bytes))
        return fail_overlap(scratch_index, scratch_name, "out");
    for (size_t i = 0; i < sizeof inputs / sizeof *inputs; i++) {
        if (posenc_overlaps(out, out_bytes, inputs[i], input_bytes[i]))
            return fail_overlap(1, "out", input_names[i]);
        if (posenc_overlaps(scratch, scratch_bytes, inputs[i], input_bytes[i]))
            return fail_overlap(scratch_index, scratch_name, input_names[i]);
    }
    if (need == 0) /* no token: no loop over the (maybe huge) heads */
        return POSENC_OK;
    nn_bias b = { bias, plane, (ptrdiff_t)seq };
    nn_attend(out, q, k, v, heads * head_dim, heads * head_dim, 1, 0, seq, heads, head_dim, b, key_mask, causal, 0,
              probs, work);
    return POSENC_OK;
}

int posenc_feed_forward(float *out, size_t out_len, const float *x, size_t x_len, size_t rows,
                        size_t d_model, size_t d_ff, const float *params, size_t params_len,
                        int activation, float *work, size_t work_len)
{
    size_t need, hidden, block = nn_feed_forward_len(d_model, d_ff);
    int status;
    if (!out)
        return fail_null(1, "out");
    if (!x)
        return fail_null(3, "x");
    if (!params)
        return fail_null(8, "params");
    if (!work && rows)
        return fail_null(11, "work");
    if ((status = encoder_check(POSENC_PARAM_ENCODER_D_MODEL, 6, (double)d_model)) ||
        (status = encoder_check(POSENC_PARAM_D_FF, 7, (double)d_ff)) ||
        (status = encoder_check(POSENC_PARAM_ACTIVATION, 10, activation)))
        return status;
    if (block == 0)
        return fail_size(6, "2 * d_model * d_ff + d_ff + d_model", d_model, saturated_mul(2, d_ff));
    if (checked_mul(rows, d_model, &need))
        return fail_size(5, "rows * d_model", rows, d_model);
    if (checked_mul(rows, d_ff, &hidden))
        return fail_size(5, "rows * d_ff", rows, d_ff);
    if (out_len < need)
        return fail_length(2, "out_len", out_len, need);
    if (x_len < need)
        return fail_length(4, "x_len", x_len, need);
    if (params_len < block)
        return fail_length(9, "params_len", params_len, block);
    if (work_len < hidden)
        return fail_length(12, "work_len", work_len, hidden);
    if (out != x && nn_overlap(out, need, x, need))
        return fail_overlap(1, "out", "x"); /* in place, or apart */
    if (nn_overlap(out, need, params, block))
        return fail_overlap(1, "out", "params");
    if (nn_overlap(work, hidden, out, need))
        return fail_overlap(11, "work", "out");
    if (nn_overlap(work, hidden, x, need))
        return fail_overlap(11, "work", "x");
    if (nn_overlap(work, hidden, params, block))
        return fail_overlap(11, "work", "params");
    nn_feed_forward(out, x, rows, d_model, d_ff, params, activation, work);
    return POSENC_OK;
}

int posenc_mean_pool(float *out, size_t out_len, const float *x, size_t x_len, size_t seq, size_t d_model,
                     const int32_t *key_mask)
{
    size_t need;
    int status;
    if (!out)
        return fail_null(1, "out");
    if (!x)
        return fail_null(3, "x");
    if ((status = encoder_check(POSENC_PARAM_ENCODER_D_MODEL, 6, (double)d_model)))
        return status;
    if (checked_mul(seq, d_model, &need))
        return fail_size(5, "seq * d_model", seq, d_model);
    if (out_len < d_model)
        return fail_length(2, "out_len", out_len, d_model);
    if (x_len < need)
        return fail_length(4, "x_len", x_len, need);
    if (nn_overlap(out, d_model, x, need))
        return fail_overlap(1, "out", "x");
    if (nn_overlap(out, d_model, key_mask, seq))
        return fail_overlap(1, "out", "key_mask");
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
