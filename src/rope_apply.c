/* rope_apply.c: RoPE cos/sin caches and the rotation of q/k in place (posenc.h). */
#include "posenc.h"

#include <math.h>

#include "checked.h"
#include "fmath.h"
#include "rope_rotate.h"
#include "trig.h"

_Static_assert(TRIG_BLOCK <= ROPE_ROTATE_MAX_PAIRS, "rope_rotate_row takes blocks of TRIG_BLOCK pairs");

static double inv_freq_at(const void *ctx, size_t i)
{
    return ((const double *)ctx)[i];
}

static int check_freqs(const double *inv_freq, size_t half, double attention_factor, int precision)
{
    /* beyond the maxima the angles or the float caches overflow (posenc.h); NaN fails too */
    if (!(attention_factor > 0.0 && attention_factor <= POSENC_ROPE_ATTENTION_MAX) ||
        (precision != POSENC_ROPE_PRECISION_DOUBLE && precision != POSENC_ROPE_PRECISION_FLOAT32))
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
    if (floats_overlap(cos_out, sin_out, need))
        return POSENC_ERR_INVALID_ARGUMENT; /* overlapping outputs */
    cs_block b = { cos_out, sin_out, half, length, half, offset, positions, inv_freq, attention_factor };
    fill_block(&b, precision);
    return POSENC_OK;
}

int posenc_rope_apply(float *x, size_t x_len, size_t batch, size_t seq, size_t heads, size_t head_dim,
                      size_t rotary_dim, int layout, const double *inv_freq, double attention_factor,
                      int32_t offset, const int32_t *positions, size_t positions_len, int precision)
{
    size_t half = rotary_dim / 2, row_len, need, batch_rows;
    int status;
    if (!x || !inv_freq || (!positions && positions_len))
        return POSENC_ERR_NULL_POINTER;
    if (batch == 0 || heads == 0 || rotary_dim < 2 || rotary_dim % 2 || rotary_dim > head_dim ||
        (layout != POSENC_ROPE_HALF && layout != POSENC_ROPE_INTERLEAVED))
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

    /* positions per (batch, row): each batch its own rows; otherwise shared */
    int per_batch = positions && positions_len == batch_rows && batch > 1;
    size_t groups = per_batch ? batch : 1, copies = per_batch ? 1 : batch;
    /* double-precision rows step the recurrence (restarting where explicit
     * positions break a run, as ropeCache does); float32 rows are evaluated one by one */
    int streamed = precision == POSENC_ROPE_PRECISION_DOUBLE;
    float row_cos[TRIG_BLOCK], row_sin[TRIG_BLOCK];
    trig_stream stream;
    for (size_t k0 = 0; k0 < half; k0 += TRIG_BLOCK) {
        size_t n = half - k0 < TRIG_BLOCK ? half - k0 : TRIG_BLOCK;
        for (size_t g = 0; g < groups; g++) {
            const int32_t *pos = positions ? positions + g * seq : NULL;
            if (streamed)
                trig_stream_start(&stream, inv_freq + k0, n, pos ? (double)pos[0] : (double)offset);
            for (size_t r = 0; r < seq; r++) {
                if (streamed) {
                    if (pos && r > 0 && !(pos[r - 1] < INT32_MAX && pos[r] == pos[r - 1] + 1))
                        trig_stream_seek(&stream, (double)pos[r]);
                    trig_stream_row(&stream, row_cos, row_sin, attention_factor);
                } else {
                    cs_block one = { row_cos, row_sin, n, 1, n, pos ? 0 : (int32_t)(offset + (int64_t)r),
                                     pos ? pos + r : NULL, inv_freq + k0, attention_factor };
                    fill_block(&one, precision);
                }
                for (size_t c = 0; c < copies; c++)
                    rope_rotate_row(x + ((g + c) * seq + r) * row_len, heads, head_dim, half, k0, n, layout,
                                    row_cos, row_sin);
            }
        }
    }
    return POSENC_OK;
}
