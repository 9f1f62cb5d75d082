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
 *   - Every checked parameter has its rule and bounds stated once, in the
 *     table POSENC_PARAMETERS below: the counts it lists (length, d_model,
 *     batch, heads, dim, ...) are at most POSENC_POSITION_MAX = 2^31 - 1;
 *     query_len and key_len, the lengths of position runs, at most 2^31. A
 *     refused call leaves its record in posenc_last_error().
 *   - "Zero means default": a base of 0 selects 10000, layout 0 is interleaved.
 *   - Overlapping buffers: a routine that still reads an input after it has
 *     written part of an output refuses an output that shares memory with
 *     that input (or with another output) with POSENC_ERR_INVALID_ARGUMENT,
 *     and writes nothing; each says which next to its parameters. Buffers
 *     that only touch, and empty ones, do not overlap. The tables, relative
 *     positions, slopes, ALiBi biases and bucket matrices take no input
 *     buffer: nothing to overlap.
 *
 * Accuracy
 *   Every float a routine returns is within 2^-23 of its formula evaluated in
 *   double precision, at every position |p| <= 2^24. Angles p * w are formed in
 *   double (never float32 p times float32 w, which drifts by ~1e-3 at p = 2^20);
 *   sine and cosine are evaluated in double and rounded once to float.
 *   Tables step an angle-addition recurrence in double between anchors, rows
 *   computed directly from the angle: the first row of a call (or of a run of
 *   consecutive RoPE positions) and every position that is a multiple of
 *   1024. Position 0 is always one, so it is exact whichever way a table
 *   walks through it: sin 0 = 0 and cos 0 = 1 (times A for RoPE).
 */
#ifndef POSENC_H
#define POSENC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define POSENC_VERSION_MAJOR 0
#define POSENC_VERSION_MINOR 2
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
    POSENC_ERR_BUFFER_TOO_SMALL = -4, /* out_len < the elements required      */
    POSENC_ERR_OUT_OF_MEMORY = -5     /* the allocator refused (posenc_decoder) */
} posenc_status;

/* A static, human-readable name for a status; "unknown status" otherwise. */
POSENC_API const char *posenc_strerror(int status);

/* ------------------------------------------------------------------------ */
/* What failed: every checked parameter, its rule and its default            */
/* ------------------------------------------------------------------------ */

/*
 * The rule a parameter must satisfy, with the bounds lo and hi of its row
 * (below) or of the call (a bound that comes from another parameter):
 */
typedef enum posenc_rule {
    POSENC_RULE_NONE = 0,     /* nothing recorded                                   */
    POSENC_RULE_NOT_NULL = 1, /* a pointer the call needs                           */
    POSENC_RULE_INTEGER = 2,  /* an integer from lo to hi                           */
    POSENC_RULE_EVEN = 3,     /* an even integer from lo to hi                      */
    POSENC_RULE_MULTIPLE = 4, /* a multiple of lo, from lo to hi                    */
    POSENC_RULE_ABOVE = 5,    /* a finite number > lo and <= hi                     */
    POSENC_RULE_AT_LEAST = 6, /* a finite number >= lo and <= hi                    */
    POSENC_RULE_FLAG = 7,     /* 0 or 1                                             */
    POSENC_RULE_ENUM = 8,     /* a value of its enum, 0 to hi                       */
    POSENC_RULE_LENGTH = 9,   /* a buffer of at least lo elements                   */
    POSENC_RULE_DISJOINT = 10,/* a buffer that shares no memory with `other`        */
    POSENC_RULE_SIZE = 11,    /* sizes whose product (value * lo) fits size_t       */
    POSENC_RULE_RESULT = 12,  /* values whose result is out of range: `why` says    */
    POSENC_RULE_MEMORY = 13   /* `value` bytes the allocator could not give         */
} posenc_rule;

/* The largest finite double: a bound that is no bound. */
#define POSENC_REAL_MAX 1.7976931348623157e+308
/* The largest float: values that become floats (scales, attention factors). */
#define POSENC_FLOAT_MAX 3.4028234663852886e+38

/*
 * The checked parameters of posenc.h, each stated once: the name the routines
 * give it, its rule, its bounds, and the value that 0 selects ("zero means
 * default"; a parameter whose 0 is itself a value, or refused, has 0). The
 * JS API's error messages, its TypeScript declarations and the command line's
 * help are generated from this table (tools/abi.mjs); relations between
 * parameters (rotary_dim <= head_dim, offset + length - 1 <= POSENC_POSITION_MAX)
 * are the routines' own, documented with each.
 *
 *   P(id,  name,  rule,  lo,  hi,  zero)
 */
