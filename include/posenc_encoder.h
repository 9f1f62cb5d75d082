/*
 * posenc_encoder.h: a tiny transformer encoder and its generation with a KV
 * cache, on posenc's positional encodings (posenc.h). The conventions of
 * posenc.h hold here: C11, no global state, no allocation, caller-owned
 * buffers, status codes, nothing written on error, every size product
 * checked. The wasm of 'posenc/encoder' exports the routines of both
 * headers; the default entry's, those of posenc.h alone.
 */
#ifndef POSENC_ENCODER_H
#define POSENC_ENCODER_H

#include "posenc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* A tiny transformer encoder (Vaswani et al. 2017, "Attention Is All You    */
/* Need", 3.1-3.5; PyTorch nn.TransformerEncoderLayer)                       */
/* ------------------------------------------------------------------------ */

/*
 * Building blocks first, then the whole encoder. Activations are row-major
 * [seq][d_model], one row per token; a row splits into heads as
 * [h0: head_dim | h1: head_dim | ...] (PyTorch's nn.MultiheadAttention). A
 * weight is row-major [out_features][in_features] (nn.Linear.weight), so
 * y = x W^T + b. Products are float32: each dot product sums in a fixed order
 * (four lanes, then (l0 + l1) + (l2 + l3), then the tail), the same in the
 * SIMD and scalar builds, so native and wasm results are bit-identical.
 * Statistics (layer norm, softmax sums, pooling) are taken in double. The
 * elementwise functions are posenc's own, in float, four lanes at a time (no
 * libm call, so again the same bits everywhere): softmax's exp within 1 ulp,
 * GELU within 1.5e-7 max(|x|, 1) (src/nn_math.h). Against the same maths in
 * double, a forward pass agrees to ~1e-6 relative (tested to 1e-5).
 * Non-finite weights propagate; they are not checked (F16 weights: see
 * posenc_weight_format). The sizes of the blocks (vocab_size, d_model,
 * heads, head_dim, d_ff, in_features, out_features, cols) are 1 ..
 * POSENC_POSITION_MAX, as their rows state.
 */

/* Activations of the feed-forward block (Hendrycks & Gimpel 2016, GELU). */
typedef enum posenc_activation {
    POSENC_ACTIVATION_RELU = 0,     /* max(x, 0): Vaswani; the encoder article       */
    POSENC_ACTIVATION_GELU = 1,     /* x/2 (1 + erf(x / sqrt 2)): torch nn.GELU()     */
    POSENC_ACTIVATION_GELU_TANH = 2, /* x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))):
                                       nn.GELU('tanh'), HF gelu_new (GPT-2)           */
    POSENC_ACTIVATION_SILU = 3      /* x / (1 + exp(-x)) (Elfwing et al. 2018; torch
                                       nn.SiLU, HF "silu"): Llama's gated MLP         */
} posenc_activation;

/*
 * posenc_embed: out[s][k] = table[tokens[s]][k] * scale, [seq][d_model]. The
 * article "Transformer Encoder Explained" scales by sqrt(d_model) (Vaswani 3.4).
 *
 *   table    [vocab_size][d_model], table_len >= that many floats
 *   tokens   seq ids, each in [0, vocab_size)
 *   out      must not overlap table or tokens (POSENC_ERR_INVALID_ARGUMENT)
 *   scale    finite
 */
POSENC_API int posenc_embed(float *out, size_t out_len, const int32_t *tokens, size_t seq,
                            const float *table, size_t table_len, size_t vocab_size,
                            size_t d_model, float scale);

/*
 * posenc_layer_norm (Ba et al. 2016; torch nn.LayerNorm), per row of
 * [rows][d_model]:
 *   out[r][k] = (x[r][k] - mean_r) / sqrt(var_r + eps) * gamma[k] + beta[k]
 * with the biased variance var_r = mean((x - mean_r)^2), mean and variance in
 * double, one rounding to float.
 *
 *   out          out_len >= rows * d_model; out == x (in place) or no overlap
 *   gamma, beta  d_model floats each, or NULL for 1 and 0
 *   eps          finite, > 0; 0 selects 1e-5 (torch's default)
 */
POSENC_API int posenc_layer_norm(float *out, size_t out_len, const float *x, size_t x_len,
                                 size_t rows, size_t d_model, const float *gamma,
                                 const float *beta, double eps);

/*
 * posenc_linear: out[r][o] = sum_i x[r][i] W[o][i] + bias[o] (nn.Linear),
 * out [rows][out_features], x [rows][in_features], W [out_features][in_features].
 *
 *   bias     out_features floats, or NULL
 *   out      must not overlap x, W or bias
 */
POSENC_API int posenc_linear(float *out, size_t out_len, const float *x, size_t x_len, size_t rows,
                             size_t in_features, const float *weight, size_t weight_len,
                             size_t out_features, const float *bias);

/*
 * posenc_softmax: each row of x [rows][cols], in place, stably:
 *   x[r][j] = exp(x[r][j] - m_r) / sum_j' exp(x[r][j'] - m_r),  m_r = max_j x[r][j]
 * Subtracting the maximum keeps every exp in (0, 1]: the encoder article's
 * exp(x) / sum exp(x) overflows to inf / inf = NaN once a score passes ~88.7.
 * exp(x - m_r) is posenc's float exp (within 1 ulp; below FLT_MIN it gives 0),
 * the sum is taken in double in a fixed order (four lane sums, then
 * (l0 + l1) + (l2 + l3), then the tail), and each entry is rounded once from
 * exp * (1 / sum) in double.
 * -INFINITY entries (masked scores) get probability 0; a row of only
 * -INFINITY becomes zeros (nothing to attend to), never NaN.
 *
 *   cols     1 .. POSENC_POSITION_MAX;  entries NaN or +INFINITY:
 *            POSENC_ERR_INVALID_ARGUMENT
 */
