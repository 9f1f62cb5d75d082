/*
 * posenc.h: positional encodings for transformers, exact to float32.
 *
 * One header, C11, no global state, no allocation: every routine writes into
 * buffers the caller owns and returns a status (POSENC_OK = 0, negative on
 * error). On error nothing is written. Sizes are element counts, never bytes,
 * and every size product is checked for overflow (wasm32 has a 32-bit size_t).
 *
 * Conventions
 *   - Positions are rows, features are columns: a table is row-major
 *     [position][dim]; a bias is [head][query][key].
 *   - Positions are integers in [POSENC_POSITION_MIN, POSENC_POSITION_MAX].
 *   - "Zero means default": a base of 0 selects 10000, layout 0 is interleaved.
 *
 * Accuracy
 *   Every float a routine returns is within 2^-23 of its formula evaluated in
 *   double precision, at every position |p| <= 2^24. Angles p * w are formed in
 *   double (never float32 p times float32 w, which drifts by ~1e-3 at p = 2^20);
 *   sine and cosine are evaluated in double and rounded once to float.
 */
#ifndef POSENC_H
#define POSENC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define POSENC_VERSION_MAJOR 0
#define POSENC_VERSION_MINOR 1
#define POSENC_VERSION_PATCH 0

/* Symbols the wasm build exports; a no-op for native builds. */
#if defined(__EMSCRIPTEN__)
#define POSENC_API __attribute__((used, visibility("default")))
#else
#define POSENC_API
#endif

/* Positions are int32: the range RoPE position arrays (Int32Array) can hold. */
#define POSENC_POSITION_MIN (-2147483647 - 1)
#define POSENC_POSITION_MAX 2147483647

/* ------------------------------------------------------------------------ */
/* Status                                                                    */
/* ------------------------------------------------------------------------ */

typedef enum posenc_status {
    POSENC_OK = 0,
    POSENC_ERR_NULL_POINTER = -1,     /* a required pointer is NULL          */
    POSENC_ERR_INVALID_ARGUMENT = -2, /* a value outside its documented range */
    POSENC_ERR_SIZE_OVERFLOW = -3,    /* a size product overflows size_t      */
    POSENC_ERR_BUFFER_TOO_SMALL = -4  /* out_len < the elements required      */
} posenc_status;

/* A static, human-readable name for a status; "unknown status" otherwise. */
POSENC_API const char *posenc_strerror(int status);

/* ------------------------------------------------------------------------ */
/* Sinusoidal tables (Vaswani et al. 2017, "Attention Is All You Need", 3.5)  */
/* ------------------------------------------------------------------------ */

/*
 * Layouts of the table row for position p, d = d_model, base b (default 10000).
 * Pictured for d = 6, s_i = sin(p * w_i), c_i = cos(p * w_i):
 *
 * POSENC_LAYOUT_INTERLEAVED   [s0 c0 s1 c1 s2 c2]        w_i = b^(-2i/d)
 *   Vaswani 3.5; the seed notebook, labml, the JAX/Flax tutorial.
 *   Odd d: the last column is a sine, s_{(d-1)/2}.
 *
 * POSENC_LAYOUT_CONCATENATED  [s0 s1 s2 | c0 c1 c2]      w_i = b^(-2i/d)
 *   Vaswani's frequencies, sines then cosines: Transformer-XL's
 *   PositionalEmbedding, GPT-J's create_sinusoidal_positions.
 *   Odd d: ceil(d/2) sines then floor(d/2) cosines.
 *
 * POSENC_LAYOUT_TENSOR2TENSOR [s0 s1 s2 | c0 c1 c2]      w_i = b^(-i/max(h-1, 1))
 *   h = floor(d/2). tensor2tensor common_attention.get_timing_signal_1d with
 *   min_timescale 1, max_timescale b. Odd d: one zero column at the end;
 *   d = 1: a single zero column.
 *
 * POSENC_LAYOUT_FAIRSEQ       [s0 s1 s2 | c0 c1 c2]      w_i = b^(-i/(h-1))
 *   fairseq SinusoidalPositionalEmbedding.get_embedding: the same values as
 *   TENSOR2TENSOR, but its formula divides by zero for h = 1, so d must be
 *   >= 4 (d < 4 returns POSENC_ERR_INVALID_ARGUMENT). Odd d: zero column at
 *   the end. fairseq numbers real tokens from padding_idx + 1: pass that as
 *   the offset (its padding row of zeros is not part of this table).
 */
