/* encoder_stack.h: what the whole-sequence pass (src/encoder/encoder.c,
 * posenc_encoder_*) and incremental decoding (src/encoder/decoder.c, posenc_decoder_*)
 * share: the checked config with its defaults and parameter layout, and the
 * layer stack run on `rows` tokens at positions [first, first + rows) whose
 * keys and values join those of the positions before them. */
#ifndef POSENC_ENCODER_STACK_H
#define POSENC_ENCODER_STACK_H

#include <stddef.h>
#include <stdint.h>

#include "nn_ops.h"
#include "posenc_encoder.h"
#include "rope_plan.h"

/* A part of a layer that the config leaves out (layer_parts). */
#define STACK_NO_PART ((size_t)-1)

/* Where each tensor of a layer starts, in floats from the layer's first
 * (posenc_encoder.h, posenc_encoder_sizes), or STACK_NO_PART. */
typedef struct layer_parts {
    size_t q_w, q_b, k_w, k_b, v_w, v_b, o_w, o_b, q_norm, k_norm, norm1, ff, norm2;
} layer_parts;

/* A validated config, defaults resolved, and its parameter layout (posenc_encoder.h,
 * posenc_encoder_sizes): the floats of each part of params. q_dim = heads *
 * head_dim (a row of queries), kv_dim = kv_heads * head_dim (a row of keys or
 * values), group = heads / kv_heads (query heads per key head). */
typedef struct model {
    posenc_encoder_config c;
    size_t head_dim, q_dim, kv_dim, group, ff_len, layer_len, t5_len, pos_len, head_len, params_len;
    size_t embed_len; /* the floats of embed.weight (halves: two to a float) */
    size_t ff_mat;    /* the floats of one feed-forward matrix, [d_ff][d] or [d][d_ff] */
    layer_parts at;
    rope_plan rope; /* ROPE: the checked rotary embedding (frequencies of no particular length) */
} model;

/* The hidden floats of a feed-forward pass over one row: d_ff, twice that GATED (gate and up). */
size_t stack_hidden_per_row(const model *m);

/* The floats of the ctx buffer per row: max(d_model, q_dim) (the attention's
 * context before W_o, and the feed-forward's output). */
size_t stack_ctx_per_row(const model *m);

/* The floats of the tile that a pass over more than one row widens 16-bit
 * weights into (nn_linear_half): 4 max(d, q_dim, d_ff), or 0 with F32 weights. */
size_t stack_tile_len(const model *m);

/* y [rows][outs] (rows ys apart) = x W^T (+ bias), or with add 1, y += x W^T
 * (+ bias) (nn_linear_add); W [outs][n] the matrix at w in the model's
 * weight_format (tile: stack_tile_len floats). */
void stack_linear(const model *m, float *y, size_t ys, const float *x, size_t xs, size_t rows, const float *w,
                  size_t outs, size_t n, const float *bias, float *tile, int add);

/* Checks config (every rule of posenc_encoder_config; the call's argument
 * `index`) and fills *m. */
int stack_model(model *m, const posenc_encoder_config *config, int index);

/* ROPE: the plan of a pass whose largest position is end - 1 (DYNAMIC and
 * LONGROPE frequencies depend on it, as in transformers' forward:
 * seq_len = max(position_ids) + 1). */
int stack_rope(const model *m, size_t end, int index, rope_plan *plan);

/* language (argument index): -1 (none) or a row < config languages. */
int stack_check_language(const posenc_encoder_config *c, int32_t language, int index);

/* Whether the scheme adds a bias that depends on j - i (ALiBi, T5). */
int stack_relative_bias(const model *m);

/*
 * Explicit positions (argument index, count of them): each >= 0, and below
 * learned.max_length for LEARNED. *end = the largest + 1 (the length the
 * RoPE frequencies of DYNAMIC and LONGROPE follow).
 */
int stack_check_positions(const model *m, const int32_t *positions, size_t count, int index, size_t *end);

/*
 * The checks a pass over count tokens makes once its sizes are known: every
 * token in [0, vocab_size), and no two of the three buffers it writes
 * (written[i], written_len[i] floats, named written_names[i], argument
 * indexes[i]) sharing memory with each other or with what it reads: params,
 * the tokens (argument indexes[3]), positions and key_mask (count entries
 * each, or NULL) and the RoPE frequencies. POSENC_ERR_INVALID_ARGUMENT
 * otherwise.
 */
int stack_check_buffers(const model *m, const float *params, const int32_t *tokens, const int32_t *positions,
                        const int32_t *key_mask, size_t count, const float *const written[3],
                        const size_t written_len[3], const char *const written_names[3], const int indexes[4]);

/*
 * The buffers of one pass over `rows` tokens, rows [first, first + rows) of
 * the sequence. Positions: row j's is j (positions NULL), or positions[j]
 * (explicit position ids, for every row [0, first + rows)).
 * Layer l's keys and values are rows of keys + l * layer_stride and
 * keys + l * layer_stride + v_offset, position p at p * kv_dim: the pass
 * writes rows [first, first + rows) and its queries read rows [0, first + rows).
 */
typedef struct stack {
    const model *m;
    const float *params;
    float *x;        /* [rows][d]: the embeddings in, the output out       */
    float *h;        /* [rows][d]                                          */
    float *ctx;      /* [rows][stack_ctx_per_row]                          */
    float *q;        /* [rows][q_dim]                                      */
    float *hidden;   /* [rows][stack_hidden_per_row], the feed-forward's: may be q's memory */
    float *scores;   /* min(NN_ATTEND_ROWS, rows) * (first + rows)          */
    float *keys;
    size_t v_offset, layer_stride;
    size_t first, rows;
    nn_bias bias;    /* the relative bias rows (stack_bias_rows), or base NULL */
    const int32_t *key_mask;
    int causal;
    float *probs;    /* NULL, or [layers][heads][rows][first + rows]        */
    const rope_plan *rope; /* ROPE: the pass's plan (stack_rope)           */
    const int32_t *positions; /* NULL, or the position of every row        */
    float *bias_row; /* explicit positions, ALIBI or T5: heads * (first + rows) floats */
    float *tile;     /* stack_tile_len floats                               */
} stack;

/*
 * The relative bias rows of ALiBi and T5 into bias [heads][keys]: the row of
 * one query at position `query` against keys 0 .. keys - 1 (entry j holds
 * j - query). Since the bias depends on j - i alone, query i's row of the
 * full matrix starts query - i entries in: the nn_bias this returns.
 * query, keys - 1 <= POSENC_POSITION_MAX.
 */
nn_bias stack_bias_rows(const model *m, const float *params, float *bias, size_t query, size_t keys, int causal);

/* x = E[tokens] * scale (+ PE or P at each row's position) (+ the language row), rows tokens. */
void stack_embed(const stack *s, const int32_t *tokens, int32_t language);

/* Every layer on s->x, then the final norm. */
void stack_layers(const stack *s);

/* The LM head's weight [vocab_size][d_model] (own or tied), in the model's
 * weight_format (stack_linear reads it). */
const float *stack_lm_head(const model *m, const float *params);

#endif