POSENC_API int posenc_softmax(float *x, size_t x_len, size_t rows, size_t cols);

/*
 * posenc_attention: scaled dot-product attention of every head (Vaswani 3.2),
 * on projected q, k, v, each [seq][heads][head_dim]:
 *
 *   score[h][i][j] = q[i][h] . k[j][h] / sqrt(head_dim) + bias[h][i][j]
 *                    (-INFINITY where key_mask[j] == 0, or causal and j > i)
 *   p[h][i][.]     = softmax(score[h][i][.])          (posenc_softmax's, stable)
 *   out[i][h]      = sum_j p[h][i][j] v[j][h]          out [seq][heads * head_dim]
 *
 * The bias is any additive position bias [heads][seq][seq]: posenc_alibi_bias,
 * posenc_t5_bias. RoPE is applied to q and k beforehand (posenc_rope_apply).
 * The score is the dot product (posenc_linear's order) times the scale in
 * float, plus the bias in float. Causal: the scores j > i are never
 * computed (their probability is 0, exactly as if they were -INFINITY), so a
 * causal pass does about half the work.
 *
 *   q, k, v    qkv_len >= seq * heads * head_dim floats each
 *   bias       NULL (bias_len 0) or bias_len >= heads * seq * seq
 *   key_mask   NULL, or seq int32: 0 masks key j (padding), non-zero keeps it
 *   causal     1 or 0
 *   probs      NULL (probs_len 0), or probs_len >= heads * seq * seq: receives p
 *   work       seq * seq floats when probs is NULL, else unused (may be NULL)
 *   out, probs and work must not overlap each other or the inputs, key_mask
 *   included (POSENC_ERR_INVALID_ARGUMENT)
 */
POSENC_API int posenc_attention(float *out, size_t out_len, const float *q, const float *k,
                                const float *v, size_t qkv_len, size_t seq, size_t heads,
                                size_t head_dim, const float *bias, size_t bias_len,
                                const int32_t *key_mask, int causal, float *probs,
                                size_t probs_len, float *work, size_t work_len);

/*
 * posenc_feed_forward: the position-wise block (Vaswani 3.3), per row of x
 * [rows][d_model]:
 *   out = act(x W1^T + b1) W2^T + b2
 * params packs the four tensors, in this order (the block's part of
 * posenc_encoder_forward's layout):
 *   [ W1 [d_ff][d_model] | b1 [d_ff] | W2 [d_model][d_ff] | b2 [d_model] ]
 *
 *   params_len >= 2 d_ff d_model + d_ff + d_model
 *   activation a posenc_activation
 *   work       rows * d_ff floats (the hidden layer)
 *   out        out == x (in place) or no overlap; work overlaps nothing
 */
POSENC_API int posenc_feed_forward(float *out, size_t out_len, const float *x, size_t x_len,
                                   size_t rows, size_t d_model, size_t d_ff, const float *params,
                                   size_t params_len, int activation, float *work,
                                   size_t work_len);

/*
 * posenc_mean_pool: out[k] = mean of x[s][k] over the rows s with
 * key_mask[s] != 0 (all rows when key_mask is NULL), in double: the encoder
 * article's sentiment pooling, x.mean(axis=1), padding excluded. No row
 * kept (or seq = 0): zeros.
 *
 *   out      out_len >= d_model; x [seq][d_model]; out must not overlap x or
 *            key_mask
 */
POSENC_API int posenc_mean_pool(float *out, size_t out_len, const float *x, size_t x_len, size_t seq,
                                size_t d_model, const int32_t *key_mask);

/* Where positions enter the encoder. */
typedef enum posenc_positional {
    POSENC_POSITIONAL_NONE = 0,       /* no position information (a bag of tokens)      */
    POSENC_POSITIONAL_SINUSOIDAL = 1, /* x = E[t] * scale + PE (posenc_add_sinusoidal)  */
    POSENC_POSITIONAL_ROPE = 2,       /* q, k rotated in every layer (posenc_rope_apply) */
    POSENC_POSITIONAL_ALIBI = 3,      /* -m_h |i - j| added to scores (posenc_alibi_bias)*/
    POSENC_POSITIONAL_T5 = 4,         /* a learned bucket bias (posenc_t5_bias), shared  */
                                      /* by every layer as in HF T5                      */
    POSENC_POSITIONAL_LEARNED = 5     /* x = E[t] * scale + P[s]: absolute position      */
                                      /* embeddings (BERT, GPT-2 wpe), seq <= max_length */
} posenc_positional;

/* The output head of posenc_encoder_logits (a causal language model's). */
typedef enum posenc_lm_head {
    POSENC_LM_HEAD_NONE = 0, /* no LM head: posenc_encoder_logits is refused        */
    POSENC_LM_HEAD_OWN = 1,  /* lm_head.weight [vocab_size][d_model], last in params */
    POSENC_LM_HEAD_TIED = 2  /* the embedding matrix E (GPT-2's tied wte): no tensor */
} posenc_lm_head;

/* Where the layer norms sit (Xiong et al. 2020, "On Layer Normalization in
 * the Transformer Architecture"). */
