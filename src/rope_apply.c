/* rope_apply.c: RoPE cos/sin caches and the rotation of q/k in place (posenc.h). */
#include "posenc.h"

#include <math.h>

#include "checked.h"
#include "fmath.h"
#include "params.h"
#include "rope_plan.h"
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

/* The largest position + 1 of a call's rows: HF's seq_len for DYNAMIC and
 * LONGROPE (max(position_ids) + 1), 0 for none. */
static size_t implied_seq_len(size_t rows, int32_t offset, const int32_t *positions, size_t positions_len)
{
    int64_t last = -1;
    if (positions)
        for (size_t i = 0; i < positions_len; i++)
            last = positions[i] > last ? positions[i] : last;
    else if (rows > 0)
        last = (int64_t)offset + (int64_t)rows - 1;
    return last < 0 ? 0 : (size_t)(last + 1);
}

/* offset + rows - 1 must be a position (an int32). */
static int check_offset(size_t rows, int32_t offset, int index, const char *why)
{
    if (rows > 0 && (uint64_t)(rows - 1) > (uint64_t)(POSENC_POSITION_MAX - (int64_t)offset))
        return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_OFFSET, index, "offset",
                                 POSENC_RULE_RESULT, offset, POSENC_POSITION_MAX, 0.0, NULL, why);
    return POSENC_OK;
}

/* The plan's inputs must not share memory with an output of out_bytes at out. */
static int check_inputs(const rope_plan *plan, const posenc_rope *rope, const void *out, size_t out_bytes,
                        int out_index, const char *out_name)
{
    const void *ptrs[3];
    size_t bytes[3];
    const char *names[3];
    for (size_t i = 0, count = rope_plan_inputs(plan, rope, ptrs, bytes, names); i < count; i++)
        if (posenc_overlaps(out, out_bytes, ptrs[i], bytes[i]))
            return fail_overlap(out_index, out_name, names[i]);
    return POSENC_OK;
}

/*
 * A block of the cos/sin table: rows r < n_rows (position positions[r], or
 * first + r), columns k < n_freq (frequency w[k]); row stride `stride`.
 */
typedef struct cs_block {
    float *cos_out, *sin_out;
    size_t stride, n_rows, n_freq;
    int32_t first;
    const int32_t *positions;
    const double *w;
    double attention;
} cs_block;

static double w_at(const void *ctx, size_t i)
{
    return ((const double *)ctx)[i];
}

/* Double angles through the shared exact kernel. */
static void fill_double(const cs_block *b)
{
    trig_target t = { b->sin_out, b->cos_out, b->stride, 1, 0, 1, 0, 1.0f, b->attention };
    trig_rows rows = { b->n_rows, (double)b->first, 1, b->positions };
    trig_fill(&t, w_at, b->w, b->n_freq, b->n_freq, &rows);
}

/* The float32 recipe: float angle, correctly rounded float cos/sin, float scale. */
static void fill_float32(const cs_block *b)
{
    float scale = (float)b->attention;
    for (size_t r = 0; r < b->n_rows; r++) {
        int32_t pos = b->positions ? b->positions[r] : (int32_t)(b->first + (int64_t)r);
        float p = (float)pos;
        for (size_t k = 0; k < b->n_freq; k++) {
            float angle = p * (float)b->w[k];
            double c, s;
            fmath_sincos((double)angle, &s, &c);
            b->cos_out[r * b->stride + k] = (float)c * scale;
            b->sin_out[r * b->stride + k] = (float)s * scale;
        }
    }
}

void rope_row_float32(float *c, float *s, size_t n, int32_t position, const double *w, double attention)
{
    cs_block one = { c, s, n, 1, n, position, NULL, w, attention };
    fill_float32(&one);
}

static void fill_block(const cs_block *b, int precision)
{
    if (precision == POSENC_ROPE_PRECISION_FLOAT32)
        fill_float32(b);
    else
        fill_double(b);
}

