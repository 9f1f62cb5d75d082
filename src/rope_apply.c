/* rope_apply.c: RoPE cos/sin caches and the rotation of q/k in place (posenc.h). */
#include "posenc.h"

#include <math.h>

#include "checked.h"
#include "fmath.h"
#include "rope_rotate.h"
#include "trig.h"

_Static_assert(TRIG_BLOCK <= ROPE_ROTATE_MAX_PAIRS, "rope_rotate takes blocks of TRIG_BLOCK pairs");

enum {
    /* the cos (and the sin) floats of the rows computed before rotating
     * (16 KB each, on the stack): for [heads][seq][head_dim], each head's rows
     * of a tile are then rotated as one contiguous run of at least
     * ROPE_TILE_FLOATS / 2 * head_dim / rotary_dim floats, not one vector per
     * far jump; cos and sin are still computed once per position */
    ROPE_TILE_FLOATS = 4096
};

static double inv_freq_at(const void *ctx, size_t i)
{
    return ((const double *)ctx)[i];
}

static int check_freqs(const double *inv_freq, size_t half, double attention_factor, int precision)
{
    /* beyond the maxima the angles or the float caches overflow (posenc.h); NaN fails too */
    if (!(attention_factor > 0.0 && attention_factor <= POSENC_ROPE_ATTENTION_MAX) ||
        (precision != POSENC_ROPE_PRECISION_FLOAT64 && precision != POSENC_ROPE_PRECISION_FLOAT32))
        return POSENC_ERR_INVALID_ARGUMENT;
    for (size_t k = 0; k < half; k++)
        if (!(fabs(inv_freq[k]) <= POSENC_ROPE_FREQUENCY_MAX))
            return POSENC_ERR_INVALID_ARGUMENT;
    return POSENC_OK;
}

static int check_offset(size_t rows, int32_t offset)
{
    if (rows > 0 && (uint64_t)(rows - 1) > (uint64_t)(POSENC_POSITION_MAX - (int64_t)offset))
        return POSENC_ERR_INVALID_ARGUMENT;
    return POSENC_OK;
}

/*
 * A block of the cos/sin table: rows r < n_rows (position positions[r], or
 * first + r), columns k < n_freq (frequency inv_freq[k]); row stride `stride`.
 */
typedef struct cs_block {
    float *cos_out, *sin_out;
    size_t stride, n_rows, n_freq;
    int32_t first;
    const int32_t *positions;
    const double *inv_freq;
    double attention;
} cs_block;

/* Double angles through the shared exact kernel. */
static void fill_double(const cs_block *b)
{
    trig_target t = { b->sin_out, b->cos_out, b->stride, 1, 0, 1, 0, 1.0f, b->attention };
    trig_rows rows = { b->n_rows, (double)b->first, 1, b->positions };
    trig_fill(&t, inv_freq_at, b->inv_freq, b->n_freq, b->n_freq, &rows);
}

/* The float32 recipe: float angle, correctly rounded float cos/sin, float scale. */
static void fill_float32(const cs_block *b)
{
    float scale = (float)b->attention;
    for (size_t r = 0; r < b->n_rows; r++) {
        int32_t pos = b->positions ? b->positions[r] : (int32_t)(b->first + (int64_t)r);
        float p = (float)pos;
        for (size_t k = 0; k < b->n_freq; k++) {
            float angle = p * (float)b->inv_freq[k];
            double c, s;
            fmath_sincos((double)angle, &s, &c);
            b->cos_out[r * b->stride + k] = (float)c * scale;
            b->sin_out[r * b->stride + k] = (float)s * scale;
        }
    }
}

static void fill_block(const cs_block *b, int precision)
{
    if (precision == POSENC_ROPE_PRECISION_FLOAT32)
        fill_float32(b);
    else
        fill_double(b);
}