typedef enum posenc_norm_placement {
    POSENC_NORM_PRE = 0, /* x + f(LN(x)): the encoder article; torch norm_first=True */
    POSENC_NORM_POST = 1 /* LN(x + f(x)): Vaswani; torch's default               */
} posenc_norm_placement;

/* Which norm every norm of the block is (the layers' two, the final one,
 * and the q/k norms' kind when qk_norm is set: always RMS). */
typedef enum posenc_norm_kind {
    POSENC_NORM_KIND_LAYER = 0, /* LayerNorm (Ba et al. 2016): weight and bias tensors    */
    POSENC_NORM_KIND_RMS = 1    /* RMSNorm (Zhang & Sennrich 2019; HF LlamaRMSNorm):
                                   out = x / sqrt(mean(x^2) + eps) * gamma, weight only  */
} posenc_norm_kind;

/* The feed-forward block of every layer. */
typedef enum posenc_mlp_kind {
    POSENC_MLP_PLAIN = 0, /* act(x W1^T + b1) W2^T + b2 (Vaswani 3.3; posenc_feed_forward) */
    POSENC_MLP_GATED = 1  /* (act(x G^T) * (x U^T)) D^T, no biases (Shazeer 2020, GLU
                             variants; HF LlamaMLP: down(act(gate(x)) * up(x)))          */
} posenc_mlp_kind;

/* Which attention projections carry a bias. */
typedef enum posenc_attention_bias {
    POSENC_ATTENTION_BIAS_ALL = 0,  /* q, k, v and out (nn.MultiheadAttention; HF Llama's
                                       attention_bias: true)                              */
    POSENC_ATTENTION_BIAS_NONE = 1, /* none (Llama, Mistral, Qwen3)                        */
    POSENC_ATTENTION_BIAS_QKV = 2   /* q, k and v, not out (Qwen2)                         */
} posenc_attention_bias;

/*
 * How the matrices of the parameter buffer are stored (posenc_encoder_sizes):
 * the projections' weights (q, k, v, out; the feed-forward's two or three),
 * embed.weight and lm_head.weight. Norms, biases and the positional tables
 * are float32 in every format.
 *
 *   F32   float32, one float each
 *   F16   IEEE binary16 (a checkpoint's F16 tensors as given)
 *   BF16  bfloat16: a float32's upper 16 bits (a checkpoint's BF16 tensors)
 *
 * A matrix of n values in F16 or BF16 takes ceil(n / 2) floats of params:
 * its halves in order, two to a float (the buffer's bytes read as uint16_t
 * little-endian, as the safetensors file holds them), the last float's upper
 * half unused when n is odd. Each product widens the halves to float32 in
 * registers, exactly, and multiplies as F32 weights: the results are those of
 * the same values widened to an F32 buffer, bit for bit, with half the memory
 * read. The F16 widening is a shift and one multiply by 2^112 (the exponent
 * biases differ by 112; subnormal halves land exactly); an F16 infinity or
 * NaN (exponent 31) is not a value of this format: it reads as the finite
 * (-1)^s 2^16 (1 + m / 1024). BF16 infinities and NaNs propagate.
 */
typedef enum posenc_weight_format {
    POSENC_WEIGHT_FORMAT_F32 = 0,
    POSENC_WEIGHT_FORMAT_F16 = 1,
    POSENC_WEIGHT_FORMAT_BF16 = 2
} posenc_weight_format;

/*
 * Position-dependent query scales: the query of the token at absolute
 * position p is multiplied by s(p) after RoPE (as transformers scales its
 * rotated query states), in every layer; keys and values are not scaled.
 * s(p) is evaluated in double and rounded once to float (transformers
 * evaluates it in float32: within an ulp or two), then q * s(p) in float.
 *
 *   LLAMA4      s(p) = log(floor((p + 1) / floor_scale) + 1) * attn_scale + 1
 *               Llama 4's attention temperature tuning of its NoPE layers
 *               (transformers modeling_llama4.py, Llama4TextAttention with
 *               attn_temperature_tuning); floor_scale 8192, attn_scale 0.1 by
 *               default (Llama4TextConfig)
 *   MINISTRAL3  s(p) = 1 + beta * log(1 + floor(p / original_max_position))
 *               Ministral 3's llama_4_scaling_beta (modeling_ministral3.py),
 *               original_max_position = rope_parameters'
 *               original_max_position_embeddings
 *
 * With floor_scale 8192, s(p) = 1 for p < 8191: s(8191) = 1 + 0.1 ln 2.
 * posenc.queryScalesFromConfig (the JS API) gives the same multipliers from
 * a config.json.
 */
typedef enum posenc_query_scale {
    POSENC_QUERY_SCALE_NONE = 0,
    POSENC_QUERY_SCALE_LLAMA4 = 1,
    POSENC_QUERY_SCALE_MINISTRAL3 = 2
} posenc_query_scale;

/* Each positional scheme's settings (posenc_encoder_config); zero means default. */
typedef struct posenc_encoder_sinusoidal {
    double base;                  /* 0 = 10000; as posenc_sinusoidal          */
    int layout;                   /* a posenc_layout                          */
} posenc_encoder_sinusoidal;

typedef struct posenc_encoder_alibi {
    double max_bias;              /* 0 = 8; as posenc_alibi_bias              */
} posenc_encoder_alibi;