#define POSENC_PARAMETERS(P)                                                                      \
    P(LENGTH,            "length",            INTEGER,  0, POSENC_POSITION_MAX, 0)                 \
    P(D_MODEL,           "d_model",           INTEGER,  1, POSENC_POSITION_MAX, 0)                 \
    P(BASE,              "base",              ABOVE,    1, POSENC_REAL_MAX,     10000)             \
    P(OFFSET,            "offset",            INTEGER,  POSENC_POSITION_MIN, POSENC_POSITION_MAX, 0) \
    P(LAYOUT,            "layout",            ENUM,     0, POSENC_LAYOUT_FAIRSEQ, 0)               \
    P(BATCH,             "batch",             INTEGER,  1, POSENC_POSITION_MAX, 0)                 \
    P(SEQ,               "seq",               INTEGER,  0, POSENC_POSITION_MAX, 0)                 \
    P(ORDER,             "order",             ENUM,     0, POSENC_ORDER_SBD, 0)                    \
    P(SCALE,             "scale",             AT_LEAST, -POSENC_FLOAT_MAX, POSENC_FLOAT_MAX, 0)    \
    P(HEIGHT,            "height",            INTEGER,  0, POSENC_POSITION_MAX, 0)                 \
    P(WIDTH,             "width",             INTEGER,  0, POSENC_POSITION_MAX, 0)                 \
    P(D_MODEL_2D,        "d_model",           MULTIPLE, 4, POSENC_POSITION_MAX, 0)                 \
    P(CLS_TOKEN,         "cls_token",         FLAG,     0, 1, 0)                                   \
    P(BASE_SIZE,         "base_size",         ABOVE,    0, POSENC_REAL_MAX,     0)                 \
    P(INTERPOLATION_SCALE, "interpolation_scale", ABOVE, 0, POSENC_REAL_MAX,    1)                 \
    P(DIM,               "dim",               INTEGER,  1, POSENC_POSITION_MAX, 0)                 \
    P(TIMESTEPS,         "timesteps",         AT_LEAST, -POSENC_REAL_MAX, POSENC_REAL_MAX, 0)      \
    P(FLIP_SIN_TO_COS,   "flip_sin_to_cos",   FLAG,     0, 1, 0)                                   \
    P(DOWNSCALE_FREQ_SHIFT, "downscale_freq_shift", AT_LEAST, -POSENC_REAL_MAX, POSENC_REAL_MAX, 0) \
    P(TIMESTEP_SCALE,    "scale",             AT_LEAST, -POSENC_REAL_MAX, POSENC_REAL_MAX, 0)      \
    P(MAX_PERIOD,        "max_period",        ABOVE,    0, POSENC_REAL_MAX,     10000)             \
    P(QUERY_LEN,         "query_len",         INTEGER,  0, POSENC_POSITION_MAX + 1.0, 0)           \
    P(KEY_LEN,           "key_len",           INTEGER,  0, POSENC_POSITION_MAX + 1.0, 0)           \
    P(SHIFT,             "shift",             INTEGER,  POSENC_POSITION_MIN, POSENC_POSITION_MAX, 0) \
    P(ROTARY_DIM,        "rotary_dim",        EVEN,     2, POSENC_POSITION_MAX, 0)                 \
    P(SCALING_TYPE,      "scaling.type",      ENUM,     0, POSENC_ROPE_LONGROPE, 0)                \
    P(FACTOR,            "scaling.factor",    ABOVE,    0, POSENC_REAL_MAX,     0)                 \
    P(ORIGINAL_MAX_POSITION, "scaling.original_max_position_embeddings", INTEGER, 1, POSENC_POSITION_MAX, 0) \
    P(MAX_POSITION,      "scaling.max_position_embeddings", INTEGER, 1, POSENC_POSITION_MAX, 0)   \
    P(SCALING_ATTENTION, "scaling.attention_factor", ABOVE, 0, POSENC_FLOAT_MAX,  0)               \
    P(BETA_FAST,         "scaling.beta_fast", ABOVE,    0, POSENC_REAL_MAX,     32)                \
    P(BETA_SLOW,         "scaling.beta_slow", ABOVE,    0, POSENC_REAL_MAX,     1)                 \
    P(MSCALE,            "scaling.mscale",    AT_LEAST, 0, POSENC_REAL_MAX,     0)                 \
    P(MSCALE_ALL_DIM,    "scaling.mscale_all_dim", AT_LEAST, 0, POSENC_REAL_MAX, 0)                \
    P(LOW_FREQ_FACTOR,   "scaling.low_freq_factor", ABOVE, 0, POSENC_REAL_MAX,  0)                 \
    P(HIGH_FREQ_FACTOR,  "scaling.high_freq_factor", ABOVE, 0, POSENC_REAL_MAX, 0)                 \
    P(SHORT_FACTOR,      "scaling.short_factor", ABOVE, 0, POSENC_REAL_MAX,     0)                 \
    P(LONG_FACTOR,       "scaling.long_factor", ABOVE,  0, POSENC_REAL_MAX,     0)                 \
    P(FACTORS_LEN,       "scaling.factors_len", INTEGER, 1, POSENC_POSITION_MAX, 0)                \
    P(NO_TRUNCATE,       "scaling.no_truncate", FLAG,   0, 1, 0)                                   \
    P(SEQ_LEN,           "seq_len",           INTEGER,  0, POSENC_POSITION_MAX + 1.0, 0)           \
    P(INV_FREQ,          "inv_freq",          AT_LEAST, -POSENC_ROPE_FREQUENCY_MAX, POSENC_ROPE_FREQUENCY_MAX, 0) \
    P(ATTENTION_FACTOR,  "attention_factor",  ABOVE,    0, POSENC_FLOAT_MAX,    1)                 \
    P(PRECISION,         "precision",         ENUM,     0, POSENC_ROPE_PRECISION_FLOAT32, 0)       \
    P(ROPE_LAYOUT,       "layout",            ENUM,     0, POSENC_ROPE_INTERLEAVED, 0)             \
    P(ROPE_ORDER,        "order",             ENUM,     0, POSENC_ROPE_ORDER_BHSD, 0)              \
    P(HEADS,             "heads",             INTEGER,  1, POSENC_POSITION_MAX, 0)                 \
    P(HEAD_DIM,          "head_dim",          INTEGER,  1, POSENC_POSITION_MAX, 0)                 \
    P(POSITIONS,         "positions",         INTEGER,  POSENC_POSITION_MIN, POSENC_POSITION_MAX, 0) \
    P(IN_FEATURES,       "in_features",       INTEGER,  1, POSENC_POSITION_MAX, 0)                 \
    P(FROM,              "from",              ENUM,     0, POSENC_ROPE_INTERLEAVED, 0)             \
    P(TO,                "to",                ENUM,     0, POSENC_ROPE_INTERLEAVED, 0)             \
    P(N_AXES,            "n_axes",            INTEGER,  1, POSENC_ROPE_MAX_AXES, 0)                \
    P(SECTIONS,          "sections",          INTEGER,  0, POSENC_POSITION_MAX, 0)                 \
    P(ARRANGEMENT,       "arrangement",       ENUM,     0, POSENC_AXES_INTERLEAVED, 0)             \
    P(FORM_2D,           "form",              ENUM,     0, POSENC_ROPE_2D_AXIAL, 0)                \
    P(SPAN_KIND,         "spans.kind",        ENUM,     0, POSENC_MROPE_VIDEO, 0)                  \
    P(SPAN_T,            "spans.t",           INTEGER,  1, POSENC_POSITION_MAX, 0)                 \
    P(SPAN_H,            "spans.h",           INTEGER,  1, POSENC_POSITION_MAX, 0)                 \
    P(SPAN_W,            "spans.w",           INTEGER,  1, POSENC_POSITION_MAX, 0)                 \
    P(SECONDS_PER_GRID,  "spans.seconds_per_grid", AT_LEAST, 0, POSENC_REAL_MAX, 0)                \
    P(SPATIAL_MERGE_SIZE, "spatial_merge_size", INTEGER, 1, POSENC_POSITION_MAX, 2)                \
    P(TOKENS_PER_SECOND, "tokens_per_second", AT_LEAST, 0, POSENC_REAL_MAX,     0)                 \
    P(MAX_BIAS,          "max_bias",          ABOVE,    0, POSENC_REAL_MAX,     8)                 \
    P(QUERY_OFFSET,      "query_offset",      INTEGER,  0, POSENC_POSITION_MAX, 0)                 \
    P(CAUSAL,            "causal",            FLAG,     0, 1, 0)                                   \
    P(BIDIRECTIONAL,     "bidirectional",     FLAG,     0, 1, 0)                                   \
    P(NUM_BUCKETS,       "num_buckets",       INTEGER,  2, POSENC_POSITION_MAX, 32)                \
    P(MAX_DISTANCE,      "max_distance",      INTEGER,  1, POSENC_POSITION_MAX, 128)               \
    P(BUCKET_SIZE,       "bucket_size",       INTEGER,  2, POSENC_POSITION_MAX, 256)               \
    P(MAX_POSITION_DEBERTA, "max_position",   INTEGER,  2, POSENC_POSITION_MAX, 512)               \
    P(REL,               "rel",               INTEGER,  POSENC_POSITION_MIN, POSENC_POSITION_MAX, 0) \
    P(D_MODEL_EVEN,      "d_model",           EVEN,     2, POSENC_POSITION_MAX, 0)                 \
    P(CLAMP_LENGTH,      "clamp_length",      INTEGER,  0, POSENC_POSITION_MAX, 0)

/* The rows of POSENC_PARAMETERS: POSENC_PARAM_BASE, ... */
#define POSENC_PARAM_ID_(id, name, rule, lo, hi, zero) POSENC_PARAM_##id,
typedef enum posenc_param {
    POSENC_PARAM_NONE = -1,
    POSENC_PARAMETERS(POSENC_PARAM_ID_)
    POSENC_PARAM_COUNT
} posenc_param;

/*
 * posenc_last_error: why the last call that failed on this thread failed
 * (like errno, the one record posenc keeps; a call that succeeds leaves it):
 *
 *   status   what that call returned
 *   param    the row of POSENC_PARAMETERS (or of POSENC_ENCODER_PARAMETERS,
 *            numbered after it) of the parameter that failed, or
 *            POSENC_PARAM_NONE
 *   index    that parameter's position in the call, from 1 (a field of a
 *            struct argument has the struct's position); 0 if none
 *   element  for an array (inv_freq, scaling.long_factor, timesteps,
 *            tokens), the element that failed; -1 otherwise
 *   name     its name: the row's, or a buffer's ("out", "x"); NULL if none
 *   rule     the posenc_rule it broke, with the bounds lo and hi: the row's,
 *            or the call's where a bound comes from another parameter, which
 *            `other` then names ("head_dim")
 *   value    the value given (a buffer's length for RULE_LENGTH)
 *   why      for RULE_RESULT, and where the row alone does not explain it: a
 *            short reason, or NULL; a % in it stands for lo
 *
 *   if (posenc_rope_apply(...) != POSENC_OK) {
 *       const posenc_error *e = posenc_last_error();
 *       fprintf(stderr, "%s: %s = %g\n", posenc_strerror(e->status), e->name, e->value);
 *   }
 */
typedef struct posenc_error {
    int status;
    int param;
    int index;
    int element;
    int rule;
    const char *name;
    const char *other;
    const char *why;
    double value;
    double lo;
    double hi;
} posenc_error;