typedef enum posenc_layout {
    POSENC_LAYOUT_INTERLEAVED = 0,
    POSENC_LAYOUT_CONCATENATED = 1,
    POSENC_LAYOUT_TENSOR2TENSOR = 2,
    POSENC_LAYOUT_FAIRSEQ = 3
} posenc_layout;

/*
 * posenc_sinusoidal: out[r][k] = PE(offset + r, k) for r < length, k < d_model.
 *
 *   out      caller buffer of out_len >= length * d_model floats
 *   base     the frequency base b, finite and > 1; 0 selects 10000
 *   offset   the first position; offset + length - 1 <= POSENC_POSITION_MAX
 *   layout   a posenc_layout
 *
 * length = 0 is valid and writes nothing.
 */
POSENC_API int posenc_sinusoidal(float *out, size_t out_len, size_t length, size_t d_model,
                                 double base, int32_t offset, int layout);

/*
 * posenc_sinusoidal_frequencies: the angular frequencies w_i (radians per
 * position) of a layout, one per sine column: ceil(d/2) values for the
 * interleaved and concatenated layouts, floor(d/2) for tensor2tensor and
 * fairseq. The notebook seed's "denominator" is 1 / w_i.
 *
 *   out      caller buffer of out_len >= that many doubles
 */
POSENC_API int posenc_sinusoidal_frequencies(double *out, size_t out_len, size_t d_model,
                                             double base, int layout);

/* The order of the axes of an activation tensor x. */
typedef enum posenc_order {
    POSENC_ORDER_BSD = 0, /* [batch][seq][d]: Hugging Face, the JAX seed      */
    POSENC_ORDER_SBD = 1  /* [seq][batch][d]: PyTorch nn.Transformer, labml   */
} posenc_order;

/*
 * posenc_add_sinusoidal: x = x * scale + PE, in place, the table broadcast
 * over the batch: for BSD, x[b][s][k] = x[b][s][k] * scale + PE(offset + s, k).
 * The seed article scales embeddings by sqrt(d_model) before adding
 * (Vaswani 3.4); scale = 1 adds the table alone (labml). The sum is formed in
 * float32 from the float32-rounded table value (one rounding, as a float32
 * model does it).
 *
 *   x        caller buffer of x_len >= batch * seq * d_model floats
 *   scale    finite
 *   others   as posenc_sinusoidal
 */
POSENC_API int posenc_add_sinusoidal(float *x, size_t x_len, size_t batch, size_t seq,
                                     size_t d_model, int order, float scale, double base,
                                     int32_t offset, int layout);

/* ------------------------------------------------------------------------ */
/* Relative positions                                                        */
/* ------------------------------------------------------------------------ */

/*
 * posenc_relative_positions: out[i][j] = j - i + shift, row-major
 * [query_len][key_len], the JAX/Flax tutorial's relative matrix (which uses
 * shift = max_seq_len so that every entry is positive).
 *
 * Every entry must fit int32, otherwise POSENC_ERR_INVALID_ARGUMENT.
 */
POSENC_API int posenc_relative_positions(int32_t *out, size_t out_len, size_t query_len,
                                         size_t key_len, int32_t shift);

/* @@ rope section @@ */

/* @@ biases section @@ */

#ifdef __cplusplus
}
#endif

#endif /* POSENC_H */