typedef struct posenc_encoder_t5 {
    size_t num_buckets;           /* 0 = 32; as posenc_t5_bias                */
    size_t max_distance;          /* 0 = 128                                  */
    int unidirectional;           /* 0: bidirectional (an encoder's); 1: not  */
} posenc_encoder_t5;

typedef struct posenc_encoder_learned {
    size_t max_length;            /* >= 1: rows of pos_embed.weight           */
} posenc_encoder_learned;

typedef struct posenc_encoder_query_scale {
    int type;                     /* a posenc_query_scale (0 = none)          */
    double floor_scale;           /* LLAMA4: finite, > 0; 0 = 8192            */
    double attn_scale;            /* LLAMA4: finite; 0 = 0.1                  */
    double beta;                  /* MINISTRAL3: finite                       */
    double original_max_position; /* MINISTRAL3: >= 1                         */
} posenc_encoder_query_scale;

/*
 * posenc_encoder_config: zero means default.
 *   vocab_size, d_model, heads, d_ff  >= 1; d_model a multiple of heads
 *   layers        >= 0
 *   languages     rows of a language embedding added to every token (the
 *                 encoder article's translation encoder); 0 = none
 *   norm          a posenc_norm_placement;  activation  a posenc_activation
 *   final_norm    1: LN after the last layer (torch TransformerEncoder(norm=...),
 *                 usual with pre-norm)
 *   lm_head       a posenc_lm_head (0 = none)
 *   embed_scale   finite; 0 = sqrt(d_model)
 *   norm_eps      finite, > 0; 0 = 1e-5
 *   positional    a posenc_positional, whose settings alone are read:
 *     SINUSOIDAL  sinusoidal (above)
 *     ROPE        rope: a posenc_rope (posenc.h), rotary_dim 0 = head_dim;
 *                 its frequencies are computed for each pass from the
 *                 positions it rotates (DYNAMIC and LONGROPE at the largest
 *                 position + 1, as transformers' forward), or taken from
 *                 rope.inv_freq
 *     ALIBI       alibi: the non-causal -m_h |i - j| (posenc_alibi_bias), the
 *                 causal form with causal passes
 *     T5          t5 (above)
 *     LEARNED     learned: a pass takes seq <= max_length tokens
 *   query_scale   with any positional scheme (above; type 0: none). s(p) must
 *                 be a finite float at p = 0 and p = POSENC_POSITION_MAX (then
 *                 it is at every position)
 * The block's parts (all zero: the copy models' block, Vaswani's with
 * nn.MultiheadAttention; a Llama-style decoder sets them from its config.json):
 *   norm_kind     a posenc_norm_kind: every norm of the stack LayerNorm or RMSNorm
 *   mlp           a posenc_mlp_kind: PLAIN or GATED (with `activation`, SILU
 *                 for Llama, Mistral, Qwen)
 *   kv_heads      0 = heads; else >= 1 and heads a multiple of it: grouped-query
 *                 attention (Ainslie et al. 2023), query head h reading key and
 *                 value head h / (heads / kv_heads) (HF repeat_kv)
 *   head_dim      0 = d_model / heads (d_model must then be a multiple of
 *                 heads); else >= 1, apart from d_model (Qwen3: heads * head_dim
 *                 may differ from d_model)
 *   attention_bias a posenc_attention_bias (0: all four projections)
 *   qk_norm       1: each head's q and k RMS-normalised (weights [head_dim],
 *                 norm_eps) after their projection, before RoPE (HF Qwen3Attention)
 *   window        0: none; else >= 1: query i attends only to keys j with
 *                 i - j < window (by token order, as the causal mask; HF's
 *                 sliding_window_overlay: kv_idx > q_idx - sliding_window)
 *   weight_format a posenc_weight_format (0: F32): how params holds the matrices
 */
typedef struct posenc_encoder_config {
    size_t vocab_size;
    size_t d_model;
    size_t heads;
    size_t d_ff;
    size_t layers;
    size_t languages;
    int norm;
    int activation;
    int final_norm;
    int lm_head;
    double embed_scale;
    double norm_eps;
    int positional;
    posenc_encoder_sinusoidal sinusoidal;
    posenc_rope rope;
    posenc_encoder_alibi alibi;
    posenc_encoder_t5 t5;
    posenc_encoder_learned learned;
    posenc_encoder_query_scale query_scale;
    int norm_kind;
    int mlp;
    size_t kv_heads;
    size_t head_dim;
    int attention_bias;
    int qk_norm;
    size_t window;
    int weight_format;
} posenc_encoder_config;

/*
 * The checked parameters of posenc_encoder.h, as posenc.h's table
 * (POSENC_PARAMETERS): numbered after it, so that posenc_last_error's param
 * names either. Parameters the encoder shares with posenc.h (base, layout,
 * rope's fields, max_bias, num_buckets, ...) are posenc.h's rows.
 *
 *   P(id,  name,  rule,  lo,  hi,  zero)
 */