int posenc_rope_cache(float *cos_out, float *sin_out, size_t out_len, size_t length, int32_t offset,
                      const int32_t *positions, size_t rotary_dim, const double *inv_freq,
                      double attention_factor, int precision)
{
    size_t half = rotary_dim / 2, need;
    int status;
    if (!cos_out || !sin_out || !inv_freq)
        return POSENC_ERR_NULL_POINTER;
    if (rotary_dim < 2 || rotary_dim % 2)
        return POSENC_ERR_INVALID_ARGUMENT;
    if ((status = check_freqs(inv_freq, half, attention_factor, precision)) ||
        (!positions && (status = check_offset(length, offset))))
        return status;
    if (checked_mul(length, half, &need))
        return POSENC_ERR_SIZE_OVERFLOW;
    if (out_len < need)
        return POSENC_ERR_BUFFER_TOO_SMALL;
    /* the outputs are written while positions and inv_freq are still read */
    size_t out_bytes = posenc_bytes(need, sizeof(float)), freq_bytes = posenc_bytes(half, sizeof *inv_freq);
    size_t pos_bytes = positions ? posenc_bytes(length, sizeof *positions) : 0;
    if (posenc_overlaps(cos_out, out_bytes, sin_out, out_bytes) ||
        posenc_overlaps(cos_out, out_bytes, inv_freq, freq_bytes) ||
        posenc_overlaps(sin_out, out_bytes, inv_freq, freq_bytes) ||
        posenc_overlaps(cos_out, out_bytes, positions, pos_bytes) ||
        posenc_overlaps(sin_out, out_bytes, positions, pos_bytes))
        return POSENC_ERR_INVALID_ARGUMENT;
    cs_block b = { cos_out, sin_out, half, length, half, offset, positions, inv_freq, attention_factor };
    fill_block(&b, precision);
    return POSENC_OK;
}

int posenc_rope_apply(float *x, size_t x_len, size_t batch, size_t seq, size_t heads, size_t head_dim,
                      size_t rotary_dim, int layout, const double *inv_freq, double attention_factor,
                      int32_t offset, const int32_t *positions, size_t positions_len, int precision)
{
    return posenc_rope_apply_ordered(x, x_len, batch, seq, heads, head_dim, POSENC_ROPE_ORDER_BSHD, rotary_dim,
                                     layout, inv_freq, attention_factor, offset, positions, positions_len,
                                     precision);
}