POSENC_API const posenc_error *posenc_last_error(void);

/* ------------------------------------------------------------------------ */
/* Sinusoidal tables (Vaswani et al. 2017, "Attention Is All You Need", 3.5)  */
/* ------------------------------------------------------------------------ */

/*
 * Layouts of the table row for position p, d = d_model, base b (default 10000).
 * Pictured for d = 6, s_i = sin(p * w_i), c_i = cos(p * w_i):
 *
 * POSENC_LAYOUT_INTERLEAVED   [s0 c0 s1 c1 s2 c2]        w_i = b^(-2i/d)
 *   Vaswani 3.5; the PyTorch notebook, labml.ai, the JAX/Flax tutorial.
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
 *   length, d_model  at most POSENC_POSITION_MAX; d_model >= 1 (>= 4 for fairseq)
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
 * fairseq. The PyTorch notebook's "denominator" is 1 / w_i.
 *
 *   out      caller buffer of out_len >= that many doubles
 */
POSENC_API int posenc_sinusoidal_frequencies(double *out, size_t out_len, size_t d_model,
                                             double base, int layout);

/* The order of the axes of an activation tensor x. */
typedef enum posenc_order {
    POSENC_ORDER_BSD = 0, /* [batch][seq][d]: Hugging Face, JAX/Flax tutorial */
    POSENC_ORDER_SBD = 1  /* [seq][batch][d]: PyTorch nn.Transformer, labml   */
} posenc_order;

/*
 * posenc_add_sinusoidal: x = x * scale + PE, in place, the table broadcast
 * over the batch: for BSD, x[b][s][k] = x[b][s][k] * scale + PE(offset + s, k).
 * "Transformer Encoder Explained" scales embeddings by sqrt(d_model) before adding
 * (Vaswani 3.4); scale = 1 adds the table alone (labml). The sum is formed in
 * float32 from the float32-rounded table value (one rounding, as a float32
 * model does it).
 *
 *   x        caller buffer of x_len >= batch * seq * d_model floats
 *   batch    1 .. POSENC_POSITION_MAX
 *   seq      at most POSENC_POSITION_MAX; offset + seq - 1 <= POSENC_POSITION_MAX
 *   scale    finite
 *   others   as posenc_sinusoidal
 */
POSENC_API int posenc_add_sinusoidal(float *x, size_t x_len, size_t batch, size_t seq,
                                     size_t d_model, int order, float scale, double base,
                                     int32_t offset, int layout);

/* ------------------------------------------------------------------------ */
/* Images and diffusion: the 2-D table and timestep embeddings               */
/* ------------------------------------------------------------------------ */

/*
 * posenc_sinusoidal_2d: the fixed 2-D sine-cosine table of ViTs with
 * sin-cos position embeddings, MAE and DiT (facebookresearch/mae
 * util/pos_embed.py get_2d_sincos_pos_embed, copied by facebookresearch/DiT
 * models.py; diffusers models/embeddings.py get_2d_sincos_pos_embed). For the
 * patch in grid row y (0 <= y < height) and column x (0 <= x < width), with
 * q = d_model / 4 and w_k = base^(-k/q), k < q:
 *
 *   row 1 + y * width + x  (y * width + x without the cls row) =
 *   [ sin(x w_0) .. sin(x w_{q-1}) | cos(x w_0) .. | sin(y w_0) .. | cos(y w_0) .. ]
 *
 * NOTE the first half holds x, the column: MAE builds its grid with
 * np.meshgrid(grid_w, grid_h) ("here w goes first") and then encodes grid[0],
 * the w coordinate, into the half its code calls emb_h. Pictured for
 * d_model = 8 (q = 2), height 2, width 3, cls_token 1:
 *
 *   row 0        [0    0    0    0    0    0    0    0   ]   the cls token
 *   row 1 (0,0)  [sx0  sx1  cx0  cx1  sy0  sy1  cy0  cy1 ]   x = 0, y = 0
 *   row 2 (0,1)  [ x = 1                | y = 0           ]
 *   row 4 (1,0)  [ x = 0                | y = 1           ]
 *
 *   out          caller buffer of out_len >= (cls_token + height * width) * d_model floats
 *   d_model      a multiple of 4, >= 4 (MAE asserts evenness at both levels),
 *                at most POSENC_POSITION_MAX
 *   base         finite, > 1; 0 selects 10000 (MAE's constant)
 *   cls_token    1: a first row of zeros (MAE's cls_token=True); 0: none
 *   base_size, interpolation_scale
 *                diffusers' fine-tuning-at-higher-resolution scaling (its
 *                PatchEmbed: base_size = the training grid's height): the
 *                coordinates become x / (width / base_size) / interpolation_scale
 *                and y / (height / base_size) / interpolation_scale.
 *                base_size 0: none (MAE, DiT: integer coordinates);
 *                interpolation_scale 0 selects 1; otherwise finite, > 0.
 *                diffusers rounds those coordinates to float32 first (up to
 *                ~1e-6 apart from these double ones when base_size / width
 *                is not a short binary fraction)
 *   height, width  each at most POSENC_POSITION_MAX (coordinates are int32)
 *
 * Every value is within 2^-23 of the formula evaluated in double (the scaled
 * frequency scale * w_k is formed in double; at coordinates up to 2^24).
 * height * width = 0 writes only the cls row, if any.
 */
POSENC_API int posenc_sinusoidal_2d(float *out, size_t out_len, size_t height, size_t width,
                                    size_t d_model, double base, int cls_token, double base_size,
                                    double interpolation_scale);

/*
 * posenc_timestep_embedding: the sinusoidal embedding of diffusion timesteps,
 * diffusers models/embeddings.py get_timestep_embedding (used by every
 * diffusers UNet and DiT through its Timesteps module; "matches the
 * implementation in Denoising Diffusion Probabilistic Models"). With
 * half = floor(dim / 2), for each timestep t_r (a real number: samplers use
 * fractional timesteps):
 *
 *   w_k = exp(-ln(max_period) * k / (half - downscale_freq_shift)),  k < half
 *   out[r] = [ sin(scale t_r w_0) .. sin(scale t_r w_{half-1}) | cos(..) .. ]
 *
 *   flip_sin_to_cos 1: [cos | sin]; an odd dim appends a zero column:
 *     dim 5, no flip:  [s0 s1 c0 c1 0]      dim 5, flip:  [c0 c1 s0 s1 0]
 *
 * How it relates to the sinusoidal layouts, at integer timesteps:
 *   shift 1 (the default)  = POSENC_LAYOUT_TENSOR2TENSOR with base max_period
 *                            (tensor2tensor's get_timing_signal_1d) for dim >= 4
 *   shift 0, even dim      = POSENC_LAYOUT_CONCATENATED with base max_period
 *   shift 0, flip          = DiT's TimestepEmbedder.timestep_embedding (GLIDE)
 *   Stable Diffusion's UNets use flip 1, shift 0.
 *
 *   out        caller buffer of out_len >= n * dim floats
 *   timesteps  n finite doubles (float32 timesteps convert exactly); NULL only when n = 0;
 *              out must not overlap them: POSENC_ERR_INVALID_ARGUMENT
 *   dim        1 .. POSENC_POSITION_MAX
 *   flip_sin_to_cos  1 or 0
 *   downscale_freq_shift, scale  finite; half - downscale_freq_shift must not
 *              be 0 when half >= 1 (it divides: diffusers gives NaN there)
 *   max_period finite, > 0; 0 selects 10000
 *   every angle scale * t * w_k must be finite (POSENC_ERR_INVALID_ARGUMENT)
 *
 * The angle (scale t) w_k is formed in double from the double timestep (the
 * reference rounds t, w_k and their product to float32: ~1e-4 apart at
 * t = 1000); sin and cos are evaluated in double and rounded once to float:
 * within 2^-23 of the double formula at |scale t w_k| <= 2^24. Runs of
 * consecutive integral scale * t (within int32) step the exact recurrence of
 * the tables; every other row is evaluated directly.
 */