#define POSENC_ENCODER_PARAMETERS(P)                                                              \
    P(VOCAB_SIZE,        "vocab_size",        INTEGER,  1, POSENC_POSITION_MAX, 0)                 \
    P(ENCODER_D_MODEL,   "d_model",           INTEGER,  1, POSENC_POSITION_MAX, 0)                 \
    P(ENCODER_HEADS,     "heads",             INTEGER,  1, POSENC_POSITION_MAX, 0)                 \
    P(D_FF,              "d_ff",              INTEGER,  1, POSENC_POSITION_MAX, 0)                 \
    P(LAYERS,            "layers",            INTEGER,  0, POSENC_POSITION_MAX, 0)                 \
    P(LANGUAGES,         "languages",         INTEGER,  0, POSENC_POSITION_MAX, 0)                 \
    P(NORM,              "norm",              ENUM,     0, POSENC_NORM_POST, 0)                    \
    P(ACTIVATION,        "activation",        ENUM,     0, POSENC_ACTIVATION_SILU, 0)              \
    P(FINAL_NORM,        "final_norm",        FLAG,     0, 1, 0)                                   \
    P(LM_HEAD,           "lm_head",           ENUM,     0, POSENC_LM_HEAD_TIED, 0)                 \
    P(EMBED_SCALE,       "embed_scale",       AT_LEAST, -POSENC_FLOAT_MAX, POSENC_FLOAT_MAX, 0)    \
    P(NORM_EPS,          "norm_eps",          ABOVE,    0, POSENC_REAL_MAX,     1e-5)              \
    P(POSITIONAL,        "positional",        ENUM,     0, POSENC_POSITIONAL_LEARNED, 0)           \
    P(UNIDIRECTIONAL,    "t5.unidirectional", FLAG,     0, 1, 0)                                   \
    P(MAX_LENGTH,        "learned.max_length", INTEGER, 1, POSENC_POSITION_MAX, 0)                 \
    P(QUERY_SCALE,       "query_scale.type",  ENUM,     0, POSENC_QUERY_SCALE_MINISTRAL3, 0)       \
    P(FLOOR_SCALE,       "query_scale.floor_scale", ABOVE, 0, POSENC_REAL_MAX, 8192)              \
    P(ATTN_SCALE,        "query_scale.attn_scale", AT_LEAST, -POSENC_REAL_MAX, POSENC_REAL_MAX, 0.1) \
    P(BETA,              "query_scale.beta",  AT_LEAST, -POSENC_REAL_MAX, POSENC_REAL_MAX, 0)      \
    P(ORIGINAL_MAX_POSITION_Q, "query_scale.original_max_position", AT_LEAST, 1, POSENC_REAL_MAX, 0) \
    P(TOKENS,            "tokens",            INTEGER,  0, POSENC_POSITION_MAX, 0)                 \
    P(TOKEN_POSITIONS,   "positions",         INTEGER,  0, POSENC_POSITION_MAX, 0)                 \
    P(TOKEN_COUNT,       "seq",               INTEGER,  0, POSENC_POSITION_MAX + 1.0, 0)           \
    P(LANGUAGE,          "language",          INTEGER,  -1, POSENC_POSITION_MAX, 0)                \
    P(DECODER_MAX_LENGTH, "max_length",       INTEGER,  1, POSENC_POSITION_MAX + 1.0, 0)           \
    P(FEED_COUNT,        "count",             INTEGER,  1, POSENC_POSITION_MAX + 1.0, 0)           \
    P(TEMPERATURE,       "temperature",       AT_LEAST, 0, POSENC_REAL_MAX,     0)                 \
    P(TOP_K,             "top_k",             INTEGER,  0, POSENC_POSITION_MAX, 0)                 \
    P(TOP_P,             "top_p",             AT_LEAST, 0, 1,                   0)                 \
    P(COLS,              "cols",              INTEGER,  1, POSENC_POSITION_MAX, 0)                 \
    P(IN_FEATURES_NN,    "in_features",       INTEGER,  1, POSENC_POSITION_MAX, 0)                 \
    P(OUT_FEATURES,      "out_features",      INTEGER,  1, POSENC_POSITION_MAX, 0)                 \
    P(EPS,               "eps",               ABOVE,    0, POSENC_REAL_MAX,     1e-5)              \
    P(EMBED_FACTOR,      "scale",             AT_LEAST, -POSENC_FLOAT_MAX, POSENC_FLOAT_MAX, 0)    \
    P(SCORES,            "x",                 AT_LEAST, -POSENC_REAL_MAX, POSENC_FLOAT_MAX, 0)     \
    P(NORM_KIND,         "norm_kind",         ENUM,     0, POSENC_NORM_KIND_RMS, 0)                \
    P(MLP_KIND,          "mlp",               ENUM,     0, POSENC_MLP_GATED, 0)                    \
    P(KV_HEADS,          "kv_heads",          INTEGER,  0, POSENC_POSITION_MAX, 0)                 \
    P(BLOCK_HEAD_DIM,    "head_dim",          INTEGER,  0, POSENC_POSITION_MAX, 0)                 \
    P(ATTENTION_BIAS,    "attention_bias",    ENUM,     0, POSENC_ATTENTION_BIAS_QKV, 0)           \
    P(QK_NORM,           "qk_norm",           FLAG,     0, 1, 0)                                   \
    P(WINDOW,            "window",            INTEGER,  0, POSENC_POSITION_MAX, 0)                 \
    P(WEIGHT_FORMAT,     "weight_format",     ENUM,     0, POSENC_WEIGHT_FORMAT_BF16, 0)

/* The rows of POSENC_ENCODER_PARAMETERS, after those of posenc.h. */
#define POSENC_ENCODER_PARAM_ID_(id, name, rule, lo, hi, zero) POSENC_PARAM_##id,
typedef enum posenc_encoder_param {
    POSENC_ENCODER_PARAM_BEFORE_ = POSENC_PARAM_COUNT - 1,
    POSENC_ENCODER_PARAMETERS(POSENC_ENCODER_PARAM_ID_)
    POSENC_ENCODER_PARAM_END
} posenc_encoder_param;