int posenc_rope_cache(float *cos_out, float *sin_out, size_t out_len, size_t length, int32_t offset,
                      const int32_t *positions, const posenc_rope *rope)
{
    rope_plan plan;
    size_t need;
    int status;
    if (!cos_out)
        return fail_null(1, "cos_out");
    if (!sin_out)
        return fail_null(2, "sin_out");
    if (!rope)
        return fail_null(7, "rope");
    if ((status = param_check(POSENC_PARAM_LENGTH, 4, (double)length)) ||
        (!positions && (status = check_offset(length, offset, 5, "must keep offset + length - 1 at most % (positions are int32)"))) ||
        (status = rope_plan_make(&plan, rope, 7, 0, 0, NULL, 0)))
        return status;
    size_t half = plan.half;
    if (checked_mul(length, half, &need))
        return fail_size(4, "length * rotary_dim / 2", length, half);
    if (out_len < need)
        return fail_length(3, "out_len", out_len, need);
    /* the outputs are written while positions and the plan's inputs are still read */
    size_t out_bytes = posenc_bytes(need, sizeof(float));
    size_t pos_bytes = positions ? posenc_bytes(length, sizeof *positions) : 0;
    if (posenc_overlaps(cos_out, out_bytes, sin_out, out_bytes))
        return fail_overlap(1, "cos_out", "sin_out");
    if (posenc_overlaps(cos_out, out_bytes, positions, pos_bytes))
        return fail_overlap(1, "cos_out", "positions");
    if (posenc_overlaps(sin_out, out_bytes, positions, pos_bytes))
        return fail_overlap(2, "sin_out", "positions");
    if ((status = check_inputs(&plan, rope, cos_out, out_bytes, 1, "cos_out")) ||
        (status = check_inputs(&plan, rope, sin_out, out_bytes, 2, "sin_out")) ||
        (status = rope_plan_at(&plan, rope, 7, 0, implied_seq_len(length, offset, positions, length), NULL, 0)))
        return status;
    double w[TRIG_BLOCK];
    for (size_t k0 = 0; k0 < half; k0 += TRIG_BLOCK) {
        size_t n = half - k0 < TRIG_BLOCK ? half - k0 : TRIG_BLOCK;
        rope_plan_block(&plan, k0, n, w);
        cs_block b = { cos_out + k0, sin_out + k0, half, length, n, offset, positions, w, plan.attention };
        fill_block(&b, plan.precision);
    }
    return POSENC_OK;
}

/* Checks what posenc_rope_apply and posenc_rope_axes_apply share: x's shape. */
int rope_check_x(const float *x, size_t x_len, size_t batch, size_t seq, size_t heads, size_t head_dim, int order,
                 size_t *need)
{
    size_t row_len;
    int status;
    if (!x)
        return fail_null(1, "x");
    if ((status = param_check(POSENC_PARAM_BATCH, 3, (double)batch)) ||
        (status = param_check(POSENC_PARAM_SEQ, 4, (double)seq)) ||
        (status = param_check(POSENC_PARAM_HEADS, 5, (double)heads)) ||
        (status = param_check(POSENC_PARAM_HEAD_DIM, 6, (double)head_dim)) ||
        (status = param_check(POSENC_PARAM_ROPE_ORDER, 7, order)))
        return status;
    if (checked_mul(heads, head_dim, &row_len) || checked_mul3(batch, seq, row_len, need))
        return fail_size(2, "batch * seq * heads * head_dim", batch, seq * heads);
    if (x_len < *need)
        return fail_length(2, "x_len", x_len, *need);
    return POSENC_OK;
}