POSENC_API int posenc_timestep_embedding(float *out, size_t out_len, const double *timesteps,
                                         size_t n, size_t dim, int flip_sin_to_cos,
                                         double downscale_freq_shift, double scale,
                                         double max_period);

/* ------------------------------------------------------------------------ */
/* Relative positions                                                        */
/* ------------------------------------------------------------------------ */

/*
 * posenc_relative_positions: out[i][j] = j - i + shift, row-major
 * [query_len][key_len], the JAX/Flax tutorial's relative matrix (which uses
 * shift = max_seq_len so that every entry is positive).
 *
 * query_len and key_len at most 2^31; every entry must fit int32, otherwise
 * POSENC_ERR_INVALID_ARGUMENT.
 */
POSENC_API int posenc_relative_positions(int32_t *out, size_t out_len, size_t query_len,
                                         size_t key_len, int32_t shift);

/* ------------------------------------------------------------------------ */
/* RoPE: rotary position embeddings (Su et al. 2021, "RoFormer", 3.4)        */
/* ------------------------------------------------------------------------ */

/*
 * RoPE rotates each pair of features (a, b) of a query or key at position p
 * by the angle p * f_k, one inverse frequency f_k per pair k < r/2
 * (r = rotary_dim, even, <= head_dim):
 *
 *   a' = A * (a cos(p f_k) - b sin(p f_k))
 *   b' = A * (b cos(p f_k) + a sin(p f_k))
 *
 * A is the attention factor (1 except YaRN and LongRoPE, which fold it into
 * cos and sin as Hugging Face's *RotaryEmbedding.forward does). Dims >= r of
 * a head pass through untouched (partial rotary: GPT-NeoX rotary_pct, Phi).
 *
 * The frequencies: f_k = base^(-2k/r) (RoFormer; HF modeling_rope_utils.py
 * _compute_default_rope_parameters), then, by type, exactly as HF's
 * modeling_rope_utils.py defines them (double precision throughout):
 *
 * POSENC_ROPE_DEFAULT   f_k                                    A = 1
 * POSENC_ROPE_LINEAR    f_k / factor        (position interpolation, kaiokendev;
 *                       _compute_linear_scaling_rope_parameters)           A = 1
 * POSENC_ROPE_DYNAMIC   NTK-aware: base' = base * (factor L / M - (factor - 1))^(r/(r-2)),
 *                       L = max(seq_len, M), M = max_position_embeddings, then
 *                       base'^(-2k/r) (_compute_dynamic_ntk_parameters; r >= 4)  A = 1
 * POSENC_ROPE_YARN      YaRN (Peng et al. 2023), _compute_yarn_parameters:
 *                       f_k = f_k/factor * (1 - e_k) + f_k * e_k, e_k = 1 - ramp_k,
 *                       ramp_k = clamp((k - lo) / (hi - lo), 0, 1) (hi += 0.001 when
 *                       lo == hi), [lo, hi] = find_correction_range(beta_fast,
 *                       beta_slow) over original_max_position_embeddings:
 *                       dim(n) = r ln(O / (2 pi n)) / (2 ln base), lo = max(floor(dim(beta_fast)), 0),
 *                       hi = min(ceil(dim(beta_slow)), r - 1) (no floor/ceil when
 *                       no_truncate).  A = attention_factor if set, else
 *                       g(factor, mscale) / g(factor, mscale_all_dim) when both are
 *                       non-zero, else g(factor, 1); g(s, m) = 0.1 m ln s + 1 (s > 1), 1.
 * POSENC_ROPE_LLAMA3    Llama 3.1, _compute_llama3_parameters: wavelength w = 2 pi / f_k;
 *                       w > O / low_freq_factor: f_k / factor; w < O / high_freq_factor:
 *                       f_k; between (bounds inclusive): (1 - s) f_k / factor + s f_k,
 *                       s = (O / w - low_freq_factor) / (high_freq_factor - low_freq_factor).  A = 1
 * POSENC_ROPE_LONGROPE  LongRoPE (Ding et al. 2024; Phi-3), _compute_longrope_parameters:
 *                       f_k / e_k, e = long_factor when seq_len > O, else short_factor.
 *                       A = attention_factor if set, else 1 for factor <= 1, else
 *                       sqrt(1 + ln(factor) / ln(O)).
 *
 * O = original_max_position_embeddings. HF computes these in float32; posenc
 * in double (HF's LongRoPE factor lists are float32 tensors: published lists
 * are float32 values printed in full, so this rarely matters).
 *
 * posenc_rope_scaling: zero means default, where HF has one:
 *   type                      posenc_rope_type; 0 = POSENC_ROPE_DEFAULT
 *   no_truncate               0: YaRN's truncate = True (HF's default); 1: False
 *   factor                    > 0. Required by LINEAR, DYNAMIC, LLAMA3. YARN and
 *                             LONGROPE: 0 = max_position_embeddings / O (HF; an
 *                             explicit factor wins, as in HF since PR #40320)
 *   original_max_position_embeddings  an integer >= 1. Required by LLAMA3; YARN,
 *                             LONGROPE: 0 = max_position_embeddings
 *   max_position_embeddings   an integer >= 1. Required by DYNAMIC, and by YARN /
 *                             LONGROPE when factor or O is 0
 *   attention_factor          > 0; 0 = the type's formula above
 *   beta_fast, beta_slow      YaRN, > 0 with beta_fast >= beta_slow; 0 = 32, 1
 *   mscale, mscale_all_dim    YaRN, >= 0; 0 = absent (Python truthiness, as HF)
 *   low_freq_factor, high_freq_factor  LLAMA3, required, 0 < low <= high (low == high:
 *                       no smooth band, as Llama 4; a wavelength exactly on w = O / low
 *                       then divides 0 by 0, POSENC_ERR_INVALID_ARGUMENT)
 *   short_factor, long_factor LONGROPE, required: factors_len = r/2 values each, > 0
 * Fields a type does not use are ignored. All values must be finite.
 */
typedef enum posenc_rope_type {
    POSENC_ROPE_DEFAULT = 0,
    POSENC_ROPE_LINEAR = 1,
    POSENC_ROPE_DYNAMIC = 2,
    POSENC_ROPE_YARN = 3,
    POSENC_ROPE_LLAMA3 = 4,
    POSENC_ROPE_LONGROPE = 5
} posenc_rope_type;

typedef struct posenc_rope_scaling {
    int type;
    int no_truncate;
    double factor;
    double original_max_position_embeddings;
    double max_position_embeddings;
    double attention_factor;
    double beta_fast;
    double beta_slow;
    double mscale;
    double mscale_all_dim;
    double low_freq_factor;
    double high_freq_factor;
    const double *short_factor;
    const double *long_factor;
    size_t factors_len;
} posenc_rope_scaling;

/*
 * The largest |f_k| and attention factor A the RoPE routines accept. Beyond
 * them the angle p f_k (a float product in the float32 recipe) or the float
 * A cos(p f_k) overflows at some int32 position, and caches would hold inf or
 * NaN. Real models have |f_k| <= 1 and A near 1.
 */
#define POSENC_ROPE_FREQUENCY_MAX 18446744073709551616.0 /* 2^64 */
#define POSENC_ROPE_ATTENTION_MAX POSENC_FLOAT_MAX

/*
 * Precision of the angles. The rotation itself is the same in both: in float,
 * as torch's q * cos + rotate_half(q) * sin, a' = float(a c) - float(b s),
 * b' = float(b c) + float(a s), each operation rounded to float (within
 * 2^-23 * max(1, A) * (|a| + |b|) of the exact rotation by those c and s; four
 * lanes at a time with WASM SIMD, bit-identical to the scalar build).
 *
 * POSENC_ROPE_PRECISION_FLOAT64 (0): the angle p * f_k in double, cos and sin in
 *   double times A, rounded once to float. Cache values are within
 *   2^-23 * max(1, A) of A cos(p f_k) (the double formula) for |p| <= 2^24;
 *   every rotated output is within 2^-22 * A * (|a| + |b|) of the
 *   double-precision rotation (tested at positions up to 2^24).
 * POSENC_ROPE_PRECISION_FLOAT32 (1): the common float32 recipe (HF, GPT-NeoX,
 *   Meta's reference in float32), for parity with models trained with it:
 *   angle = (float)p * (float)f_k in float; c = float(cos((double)angle)) (the
 *   float cosine of the float angle, correctly rounded but for rare double-
 *   rounding ties; torch's own cosf is within an ulp of it), then c * (float)A
 *   in float; likewise sin. Opt-in: its angles are off by up to half a float
 *   ulp of p f_k, ~3e-2 rad at p = 2^20.
 */