/*
 * posenc_encoder_sizes: the floats of the parameter buffer and of the
 * workspace that posenc_encoder_forward needs for seq tokens (kissfft-style
 * size query; nothing is allocated). seq <= 2^31, and seq <= max_length for
 * LEARNED.
 *
 * Parameters, one flat float buffer in this order (d = d_model, hd =
 * head_dim, qd = heads * hd, kvd = kv_heads * hd; the names are the JS API's
 * safetensors names, after PyTorch's; a tensor marked with a condition is
 * there only when it holds):
 *
 *   embed.weight                         [vocab_size][d]
 *   pos_embed.weight                     [max_length][d]       (LEARNED)
 *   language_embed.weight                [languages][d]        (languages > 0)
 *   relative_attention_bias.weight       [t5_num_buckets][heads] (T5)
 *   per layer i, layers.{i}.:
 *     self_attn.q_proj.weight [qd][d],    self_attn.q_proj.bias [qd]   (bias ALL, QKV)
 *     self_attn.k_proj.weight [kvd][d],   self_attn.k_proj.bias [kvd]  (bias ALL, QKV)
 *     self_attn.v_proj.weight [kvd][d],   self_attn.v_proj.bias [kvd]  (bias ALL, QKV)
 *     self_attn.out_proj.weight [d][qd],  self_attn.out_proj.bias [d]  (bias ALL)
 *     self_attn.q_norm.weight [hd], self_attn.k_norm.weight [hd]       (qk_norm)
 *     norm1.weight [d], norm1.bias [d]                                 (bias: LAYER)
 *     PLAIN: linear1.weight [d_ff][d], linear1.bias [d_ff],
 *            linear2.weight [d][d_ff], linear2.bias [d]
 *     GATED: mlp.gate_proj.weight [d_ff][d], mlp.up_proj.weight [d_ff][d],
 *            mlp.down_proj.weight [d][d_ff]
 *     norm2.weight [d], norm2.bias [d]                                 (bias: LAYER)
 *   norm.weight [d], norm.bias [d]                (final_norm; bias: LAYER)
 *   lm_head.weight                       [vocab_size][d]       (POSENC_LM_HEAD_OWN)
 *
 * With the block's parts at zero this is the copy models' layout (qd = kvd = d).
 * weight_format F16 or BF16: each matrix (embed.weight, the *_proj.weight,
 * linear1.weight, linear2.weight, lm_head.weight) takes ceil(n / 2) floats
 * for its n values (posenc_weight_format); the rest as above.
 *
 * Workspace: seq d + seq max(d, qd) + max(seq (qd + 2 kvd), f seq d_ff) (f = 2
 * for GATED, else 1) + min(4, seq) seq floats (the scores of a block of 4
 * queries), plus heads (2 seq - 1) for ALIBI and T5 (their bias depends on
 * j - i alone: one row per head, computed once per pass), plus seq d with an
 * LM head (the hidden states posenc_encoder_logits keeps); with the block's
 * parts at zero, 2 seq d + max(3 seq d, seq d_ff) + ...; weight_format F16 or
 * BF16 adds 4 max(d, qd, d_ff) (four rows of a matrix widened, which every
 * row of a pass then reads). ALIBI and T5 take
 * seq <= 2^30 (the row's last key position, 2 seq - 2, is an int32 position).
 */
POSENC_API int posenc_encoder_sizes(const posenc_encoder_config *config, size_t seq,
                                    size_t *params_len, size_t *work_len);

/*
 * posenc_encoder_forward: out [seq][d_model], the encoder's output for tokens:
 *
 *   x = E[tokens] * embed_scale (+ PE(p_s) if SINUSOIDAL) (+ P[p_s] if
 *       LEARNED) (+ L[language]), p_s the position of token s
 *   each layer, with LN the norm of norm_kind, and
 *     MHA(y): q = y W_q^T (+ b_q), k = y W_k^T (+ b_k), v = y W_v^T (+ b_v)
 *             (heads, kv_heads and kv_heads heads of hd features);
 *             qk_norm: each head's q and k = RMSNorm(., q_norm / k_norm, norm_eps);
 *             q and k rotated if ROPE, then q scaled if query_scale;
 *             posenc_attention per query head h on the key and value head
 *             h / (heads / kv_heads), scale 1 / sqrt(hd) (the ALiBi or T5 bias
 *             added to the scores; keys i - j >= window masked when window > 0);
 *             out = ctx W_o^T (+ b_o)
 *     FF(y):  PLAIN  act(y W1^T + b1) W2^T + b2 (posenc_feed_forward)
 *             GATED  (act(y G^T) * (y U^T)) D^T, the product in float
 *     PRE:   x = x + MHA(LN1(x));   x = x + FF(LN2(x))   (Llama's decoder layer)
 *     POST:  x = LN1(x + MHA(x));   x = LN2(x + FF(x))
 *   final_norm: x = LN(x)
 * RMSNorm: out[k] = (float)(x[k] * r * gamma[k]), r = 1 / sqrt(mean_k x^2 +
 * eps), the mean and the products in double, one rounding to float (HF's
 * LlamaRMSNorm computes in float32: within an ulp or two).
 *
 *   out         out_len >= seq * d_model
 *   params      params_len >= the size query's (layout above)
 *   tokens      seq ids in [0, vocab_size)
 *   positions   NULL: token s at position s; else seq explicit position ids
 *               (randomized positions, Ruoss et al. 2023; packed or padded
 *               sequences), each >= 0 (< learned.max_length for LEARNED).
 *               Every positional term reads them: PE(p_s), P[p_s], q and k
 *               rotated at p_s, the query scale s(p_s), and the bias of a
 *               query at p_i and a key at p_j: ALIBI -m_h (p_i - p_j) when
 *               causal (BLOOM's m_h p_j, up to a row constant), -m_h |p_i -
 *               p_j| otherwise; T5 the bias of bucket(p_j - p_i). The causal
 *               mask stays by token order (key j <= query i). DYNAMIC and
 *               LONGROPE frequencies follow max(positions) + 1, as
 *               transformers' do (max(position_ids) + 1). positions 0 .. seq
 *               - 1 give the logits of NULL (to rounding: ALiBi and T5 then
 *               attend one query at a time)
 *   key_mask    NULL, or seq int32: 0 marks padding, never attended to
 *   causal      1: token i attends to keys j <= i only; 0: every key
 *   language    -1: none; else a row < languages of language_embed
 *   attention   NULL (attention_len 0), or attention_len >= layers * heads *
 *               seq^2: receives every layer's probabilities [layer][head][i][j]
 *   work        work_len >= the size query's
 *   out, attention and work are written while params, tokens, positions,
 *   key_mask and rope.inv_freq are read, layer after layer: out, attention
 *   and work must not overlap each other or any of those
 *   (POSENC_ERR_INVALID_ARGUMENT).
 */