int posenc_rope_apply(float *x, size_t x_len, size_t batch, size_t seq, size_t heads, size_t head_dim, int order,
                      int32_t offset, const int32_t *positions, size_t positions_len, const posenc_rope *rope)
{
    rope_plan plan;
    size_t need, batch_rows;
    int status;
    if (!positions && positions_len)
        return fail_null(9, "positions");
    if (!rope)
        return fail_null(11, "rope");
    if ((status = rope_check_x(x, x_len, batch, seq, heads, head_dim, order, &need)))
        return status;
    if (checked_mul(batch, seq, &batch_rows))
        return fail_size(3, "batch * seq", batch, seq);
    if (positions && positions_len != seq && positions_len != batch_rows)
        return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_NONE, 10, "positions_len",
                                 POSENC_RULE_RESULT, (double)positions_len, (double)seq, (double)batch_rows, NULL,
                                 "must be seq (one per row) or batch * seq (one per batch and row)");
    if ((!positions && (status = check_offset(seq, offset, 8, "must keep offset + seq - 1 at most % (positions are int32)"))) ||
        (status = rope_plan_make(&plan, rope, 11, head_dim, 0, NULL, 0)))
        return status;
    if (need == 0) /* nothing to rotate: no loop over the (maybe huge) batch */
        return POSENC_OK;
    /* x is rotated row by row while positions and the plan's inputs are still read */
    size_t x_bytes = posenc_bytes(need, sizeof *x);
    if (posenc_overlaps(x, x_bytes, positions, posenc_bytes(positions_len, sizeof *positions)))
        return fail_overlap(1, "x", "positions");
    if ((status = check_inputs(&plan, rope, x, x_bytes, 1, "x")) ||
        (status = rope_plan_at(&plan, rope, 11, head_dim, implied_seq_len(seq, offset, positions, positions_len), NULL,
                               0)))
        return status;

    rope_apply_run(x, batch, seq, heads, head_dim, order, offset, positions, positions_len, &plan);
    return POSENC_OK;
}

void rope_apply_run(float *x, size_t batch, size_t seq, size_t heads, size_t head_dim, int order, int32_t offset,
                    const int32_t *positions, size_t positions_len, const rope_plan *p)
{
    if (batch == 0 || seq == 0) /* no row: nothing to rotate, no position to read */
        return;
    const rope_plan plan = *p;
    size_t batch_rows = batch * seq;
    size_t half = plan.half, row_len = heads * head_dim;
    int layout = plan.layout;
    /* positions per (batch, row): each batch its own rows; otherwise shared */
    int per_batch = positions && positions_len == batch_rows && batch > 1;
    size_t groups = per_batch ? batch : 1, copies = per_batch ? 1 : batch;
    /* double-precision rows step the recurrence (restarting where explicit
     * positions break a run, as ropeCache does); float32 rows are evaluated one by one */
    int streamed = plan.precision == POSENC_ROPE_PRECISION_FLOAT64;
    /* the coefficients of a tile of rows, width floats a row once laid out for
     * the layout (rope_rotate_spread); [seq][heads][head_dim] rotates a row
     * right after computing it, so its tile is one row */
    float tile_cos[ROPE_TILE_FLOATS], tile_sin[ROPE_TILE_FLOATS];
    double w[TRIG_BLOCK];
    trig_stream stream;
    for (size_t k0 = 0; k0 < half; k0 += TRIG_BLOCK) {
        size_t n = half - k0 < TRIG_BLOCK ? half - k0 : TRIG_BLOCK;
        size_t width = layout == POSENC_ROPE_INTERLEAVED ? 2 * n : n; /* after rope_rotate_spread */
        size_t tile_rows = order == POSENC_ROPE_ORDER_BSHD ? 1 : ROPE_TILE_FLOATS / width;
        rope_plan_block(&plan, k0, n, w);
        for (size_t g = 0; g < groups; g++) {
            const int32_t *pos = positions ? positions + g * seq : NULL;
            if (streamed)
                trig_stream_start(&stream, w, n, pos ? (double)pos[0] : (double)offset);
            for (size_t r0 = 0; r0 < seq; r0 += tile_rows) {
                size_t rows = seq - r0 < tile_rows ? seq - r0 : tile_rows;
                for (size_t t = 0; t < rows; t++) {
                    size_t r = r0 + t;
                    float *row_cos = tile_cos + t * width, *row_sin = tile_sin + t * width;
                    if (streamed) {
                        if (pos && r > 0 && !(pos[r - 1] < INT32_MAX && pos[r] == pos[r - 1] + 1))
                            trig_stream_seek(&stream, (double)pos[r]);
                        trig_stream_row(&stream, row_cos, row_sin, plan.attention);
                    } else {
                        cs_block one = { row_cos, row_sin, n, 1, n,
                                         pos ? 0 : (int32_t)(offset + (int64_t)r), pos ? pos + r : NULL,
                                         w, plan.attention };
                        fill_block(&one, plan.precision);
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
}