typedef enum posenc_rope_precision {
    POSENC_ROPE_PRECISION_FLOAT64 = 0,
    POSENC_ROPE_PRECISION_FLOAT32 = 1
} posenc_rope_precision;

/*
 * Which features of a head form the rotated pairs. Pictured after ggml for
 * head_dim = 6, rotary_dim = 4 (c, s: the two members of a pair, 0: untouched):
 *
 * POSENC_ROPE_HALF (0)         [c0 c1 s0 s1 0 0]   pairs (k, k + r/2)
 *   GPT-NeoX, LLaMA and every Hugging Face model (rotate_half); ggml NEOX.
 * POSENC_ROPE_INTERLEAVED (1)  [c0 s0 c1 s1 0 0]   pairs (2k, 2k + 1)
 *   GPT-J (rotate_every_two), RoFormer, Meta's llama reference (complex
 *   view_as_complex); ggml NORMAL.
 */
typedef enum posenc_rope_layout {
    POSENC_ROPE_HALF = 0,
    POSENC_ROPE_INTERLEAVED = 1
} posenc_rope_layout;

/*
 * posenc_rope: one rotary embedding, whole: which features rotate, how, and
 * at which frequencies. The routines below take it and compute its
 * frequencies themselves (in double, by the formulas above): a caller never
 * carries frequencies across. Zero means default.
 *
 *   rotary_dim   r: even, >= 2; the routines that rotate x take 0 as head_dim,
 *                and need r <= head_dim
 *   base         finite, > 1; 0 selects 10000 (HF's rope_theta)
 *   scaling      posenc_rope_scaling (all zero: none)
 *   seq_len      DYNAMIC and LONGROPE: the sequence length the frequencies
 *                serve (HF's seq_len); 0: the largest position + 1 of the call
 *                (HF's forward: max(position_ids) + 1), or none for
 *                posenc_rope_frequencies (DYNAMIC then uses M, LONGROPE the
 *                short factors)
 *   inv_freq     NULL: the frequencies of base and scaling. Else r / 2
 *                frequencies used as given (a model's own inv_freq buffer; with
 *                PRECISION_FLOAT32, transformers' float32 pipeline value for
 *                value), each |f_k| <= POSENC_ROPE_FREQUENCY_MAX; base and
 *                scaling are still checked, and the scaling's A applies
 *   attention_factor  with inv_freq: A, 0 < A <= POSENC_ROPE_ATTENTION_MAX;
 *                0 selects the scaling's (1 without). Without inv_freq the
 *                scaling decides A.
 *   layout       a posenc_rope_layout (the caches do not pair features)
 *   precision    a posenc_rope_precision
 *
 * POSENC_ERR_INVALID_ARGUMENT also when base and scaling give a non-finite
 * scaled base, a frequency past POSENC_ROPE_FREQUENCY_MAX, or an attention
 * factor outside (0, POSENC_ROPE_ATTENTION_MAX] (posenc_last_error: why).
 */
typedef struct posenc_rope {
    size_t rotary_dim;
    double base;
    posenc_rope_scaling scaling;
    size_t seq_len;
    const double *inv_freq;
    double attention_factor;
    int layout;
    int precision;
} posenc_rope;

/*
 * RoPE over several position axes: M-RoPE (Qwen2-VL) and 2-D RoPE (vision).
 *
 * The rotary pairs k < r/2 split into n_axes consecutive sections,
 * sections[a] pairs each (summing to r/2); the pairs of section a rotate by
 * the position of axis a:
 *
 *   S_a = sections[0] + .. + sections[a-1]:   pair k, S_a <= k < S_a + sections[a],
 *   angle p_a f_k,  p_a = positions[a][row]   (positions axis-major: [n_axes][rows])
 *
 * with posenc_rope_apply's rotation, attention factor, layouts and precision;
 * in the half layout a section covers both halves, pair k being (k, k + r/2).
 * With every axis at the same positions the values are posenc_rope_cache's
 * and posenc_rope_apply's bit for bit.
 *
 * M-RoPE, multimodal RoPE (Qwen2-VL, Qwen2.5-VL; Hugging Face
 * models/qwen2_vl/modeling_qwen2_vl.py apply_multimodal_rotary_pos_emb):
 * n_axes 3 (temporal, height, width), sections = the config's
 * rope_scaling.mrope_section ([16, 24, 24] for head_dim 128), the
 * frequencies of posenc_rope; positions from posenc_mrope_positions. HF splits
 * cat(freqs, freqs) by mrope_section * 2 and takes chunk i from axis i % 3:
 * the same sections in both halves (POSENC_AXES_SECTIONED). Pictured for
 * r = 12, sections [2, 2, 2], the axis each feature's angle comes from:
 *
 *   POSENC_ROPE_HALF         [t t h h w w | t t h h w w]
 *   POSENC_ROPE_INTERLEAVED  [t t t t h h h h w w w w]
 *
 * Qwen3-VL interleaves the axes instead (POSENC_AXES_INTERLEAVED; HF
 * models/qwen3_vl/modeling_qwen3_vl.py Qwen3VLTextRotaryEmbedding
 * .apply_interleaved_mrope): pair k takes axis a = k mod 3 when a >= 1 and
 * k < 3 sections[a], else the temporal axis; mrope_section [24, 20, 20] of
 * 64 pairs gives t h w t h w ... t h w (60 pairs), then t t t t. Sections
 * still count each axis's pairs. Pictured for r = 12, sections [2, 2, 2]:
 *
 *   POSENC_ROPE_HALF         [t h w t h w | t h w t h w]
 *
 * 2-D RoPE of vision encoders (form, below): n_axes 2, the patch's row y
 * (axis 0) and column x (axis 1), sections [r/4, r/4], the frequencies
 * arranged from f_i = base^(-2i/r) (no scaling, no inv_freq):
 *   POSENC_ROPE_2D_PIXTRAL (HF models/pixtral/modeling_pixtral.py
 *     PixtralRotaryEmbedding, patches in row-major order,
 *     position_ids_in_meshgrid): the even frequencies rotate by the row, the
 *     odd ones by the column: f'_k = f_{2k} (k < r/4),  f'_{r/4 + k} = f_{2k+1}
 *   POSENC_ROPE_2D_AXIAL (the Qwen2-VL and Qwen2.5-VL vision encoders, HF
 *     VisionRotaryEmbedding(head_dim / 2) with rot_pos_emb): both axes take
 *     the same frequencies base^(-4k/r) = f_{2k}:  f'_k = f'_{r/4 + k} = f_{2k}
 *   Both rotate in the half layout (rotate_half); r = head_dim, r % 4 == 0.
 */
#define POSENC_ROPE_MAX_AXES 4

/* How sections assign pairs to axes (see above). */
typedef enum posenc_axes_arrangement {
    POSENC_AXES_SECTIONED = 0,  /* contiguous sections: Qwen2-VL, Qwen2.5-VL, 2-D RoPE */
    POSENC_AXES_INTERLEAVED = 1 /* axis k mod n_axes within its section: Qwen3-VL        */
} posenc_axes_arrangement;

/* The frequencies of 2-D RoPE (see above). */
typedef enum posenc_rope_2d {
    POSENC_ROPE_2D_NONE = 0,    /* the frequencies of posenc_rope, as they are      */
    POSENC_ROPE_2D_PIXTRAL = 1, /* [f0 f2 f4 .. | f1 f3 f5 ..]                      */
    POSENC_ROPE_2D_AXIAL = 2    /* [f0 f2 f4 .. | f0 f2 f4 ..]                      */
} posenc_rope_2d;