POSENC_API int posenc_encoder_forward(float *out, size_t out_len, const posenc_encoder_config *config,
                                      const float *params, size_t params_len, const int32_t *tokens,
                                      size_t seq, const int32_t *positions, const int32_t *key_mask,
                                      int causal, int32_t language, float *attention,
                                      size_t attention_len, float *work, size_t work_len);

/*
 * posenc_encoder_logits: out [seq][vocab_size], the next-token logits at
 * every position of a causal language model (GPT-2's lm_head; no bias):
 *
 *   h = posenc_encoder_forward(tokens, ...)            [seq][d_model]
 *   out[s][v] = sum_k h[s][k] W[v][k]                  W [vocab_size][d_model]
 *
 * with W = lm_head.weight (POSENC_LM_HEAD_OWN, the last tensor of params) or
 * the embedding matrix E (POSENC_LM_HEAD_TIED; E unscaled: embed_scale only
 * enters the input). Pictured, seq = 3, vocab_size = 4: row s holds the
 * scores of the token after tokens[s]:
 *
 *             v:  0    1    2    3
 *   s = 0      [ h0.W0 h0.W1 h0.W2 h0.W3 ]   predicts tokens[1]
 *   s = 1      [ h1.W0 ...               ]   predicts tokens[2]
 *   s = 2      [ h2.W0 ...               ]   predicts the next token
 *
 * A language model passes causal = 1 (each position sees itself and the
 * tokens before it). Arguments as posenc_encoder_forward; besides:
 *   config->lm_head   OWN or TIED, else POSENC_ERR_INVALID_ARGUMENT
 *   out               out_len >= seq * vocab_size
 *   work              the size query's work_len (it holds h at its end)
 * Dot products in float32 as posenc_linear; against double, ~1e-6 relative.
 */
POSENC_API int posenc_encoder_logits(float *out, size_t out_len, const posenc_encoder_config *config,
                                     const float *params, size_t params_len, const int32_t *tokens,
                                     size_t seq, const int32_t *positions, const int32_t *key_mask,
                                     int causal, int32_t language, float *attention,
                                     size_t attention_len, float *work, size_t work_len);

/*
 * Generation with a KV cache: a decoder state holds a sequence of a causal
 * language model (an encoder config with an LM head) and gives the
 * next-token logits after each feed, at O(length) per token instead of
 * O(length^2) for the whole prefix again. The state is the one object of
 * posenc that allocates: posenc_decoder_create makes it, posenc_decoder_free
 * frees it; it owns its cache, its workspace and copies of what the config
 * points at (RoPE's factor lists), and borrows `params`, which must stay
 * valid and unchanged while it lives. A state is used by one thread at a time.
 *
 * The cache holds every layer's keys and values of the tokens fed so far, as
 * posenc_encoder_logits(causal = 1) computes them: [layers][2][capacity][kv_heads * head_dim],
 * keys rotated at their positions under ROPE (never scaled). Its capacity
 * starts at min(max_length, 256) rows and doubles, up to max_length (the
 * rows are moved, not recomputed).
 *
 * Each feed appends tokens at positions [length, length + count) (or at
 * the positions it gives) and writes the logits after the last of them.
 * Per scheme, for a new token at position i attending to the cached keys
 * j <= i:
 *   NONE        nothing positional
 *   SINUSOIDAL  x = E[t] * embed_scale + PE(i)
 *   LEARNED     x = E[t] * embed_scale + pos_embed[i]  (i < learned.max_length)
 *   ROPE        the new query and key rotated at i; cached keys keep the
 *               rotation they were stored with
 *   ALIBI, T5   the bias of distance i - j (the causal forms); the state
 *               keeps one row of biases by distance and computes only the
 *               new distances of each feed
 *   query_scale q multiplied by s(i)
 * With fixed frequencies, the logits after each feed equal row length +
 * count - 1 of posenc_encoder_logits(causal = 1) on the whole sequence
 * (RoPE and sinusoidal tables compute a call's first row directly and step
 * from there: the last bits may differ; tested to 1e-5).
 *
 * Frequencies that depend on the sequence length (DYNAMIC, LONGROPE with
 * rope.seq_len 0) follow transformers' cached generation: each feed computes
 * them for seq_len = length + count (modeling_rope_utils.py
 * dynamic_rope_update) and rotates only its new queries and keys with them;
 * cached keys keep theirs. The LongRoPE models (Phi-3 and its kin) drop the
 * cache when the sequence first passes original_max_position_embeddings O
 * and feed it whole again (Phi3ForCausalLM prepare_inputs_for_generation),
 * so that every key takes the long factors: so does the state, keeping the
 * tokens fed to do it.
 */