int posenc_rope_apply_ordered(float *x, size_t x_len, size_t batch, size_t seq, size_t heads,
                              size_t head_dim, int order, size_t rotary_dim, int layout,
                              const double *inv_freq, double attention_factor, int32_t offset,
                              const int32_t *positions, size_t positions_len, int precision)
{
    size_t half = rotary_dim / 2, row_len, need, batch_rows;
    int status;
    if (!x || !inv_freq || (!positions && positions_len))
        return POSENC_ERR_NULL_POINTER;
    if (batch == 0 || heads == 0 || rotary_dim < 2 || rotary_dim % 2 || rotary_dim > head_dim ||
        (layout != POSENC_ROPE_HALF && layout != POSENC_ROPE_INTERLEAVED) ||
        (order != POSENC_ROPE_ORDER_BSHD && order != POSENC_ROPE_ORDER_BHSD))
        return POSENC_ERR_INVALID_ARGUMENT;
    if ((status = check_freqs(inv_freq, half, attention_factor, precision)))
        return status;
    if (checked_mul(heads, head_dim, &row_len) || checked_mul3(batch, seq, row_len, &need) ||
        checked_mul(batch, seq, &batch_rows))
        return POSENC_ERR_SIZE_OVERFLOW;
    if (positions && positions_len != seq && positions_len != batch_rows)
        return POSENC_ERR_INVALID_ARGUMENT;
    if (!positions && (status = check_offset(seq, offset)))
        return status;
    if (x_len < need)
        return POSENC_ERR_BUFFER_TOO_SMALL;
    if (need == 0) /* nothing to rotate: no loop over the (maybe huge) batch */
        return POSENC_OK;
    /* x is rotated row by row while positions and inv_freq are still read */
    size_t x_bytes = posenc_bytes(need, sizeof *x);
    if (posenc_overlaps(x, x_bytes, positions, posenc_bytes(positions_len, sizeof *positions)) ||
        posenc_overlaps(x, x_bytes, inv_freq, posenc_bytes(half, sizeof *inv_freq)))
        return POSENC_ERR_INVALID_ARGUMENT;

    /* positions per (batch, row): each batch its own rows; otherwise shared */
    int per_batch = positions && positions_len == batch_rows && batch > 1;
    size_t groups = per_batch ? batch : 1, copies = per_batch ? 1 : batch;
    /* double-precision rows step the recurrence (restarting where explicit
     * positions break a run, as ropeCache does); float32 rows are evaluated one by one */
    int streamed = precision == POSENC_ROPE_PRECISION_FLOAT64;
    /* the coefficients of a tile of rows, width floats a row once laid out for
     * the layout (rope_rotate_spread); [seq][heads][head_dim] rotates a row
     * right after computing it, so its tile is one row */
    float tile_cos[ROPE_TILE_FLOATS], tile_sin[ROPE_TILE_FLOATS];
    trig_stream stream;
    for (size_t k0 = 0; k0 < half; k0 += TRIG_BLOCK) {
        size_t n = half - k0 < TRIG_BLOCK ? half - k0 : TRIG_BLOCK;
        size_t width = layout == POSENC_ROPE_INTERLEAVED ? 2 * n : n; /* after rope_rotate_spread */
        size_t tile_rows = order == POSENC_ROPE_ORDER_BSHD ? 1 : ROPE_TILE_FLOATS / width;
        for (size_t g = 0; g < groups; g++) {
            const int32_t *pos = positions ? positions + g * seq : NULL;
            if (streamed)
                trig_stream_start(&stream, inv_freq + k0, n, pos ? (double)pos[0] : (double)offset);
            for (size_t r0 = 0; r0 < seq; r0 += tile_rows) {
                size_t rows = seq - r0 < tile_rows ? seq - r0 : tile_rows;
                for (size_t t = 0; t < rows; t++) {
                    size_t r = r0 + t;
                    float *row_cos = tile_cos + t * width, *row_sin = tile_sin + t * width;
                    if (streamed) {
                        if (pos && r > 0 && !(pos[r - 1] < INT32_MAX && pos[r] == pos[r - 1] + 1))
                            trig_stream_seek(&stream, (double)pos[r]);
                        trig_stream_row(&stream, row_cos, row_sin, attention_factor);
                    } else {
                        cs_block one = { row_cos, row_sin, n, 1, n,
                                         pos ? 0 : (int32_t)(offset + (int64_t)r), pos ? pos + r : NULL,
                                         inv_freq + k0, attention_factor };
                        fill_block(&one, precision);
                    }
                    rope_rotate_spread(layout, n, row_cos, row_sin);
                }
                for (size_t c = 0; c < copies; c++) {
                    float *xb = x + (g + c) * seq * row_len;
                    if (order == POSENC_ROPE_ORDER_BSHD) /* the row: every head at one position */
                        rope_rotate(xb + r0 * row_len, heads, head_dim, half, k0, n, layout, tile_cos,
                                    tile_sin, 0);
                    else if (rows == 1) /* one row (decoding): every head at one position, seq rows apart */
                        rope_rotate(xb + r0 * head_dim, heads, seq * head_dim, half, k0, n, layout, tile_cos,
                                    tile_sin, 0);
                    else /* each head: the tile's rows, contiguous, one position each */
                        for (size_t h = 0; h < heads; h++)
                            rope_rotate(xb + (h * seq + r0) * head_dim, rows, head_dim, half, k0, n, layout,
                                        tile_cos, tile_sin, width);
                }
            }
        }
    }
    return POSENC_OK;
}