/*
 * posenc_rope_axes: the axes of a RoPE.
 *   n_axes       1 .. POSENC_ROPE_MAX_AXES
 *   sections     n_axes counts summing to rotary_dim / 2; interleaved, pair
 *                a + n_axes (sections[a] - 1) of each axis a >= 1 with pairs
 *                must exist (be below rotary_dim / 2)
 *   arrangement  a posenc_axes_arrangement
 *   form         a posenc_rope_2d; PIXTRAL and AXIAL need n_axes 2, sections
 *                [r/4, r/4], the sectioned arrangement, and a posenc_rope
 *                without scaling or inv_freq
 */
typedef struct posenc_rope_axes {
    size_t n_axes;
    size_t sections[POSENC_ROPE_MAX_AXES];
    int arrangement;
    int form;
} posenc_rope_axes;

/*
 * posenc_rope_frequencies: inv_freq[k] = f_k for k < rotary_dim / 2 (the
 * formulas above; arranged as axes->form says) and *attention_factor = A.
 *
 *   inv_freq   caller buffer of n >= rotary_dim / 2 doubles; must not overlap
 *              attention_factor, rope->inv_freq, nor (LONGROPE) its factor
 *              lists: POSENC_ERR_INVALID_ARGUMENT
 *   rope       as above (DYNAMIC needs rotary_dim >= 4); seq_len 0: none
 *   axes       NULL, or the 2-D form whose frequencies to arrange
 */
POSENC_API int posenc_rope_frequencies(double *inv_freq, size_t n, const posenc_rope *rope,
                                       const posenc_rope_axes *axes, double *attention_factor);

/*
 * posenc_rope_cache: cos_out[r][k] = A cos(p_r f_k), sin_out[r][k] = A sin(p_r f_k),
 * each row-major [length][rotary_dim / 2]: HF's cos/sin caches without their
 * duplicated second half (HF's emb = cat(freqs, freqs)).
 *
 *   cos_out, sin_out  caller buffers of out_len >= length * rotary_dim / 2 floats
 *                     each; must not overlap each other, positions or
 *                     rope's arrays: POSENC_ERR_INVALID_ARGUMENT
 *   p_r        positions[r] when positions is not NULL (length entries), else
 *              offset + r (offset + length - 1 <= POSENC_POSITION_MAX)
 *   rope       as above (rotary_dim >= 2: no head_dim to default to)
 */
POSENC_API int posenc_rope_cache(float *cos_out, float *sin_out, size_t out_len, size_t length,
                                 int32_t offset, const int32_t *positions, const posenc_rope *rope);

/*
 * The order of the axes of x for posenc_rope_apply. Pictured for batch 1,
 * seq 2, heads 2 (v_sh: the head_dim floats of row s, head h):
 *
 * POSENC_ROPE_ORDER_BSHD (0)  [batch][seq][heads][head_dim]   [v00 v01 | v10 v11]
 *   a projection's output viewed per head (q_proj(x).view(b, s, h, d)), before
 *   any transpose.
 * POSENC_ROPE_ORDER_BHSD (1)  [batch][heads][seq][head_dim]   [v00 v10 | v01 v11]
 *   what Hugging Face's apply_rotary_pos_emb receives (models/llama/
 *   modeling_llama.py: q, k after .transpose(1, 2), unsqueeze_dim = 1).
 * Both rotate the same vectors x[b][s][h] by the same positions (indexed by
 * batch and row, never by head), bit for bit.
 */
typedef enum posenc_rope_order {
    POSENC_ROPE_ORDER_BSHD = 0,
    POSENC_ROPE_ORDER_BHSD = 1
} posenc_rope_order;

/*
 * posenc_rope_apply: rotates x in place, x row-major as `order` says:
 *
 *   x[b][s][h][i], x[b][s][h][j] <- rotation by p * f_k (formula above), for each
 *   pair (i, j) of the layout, p = positions[b * seq + s] (positions_len =
 *   batch * seq: padded batches), positions[s] (positions_len = seq: every
 *   batch alike, e.g. KV-cache decoding), or offset + s (positions NULL,
 *   positions_len 0; offset + seq - 1 <= POSENC_POSITION_MAX).
 *
 *   x          caller buffer of x_len >= batch * seq * heads * head_dim floats;
 *              must not overlap positions or rope's arrays (read while x is
 *              rotated): POSENC_ERR_INVALID_ARGUMENT
 *   batch, heads >= 1;  head_dim >= rope->rotary_dim (0: head_dim)
 *   order      a posenc_rope_order
 *   rope       as above
 *
 * cos and sin are computed per block of rows into a fixed stack tile (no
 * allocation), once per position and shared by every head (and batch).
 */
POSENC_API int posenc_rope_apply(float *x, size_t x_len, size_t batch, size_t seq, size_t heads,
                                 size_t head_dim, int order, int32_t offset, const int32_t *positions,
                                 size_t positions_len, const posenc_rope *rope);

/*
 * posenc_rope_permute_weights: reorders the rows of a q or k projection so that
 * RoPE in layout `to` on (W' x) equals RoPE in layout `from` on (W x), with
 * the features of each head permuted (attention scores are unchanged):
 *
 *   interleaved -> half:  W'[h][t * r/2 + i] = W[h][2i + t]   (t = 0, 1; i < r/2)
 *   half -> interleaved:  W'[h][2i + t] = W[h][t * r/2 + i]
 *
 * rows >= rotary_dim of each head are copied unchanged. interleaved -> half is
 * HF's convert_llama_weights_to_hf.py permute() (Meta checkpoints to HF),
 * generalised to partial rotary; half -> interleaved is its inverse.
 *
 *   w          row-major [heads * head_dim][in_features], w_len >= that many
 *              floats; a bias is the case in_features = 1
 *   out        caller buffer of out_len >= heads * head_dim * in_features
 *              floats; must not overlap w (a permutation cannot run in
 *              place): POSENC_ERR_INVALID_ARGUMENT
 *   heads      the heads of this projection (num_key_value_heads for k under GQA)
 *   rotary_dim even, 2 .. head_dim
 *   from, to   posenc_rope_layout values (from == to copies)
 */
POSENC_API int posenc_rope_permute_weights(float *out, size_t out_len, const float *w,
                                           size_t w_len, size_t heads, size_t head_dim,
                                           size_t rotary_dim, size_t in_features, int from,
                                           int to);

/*
 * posenc_rope_axes_cache: cos_out[r][k] = A cos(p_a(r) f_k), sin_out likewise,
 * [length][rotary_dim / 2], a the axis of pair k.
 *
 *   positions  [n_axes][length] int32 (n_axes * length values)
 *   axes       the axes (above)
 *   others     as posenc_rope_cache; cos_out and sin_out must not overlap each
 *              other, positions or rope's arrays: POSENC_ERR_INVALID_ARGUMENT
 */
POSENC_API int posenc_rope_axes_cache(float *cos_out, float *sin_out, size_t out_len, size_t length,
                                      const int32_t *positions, const posenc_rope_axes *axes,
                                      const posenc_rope *rope);

/*
 * posenc_rope_axes_apply: rotates x [batch][seq][heads][head_dim] (order
 * POSENC_ROPE_ORDER_BSHD) or [batch][heads][seq][head_dim] (BHSD) in place,
 * pair k of row s by p_a(s) f_k (the rotation of posenc_rope_apply).
 *
 *   positions      [n_axes][seq] (positions_len = n_axes * seq: every batch
 *                  alike) or [n_axes][batch][seq] (n_axes * batch * seq: HF's
 *                  position_ids [3][batch][seq], padded batches)
 *   axes           the axes (above)
 *   others         as posenc_rope_apply
 *   x must not overlap positions or rope's arrays (read while x is rotated):
 *   POSENC_ERR_INVALID_ARGUMENT
 */