typedef struct posenc_decoder posenc_decoder;

/*
 * posenc_decoder_create: *out = a new state for sequences of up to
 * max_length tokens (0: POSENC_POSITION_MAX + 1; LEARNED: at most
 * learned.max_length, 0 selects it), every token with language row
 * `language` (-1: none). The config is checked once, here, and copied.
 * POSENC_ERR_OUT_OF_MEMORY when the allocator refuses (the record names
 * what was asked, and its bytes); *out is NULL on any error.
 */
POSENC_API int posenc_decoder_create(posenc_decoder **out, const posenc_encoder_config *config,
                                     const float *params, size_t params_len, size_t max_length,
                                     int32_t language);

/*
 * posenc_decoder_feed: appends tokens[0 .. count) (count >= 1, ids in
 * [0, vocab_size)) and writes the next-token logits after the last of them
 * to logits (logits_len >= vocab_size), or keeps them only (logits NULL,
 * logits_len 0: posenc_decoder_logits reads them). positions: NULL, each
 * token one past the position of the token before it (the first at 0); or
 * count explicit position ids, as posenc_encoder_forward takes them (the
 * ALiBi and T5 biases then go by pairs of positions, at O(length) per token
 * and head, instead of by distance). length + count must not pass
 * max_length (POSENC_ERR_BUFFER_TOO_SMALL: the sequence is full);
 * POSENC_ERR_OUT_OF_MEMORY when the cache cannot grow. A call that fails
 * leaves the sequence as it was.
 */
POSENC_API int posenc_decoder_feed(posenc_decoder *d, const int32_t *tokens, const int32_t *positions,
                                   size_t count, float *logits, size_t logits_len);

/* The logits of the last feed, vocab_size floats (valid until the next feed,
 * reset or free); NULL before any feed. */
POSENC_API const float *posenc_decoder_logits(const posenc_decoder *d);

/* Tokens in the sequence now. */
POSENC_API size_t posenc_decoder_length(const posenc_decoder *d);

/* The most tokens the sequence may hold (create's max_length, 0 resolved). */
POSENC_API size_t posenc_decoder_max_length(const posenc_decoder *d);

/* Bytes the state holds (its cache, workspace and copies). */
POSENC_API size_t posenc_decoder_memory(const posenc_decoder *d);

/* Starts a new sequence (length 0), keeping the memory. */
POSENC_API int posenc_decoder_reset(posenc_decoder *d);

/* Frees the state (NULL: nothing). */
POSENC_API void posenc_decoder_free(posenc_decoder *d);

/*
 * How the next token is chosen from the logits (posenc_decoder_sample):
 *   temperature  0: greedy, the largest logit (the first of equal ones; a NaN
 *                counts as the largest, as torch.argmax); else > 0: sampled
 *                from softmax(logits / temperature)
 *   top_k        0: every token; else only the top_k largest (HF's
 *                TopKLogitsWarper; ties by lower id)
 *   top_p        0 or 1: every token; else in (0, 1): the fewest most probable
 *                tokens whose probabilities sum to at least top_p (HF's
 *                TopPLogitsWarper, at least one kept)
 * Sampling draws u in [0, 1) from the caller's generator state (*rng, a
 * 64-bit seed: SplitMix64, Steele et al. 2014; u = (next >> 11) * 2^-53),
 * walks the kept tokens in id order and takes the first whose cumulative
 * probability (renormalised over the kept) passes u. Every step is integer
 * or double arithmetic in a fixed order (posenc's own exp): the same seed
 * gives the same tokens in every build.
 */
typedef struct posenc_sampling {
    double temperature;
    size_t top_k;
    double top_p;
} posenc_sampling;

/*
 * posenc_decoder_sample: *token = the next token after the last feed, chosen
 * as s says (NULL: greedy); rng is read and advanced when sampling (may be
 * NULL when greedy). Needs a feed before it.
 */
POSENC_API int posenc_decoder_sample(posenc_decoder *d, const posenc_sampling *s, uint64_t *rng,
                                     int32_t *token);

/*
 * posenc_decoder_generate: feeds the prompt (prompt_len >= 1), then samples
 * and feeds one token at a time, writing each new token to out, until
 * out_len tokens are written or a token of stop[0 .. stop_len) is written
 * (it is written, and not fed); *written = the tokens written. The last
 * token is never fed back, so the sequence holds at most prompt_len +
 * out_len - 1 tokens. rng as posenc_decoder_sample.
 */
POSENC_API int posenc_decoder_generate(posenc_decoder *d, const int32_t *prompt, size_t prompt_len,
                                       const posenc_sampling *s, uint64_t *rng, const int32_t *stop,
                                       size_t stop_len, int32_t *out, size_t out_len, size_t *written);

#ifdef __cplusplus
}
#endif

#endif /* POSENC_ENCODER_H */