POSENC_API int posenc_rope_axes_apply(float *x, size_t x_len, size_t batch, size_t seq, size_t heads,
                                      size_t head_dim, int order, const int32_t *positions,
                                      size_t positions_len, const posenc_rope_axes *axes,
                                      const posenc_rope *rope);

/* A run of text tokens, or an image or video grid, of posenc_mrope_positions. */
typedef enum posenc_mrope_kind {
    POSENC_MROPE_TEXT = 0,
    POSENC_MROPE_IMAGE = 1,
    POSENC_MROPE_VIDEO = 2
} posenc_mrope_kind;

/* The JS binding's layout of this struct is generated from this declaration
 * (tools/abi.mjs), and compiled as _Static_asserts into the wasm. */
typedef struct posenc_mrope_span {
    int kind;                /* a posenc_mrope_kind                               */
    size_t t, h, w;          /* TEXT: t tokens (h, w unused); IMAGE, VIDEO: the   */
                             /* grid before merging (image_grid_thw, video_grid_thw) */
    double seconds_per_grid; /* VIDEO: Qwen2.5-VL's second_per_grid_t, finite, >= 0 */
} posenc_mrope_span;

/*
 * posenc_mrope_positions: the M-RoPE positions [3][seq] of a sequence of
 * spans, as Hugging Face's get_rope_index builds them (models/qwen2_vl/
 * modeling_qwen2_vl.py Qwen2VLModel.get_rope_index; Qwen2.5-VL's in
 * models/qwen2_5_vl/modeling_qwen2_5_vl.py), without token ids: the spans
 * say what the tokens are. With `next` = 1 + the largest position so far
 * (0 at the start):
 *
 *   TEXT, t tokens:  all three axes next, next + 1, .., next + t - 1
 *   IMAGE / VIDEO, grid (t, h, w):  the merger leaves t * (h/m) * (w/m)
 *     tokens (m = spatial_merge_size), in (frame, row, column) order:
 *       axis 0 = next + T(frame),  axis 1 = next + row,  axis 2 = next + column
 *     T(i) = i (Qwen2-VL: tokens_per_second = 0); Qwen2.5-VL
 *     (tokens_per_second > 0): images T = 0, videos
 *     T(i) = long(i * seconds_per_grid * tokens_per_second), evaluated in
 *     float32 as torch does (the float step HF's fix of its int64 cast
 *     restored)
 *
 *   12 text tokens, an image of grid (1, 4, 6), m = 2, then 3 text tokens:
 *     axis 0  0 .. 11 | 12 12 12 12 12 12 | 15 16 17
 *     axis 1  0 .. 11 | 12 12 12 13 13 13 | 15 16 17
 *     axis 2  0 .. 11 | 12 13 14 12 13 14 | 15 16 17
 *
 * The text spans include the vision start and end tokens around a grid, as
 * in the token ids. A token generated after the sequence sits at
 * 1 + the largest position (HF's rope_deltas = that - seq).
 *
 *   out        caller buffer of out_len >= 3 * seq int32; must not overlap
 *              spans (read while out is written): POSENC_ERR_INVALID_ARGUMENT
 *   seq        the tokens of the spans (text t, plus t (h/m) (w/m) per grid);
 *              another value is POSENC_ERR_INVALID_ARGUMENT
 *   spans      n_spans records; text t <= POSENC_POSITION_MAX; grids need t,
 *              h, w in 1 .. POSENC_POSITION_MAX, h and w multiples of m
 *              (Qwen's processor makes them so; HF would floor)
 *   spatial_merge_size  m, at most POSENC_POSITION_MAX; 0 selects 2
 *              (Qwen2-VL's and Qwen2.5-VL's)
 *   tokens_per_second   0 (Qwen2-VL) or finite, > 0 (Qwen2.5-VL's
 *              vision_config.tokens_per_second)
 *   every position must fit int32
 */
POSENC_API int posenc_mrope_positions(int32_t *out, size_t out_len, size_t seq,
                                      const posenc_mrope_span *spans, size_t n_spans,
                                      size_t spatial_merge_size, double tokens_per_second);

/* ------------------------------------------------------------------------ */
/* Attention biases and relative buckets                                     */
/* ------------------------------------------------------------------------ */

/*
 * ALiBi (Press, Smith & Lewis 2022, "Train Short, Test Long: Attention with
 * Linear Biases Enables Input Length Extrapolation"; reference code
 * ofirpress/attention_with_linear_biases, fairseq/models/transformer.py
 * get_slopes, whose 8 is generalised to max_bias as in BLOOM and MPT).
 *
 * posenc_alibi_slopes: the slope m_h of every head h < heads.
 *   heads a power of two:  m_h = 2^(-max_bias * (h + 1) / heads)
 *   otherwise, p = the largest power of two below heads: the p slopes of p,
 *   then the odd-numbered slopes (1st, 3rd, 5th, ...) of 2p, in that order
 *   (unsorted), truncated to heads:
 *     h <  p:  m_h = 2^(-max_bias * (h + 1) / p)
 *     h >= p:  m_h = 2^(-max_bias * (2 (h - p) + 1) / (2p))
 *   heads = 3, max_bias = 8: [1/16, 1/256 | 1/4]   (p = 2, then slope 1 of 4)
 *   MPT's gen_slopes (llm-foundry) gives the same list.
 *   Each slope is pow(2, exponent) in double (the exact slope, not the
 *   paper's start * ratio^i product, which can be an ulp off).
 *
 *   out        caller buffer of out_len >= heads doubles
 *   heads      1 .. POSENC_POSITION_MAX
 *   max_bias   finite, > 0; 0 selects 8 (the paper's value)
 */
POSENC_API int posenc_alibi_slopes(double *out, size_t out_len, size_t heads, double max_bias);

/*
 * posenc_alibi_bias: out[h][r][j], [heads][query_len][key_len], for query r
 * at position i = query_offset + r and key j at position j:
 *   causal:      -m_h * (i - j)  for j <= i,  -INFINITY for j > i
 *                (a ready-to-add causal mask)
 *   non-causal:  -m_h * |i - j|
 * Pictured causal, query_offset 0 (non-causal mirrors the lower triangle):
 *
 *            key j:  0     1     2     3
 *   query i = 0   [  0   -inf  -inf  -inf ]
 *   query i = 1   [ -m     0   -inf  -inf ]
 *   query i = 2   [ -2m   -m     0   -inf ]
 *   query i = 3   [ -3m   -2m   -m     0  ]
 *
 * Decoding with a cache of n keys: query_len = 1, key_len = n + 1,
 * query_offset = n gives the last row of the full matrix.
 * Every value is the double -m_h * d rounded once to float (the diagonal is
 * +0, never -0).
 *
 * Other forms in use. BLOOM (build_alibi_tensor) adds m_h * j, a key-only
 * bias; MPT (llm-foundry build_alibi_bias, full = False) adds
 * m_h * (j - (key_len - 1)). Both differ from -m_h * (i - j) by a constant per
 * query row (m_h * i, resp. m_h * (i - key_len + 1)), which softmax ignores,
 * so they equal this causal form after softmax -- but only because the keys
 * j > i are masked out: there -m_h * |i - j| decreases with j while the
 * key-only forms keep increasing. Without a causal mask (an encoder, or
 * prefix-LM) only the |i - j| form (causal = 0, MPT's full = True) is ALiBi.
 * Per-row constants also matter where raw logits are compared across rows.
 *
 *   out            caller buffer of out_len >= heads * query_len * key_len floats
 *   heads          1 .. POSENC_POSITION_MAX
 *   query_offset   >= 0; query_offset + query_len - 1 <= POSENC_POSITION_MAX
 *   key_len        key_len - 1 <= POSENC_POSITION_MAX
 *   causal         1 or 0
 *   max_bias       as posenc_alibi_slopes
 *
 * query_len = 0 or key_len = 0 is valid and writes nothing.
 */
POSENC_API int posenc_alibi_bias(float *out, size_t out_len, size_t heads, size_t query_len,
                                 size_t key_len, int32_t query_offset, int causal,
                                 double max_bias);

/*
 * T5 relative position buckets (Raffel et al. 2020; Hugging Face
 * transformers models/t5/modeling_t5.py T5Attention._relative_position_bucket
 * and compute_bias), bit for bit.
 *
 * posenc_t5_buckets: out[r][j] = bucket(j - (query_offset + r)), int32,
 * [query_len][key_len]: query r sits at query_offset + r (decoding with a
 * cache), key j at j. With rel = key - query and B = num_buckets:
 *   bidirectional:  nb = B / 2, base = nb if rel > 0 else 0,  n = |rel|
 *   unidirectional: nb = B,     base = 0,                     n = max(-rel, 0)
 *   e = nb / 2 (integer division)
 *   n <  e:  base + n
 *   n >= e:  base + min(e + trunc(f32(log(f32(n) / e) / f32(log(max_distance / e))
 *                                 * (nb - e))), nb - 1)
 * in float32 as torch evaluates it: f32 division and multiplication, the log
 * as (float)log((double)x), the denominator log in double rounded to float.
 * The log is taken only where its branch is selected (the reference takes
 * log(0) on masked lanes: UB once cast to int in C). B = 32, max_distance =
 * 128, bidirectional: the real log term is an exact integer at |rel| = 16,
 * 32, 64; bucket 16 (rel = 0 on the "after" side) is never used, as in HF.
 *
 *   bidirectional, B = 32, max_distance = 128, key - query:
 *     rel    <=-91 -64 -32 -16 -8 -1  0 | 1  8  16  32  64 >=91
 *     bucket    15  14  12  10  8  1  0 |17 24  26  28  30  31
 *
 *   bidirectional   1 or 0 (0: the decoder's causal form)
 *   num_buckets     bidirectional: even and >= 4 (an odd count silently
 *                   wastes a bucket in HF's formula); otherwise >= 2;
 *                   at most POSENC_POSITION_MAX; 0 selects 32
 *   max_distance    > e (the log's denominator must be positive), at most
 *                   POSENC_POSITION_MAX; 0 selects 128
 *   query_offset    >= 0; query_offset + query_len - 1 <= POSENC_POSITION_MAX
 *   key_len         key_len - 1 <= POSENC_POSITION_MAX
 *
 * Every bucket is in [0, num_buckets). Empty matrices are valid.
 */
POSENC_API int posenc_t5_buckets(int32_t *out, size_t out_len, size_t query_len, size_t key_len,
                                 int bidirectional, size_t num_buckets, size_t max_distance,
                                 int32_t query_offset);

/*
 * posenc_t5_bias: the learned table gathered per bucket, as compute_bias
 * does: out[h][r][j] = weights[bucket(r, j)][h], [heads][query_len][key_len].
 * weights is row-major [num_buckets][heads], the layout of HF's
 * nn.Embedding(num_buckets, n_heads).weight:
 *
 *   weights  [b0h0 b0h1 .. b0h(H-1) | b1h0 .. ]   out  [h0: q x k | h1: q x k | ..]
 *
 *   weights  weights_len >= num_buckets * heads floats; must not overlap out
 *            (gathered while out is written): POSENC_ERR_INVALID_ARGUMENT
 *   heads    1 .. POSENC_POSITION_MAX
 *   others   as posenc_t5_buckets
 */
POSENC_API int posenc_t5_bias(float *out, size_t out_len, const float *weights,
                              size_t weights_len, size_t heads, size_t query_len, size_t key_len,
                              int bidirectional, size_t num_buckets, size_t max_distance,
                              int32_t query_offset);

/*
 * posenc_deberta_buckets: DeBERTa-v2/v3's log buckets (He et al. 2021;
 * Hugging Face models/deberta_v2/modeling_deberta_v2.py
 * make_log_bucket_position applied by build_relative_position), bit for bit:
 * out[q][k] = bucket(q - k), int32, [query_len][key_len]. NOTE the sign:
 * query - key, the opposite of T5's key - query. With mid = bucket_size / 2:
 *   a = mid - 1 if -mid < rel < mid, else |rel|
 *   a <= mid:  rel
 *   a >  mid:  sign(rel) * (ceil(f32(log(f32(a) / mid) / log(f32((max_position - 1) / mid))
 *                                * (mid - 1))) + mid)
 * in float32 as torch evaluates it, the logs as (float)log((double)x).
 * Not clamped: HF clamps to the attention span later, when it indexes the
 * relative embeddings. HF's bucket_size <= 0 (no bucketing, plain q - k)
 * is not this routine.
 *
 *   bucket_size 256, max_position 512, query - key:
 *     rel     -2000 -512 -511 -300 -129 -128 .. 0 .. 128 129 300 511 512 2000
 *     bucket   -381 -256 -255 -207 -129 -128 .. 0 .. 128 129 207 255 256  381
 *
 *   bucket_size    >= 2 (mid >= 1), at most POSENC_POSITION_MAX; 0 selects 256
 *   max_position   such that the log's denominator is positive: at least
 *                  mid + 2 (mid + 2 + floor(mid / 2^24) from mid = 2^24 on,
 *                  where the float32 quotient rounds to 1), at most
 *                  POSENC_POSITION_MAX; 0 selects 512
 *   lengths        at most 2^31 each; every bucket of the matrix must fit int32
 *                  (only extreme parameters break this)
 */
POSENC_API int posenc_deberta_buckets(int32_t *out, size_t out_len, size_t query_len,
                                      size_t key_len, size_t bucket_size, size_t max_position);

/*
 * posenc_deberta_bucket: the bucket of one relative position rel = query - key,
 * by the formula of posenc_deberta_buckets, as the float32 that Hugging Face's
 * make_log_bucket_position returns (an integer value), before the cast to
 * int32: *out may lie outside int32 for extreme parameters. Exact, bit for bit
 * with torch. |bucket| grows with |rel|, so the buckets of rel = query_len - 1
 * and rel = 1 - key_len tell whether posenc_deberta_buckets can fill a matrix
 * (it needs every bucket within int32); posenc's JS API checks that way.
 *
 *   bucket_size 256, max_position 512:  rel -2000 -> -381.0f,  300 -> 207.0f
 *
 *   out            one float
 *   rel            any int32
 *   bucket_size, max_position   as posenc_deberta_buckets (0 selects 256, 512)
 */
POSENC_API int posenc_deberta_bucket(float *out, int32_t rel, size_t bucket_size,
                                     size_t max_position);

/*
 * posenc_transformer_xl_embedding: Transformer-XL's relative sinusoid (Dai et
 * al. 2019, "Transformer-XL"; kimiyoung/transformer-xl pytorch/mem_transformer.py
 * PositionalEmbedding, pos_seq from MemTransformerLM._forward): row r holds
 * position p_r = key_len - 1 - r (descending), clamped to clamp_length when
 * clamp_length > 0, as [sin | cos]:
 *   out[r][k] = sin(p_r f_k),  out[r][d/2 + k] = cos(p_r f_k),  f_k = 10000^(-2k/d)
 *
 *   key_len 4, clamp_length 2, d 4:   row 0  p = 2  [s0 s1 | c0 c1]
 *                                     row 1  p = 2  [ ... ]
 *                                     row 2  p = 1
 *                                     row 3  p = 0  [0 0 | 1 1]
 *
 *   out            caller buffer of out_len >= key_len * d_model floats
 *   d_model        even, 2 .. POSENC_POSITION_MAX: the reference's inv_freq
 *                  has ceil(d/2) entries, so [sin | cos] is 2 * ceil(d/2)
 *                  wide, one column more than an odd d_model
 *   clamp_length   >= 0; 0: no clamping (Transformer-XL's clamp_len <= 0)
 *   key_len        key_len - 1 <= POSENC_POSITION_MAX
 */
POSENC_API int posenc_transformer_xl_embedding(float *out, size_t out_len, size_t key_len,
                                               size_t d_model, int32_t clamp_length);

#ifdef __cplusplus
}
#endif

#endif /* POSENC_H */
