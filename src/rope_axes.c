/*
 * rope_axes.c: RoPE whose rotary pairs take their positions from several
 * axes: M-RoPE (Qwen2-VL's sections, Qwen3-VL's interleaving) and 2-D RoPE
 * for vision encoders (formulas, sources and layouts in posenc.h).
 *
 * The pairs of each axis within a block (gathered, when interleaved) stream
 * the same exact recurrence as posenc_rope_apply, restarting wherever that
 * axis's positions stop counting up by one; the rotation is
 * posenc_rope_apply's. With every axis at the same positions, the values are
 * posenc_rope_apply's bit for bit.
 */
#include "posenc.h"

#include <string.h>

#include "checked.h"
#include "rope_rotate.h"
#include "trig.h"

_Static_assert(TRIG_BLOCK <= ROPE_ROTATE_MAX_PAIRS, "rope_rotate takes blocks of TRIG_BLOCK pairs");

/* inv_freq, the attention factor and the precision, checked as posenc_rope_cache checks them. */
static int check_rotation(size_t rotary_dim, const double *inv_freq, double attention_factor, int precision)
{
    float none[2];
    return posenc_rope_cache(&none[0], &none[1], 0, 0, 0, NULL, rotary_dim, inv_freq, attention_factor, precision);
}

/*
 * 1 <= n_axes <= POSENC_ROPE_MAX_AXES, the sections add up to rotary_dim / 2,
 * and, interleaved, axis a >= 1 has all its sections[a] pairs k = a + n_axes j
 * below rotary_dim / 2: section a counts the pairs of axis a either way.
 */
static int check_sections(size_t n_axes, const size_t *sections, int arrangement, size_t half)
{
    size_t sum = 0;
    if (n_axes == 0 || n_axes > POSENC_ROPE_MAX_AXES ||
        (arrangement != POSENC_AXES_SECTIONED && arrangement != POSENC_AXES_INTERLEAVED))
        return POSENC_ERR_INVALID_ARGUMENT;
    for (size_t a = 0; a < n_axes; a++) {
        if (__builtin_add_overflow(sum, sections[a], &sum))
            return POSENC_ERR_INVALID_ARGUMENT;
        /* the last pair of axis a, a + n_axes (sections[a] - 1), must exist */
        if (arrangement == POSENC_AXES_INTERLEAVED && a > 0 && sections[a] > 0 &&
            (a >= half || sections[a] - 1 > (half - 1 - a) / n_axes))
            return POSENC_ERR_INVALID_ARGUMENT;
    }
    return sum == half ? POSENC_OK : POSENC_ERR_INVALID_ARGUMENT;
}

/*
 * The axis of pair k. Sectioned: the section k falls in. Interleaved (HF
 * Qwen3VLTextRotaryEmbedding.apply_interleaved_mrope): pair k takes axis
 * a = k mod n_axes when a >= 1 and k < n_axes * sections[a], else axis 0.
 */
static size_t axis_of(size_t k, size_t n_axes, const size_t *sections, int arrangement)
{
    if (arrangement == POSENC_AXES_INTERLEAVED) {
        size_t a = k % n_axes;
        return a != 0 && k / n_axes < sections[a] ? a : 0;
    }
    size_t a = 0;
    for (size_t lo = sections[0]; k >= lo && a + 1 < n_axes; lo += sections[++a])
        ;
    return a;
}

/*
 * One axis's share of a block of pairs: n pairs at offsets at[0..n) of the
 * block, their frequencies gathered in w (contiguous: at[i] = at[0] + i, the
 * sectioned case, written in place).
 */
typedef struct axis_part {
    size_t axis, n, contiguous;
    unsigned char at[TRIG_BLOCK];
    double w[TRIG_BLOCK];
    trig_stream stream;
    int32_t last;   /* the position of the row before                 */
    int started;    /* 0: the next row starts a run                    */
} axis_part;

_Static_assert(TRIG_BLOCK <= 256, "block offsets are bytes");

/* A block of at most TRIG_BLOCK pairs, split by axis. */
typedef struct axes_block {
    axis_part part[POSENC_ROPE_MAX_AXES];
    size_t count, k0;
    const double *inv_freq;
    double attention;
    int precision;
    float gc[TRIG_BLOCK], gs[TRIG_BLOCK]; /* a gathered part's row, before it is scattered */
} axes_block;

static void block_start(axes_block *b, size_t n_axes, const size_t *sections, int arrangement, size_t k0, size_t n)
{
    b->count = 0;
    b->k0 = k0;
    axis_part *of[POSENC_ROPE_MAX_AXES] = { NULL };
    for (size_t i = 0; i < n; i++) {
        size_t a = axis_of(k0 + i, n_axes, sections, arrangement);
        if (!of[a]) {
            of[a] = &b->part[b->count++];
            of[a]->axis = a;
            of[a]->n = 0;
            of[a]->started = 0;
        }
        axis_part *part = of[a];
        part->at[part->n] = (unsigned char)i;
        part->w[part->n++] = b->inv_freq[k0 + i];
    }
    memset(b->gc, 0, sizeof b->gc); /* written before read; zeroed so that no path reads garbage */
    memset(b->gs, 0, sizeof b->gs);
    for (size_t j = 0; j < b->count; j++) {
        axis_part *part = &b->part[j];
        part->contiguous = (size_t)part->at[part->n - 1] - part->at[0] + 1 == part->n;
        if (b->precision == POSENC_ROPE_PRECISION_FLOAT64)
            trig_stream_start(&part->stream, part->w, part->n, 0.0);
    }
}

/* Every axis restarts its run (a new batch of positions). */
static void block_restart(axes_block *b)
{
    for (size_t i = 0; i < b->count; i++)
        b->part[i].started = 0;
}

/*
 * cos and sin of the block's pairs for one row, into c[0..n) and s[0..n):
 * each axis's pairs at that axis's position, positions[axis * stride + index].
 * Each pair's value depends only on its frequency and the axis's positions,
 * so gathering the pairs of an axis changes no bit.
 */
static void block_row(axes_block *b, const int32_t *positions, size_t stride, size_t index, float *c, float *s)
{
    for (size_t i = 0; i < b->count; i++) {
        axis_part *part = &b->part[i];
        int32_t p = positions[part->axis * stride + index];
        float *pc = part->contiguous ? c + part->at[0] : b->gc, *ps = part->contiguous ? s + part->at[0] : b->gs;
        if (b->precision == POSENC_ROPE_PRECISION_FLOAT64) {
            if (!part->started || !(part->last < INT32_MAX && p == part->last + 1))
                trig_stream_seek(&part->stream, (double)p);
            trig_stream_row(&part->stream, pc, ps, b->attention);
        } else {
            /* the float32 recipe, value by value, as posenc_rope_cache computes it */
            posenc_rope_cache(pc, ps, part->n, 1, p, NULL, 2 * part->n, part->w, b->attention, b->precision);
        }
        if (!part->contiguous)
            for (size_t j = 0; j < part->n; j++)
                c[part->at[j]] = b->gc[j], s[part->at[j]] = b->gs[j];
        part->last = p;
        part->started = 1;
    }
}

int posenc_rope_axes_cache(float *cos_out, float *sin_out, size_t out_len, size_t length,
                           const int32_t *positions, size_t n_axes, const size_t *sections, int arrangement,
                           size_t rotary_dim, const double *inv_freq, double attention_factor,
                           int precision)
{
    size_t half = rotary_dim / 2, need, positions_len;
    int status;
    if (!cos_out || !sin_out || !inv_freq || !sections || (!positions && length))
        return POSENC_ERR_NULL_POINTER;
    if ((status = check_rotation(rotary_dim, inv_freq, attention_factor, precision)) ||
        (status = check_sections(n_axes, sections, arrangement, half)))
        return status;
    if (checked_mul(length, half, &need) || checked_mul(length, n_axes, &positions_len))
        return POSENC_ERR_SIZE_OVERFLOW;
    if (out_len < need)
        return POSENC_ERR_BUFFER_TOO_SMALL;
    if (need == 0)
        return POSENC_OK;
    /* the outputs are written while positions, sections and inv_freq are still read */
    size_t out_bytes = posenc_bytes(need, sizeof(float));
    const void *inputs[3] = { positions, sections, inv_freq };
    size_t input_bytes[3] = { posenc_bytes(positions_len, sizeof *positions), posenc_bytes(n_axes, sizeof *sections),
                              posenc_bytes(half, sizeof *inv_freq) };
    if (posenc_overlaps(cos_out, out_bytes, sin_out, out_bytes))
        return POSENC_ERR_INVALID_ARGUMENT;
    for (size_t i = 0; i < 3; i++)
        if (posenc_overlaps(cos_out, out_bytes, inputs[i], input_bytes[i]) ||
            posenc_overlaps(sin_out, out_bytes, inputs[i], input_bytes[i]))
            return POSENC_ERR_INVALID_ARGUMENT;

    axes_block b = { .inv_freq = inv_freq, .attention = attention_factor, .precision = precision };
    for (size_t k0 = 0; k0 < half; k0 += TRIG_BLOCK) {
        size_t n = half - k0 < TRIG_BLOCK ? half - k0 : TRIG_BLOCK;
        block_start(&b, n_axes, sections, arrangement, k0, n);
        for (size_t r = 0; r < length; r++)
            block_row(&b, positions, length, r, cos_out + r * half + k0, sin_out + r * half + k0);
    }
    return POSENC_OK;
}

int posenc_rope_axes_apply(float *x, size_t x_len, size_t batch, size_t seq, size_t heads,
                           size_t head_dim, int order, size_t rotary_dim, int layout, const double *inv_freq,
                           double attention_factor, const int32_t *positions, size_t positions_len,
                           size_t n_axes, const size_t *sections, int arrangement, int precision)
{
    size_t half = rotary_dim / 2, row_len, need, batch_rows, shared_len, own_len;
    int status;
    if (!x || !inv_freq || !sections || (!positions && positions_len))
        return POSENC_ERR_NULL_POINTER;
    if (batch == 0 || heads == 0 || rotary_dim > head_dim ||
        (layout != POSENC_ROPE_HALF && layout != POSENC_ROPE_INTERLEAVED) ||
        (order != POSENC_ROPE_ORDER_BSHD && order != POSENC_ROPE_ORDER_BHSD))
        return POSENC_ERR_INVALID_ARGUMENT;
    if ((status = check_rotation(rotary_dim, inv_freq, attention_factor, precision)) ||
        (status = check_sections(n_axes, sections, arrangement, half)))
        return status;
    if (checked_mul(heads, head_dim, &row_len) || checked_mul3(batch, seq, row_len, &need) ||
        checked_mul(batch, seq, &batch_rows) || checked_mul(n_axes, seq, &shared_len) ||
        checked_mul(n_axes, batch_rows, &own_len))
        return POSENC_ERR_SIZE_OVERFLOW;
    /* [n_axes][seq] (every batch alike) or [n_axes][batch][seq] (HF's position_ids [3][batch][seq]) */
    if (positions_len != shared_len && positions_len != own_len)
        return POSENC_ERR_INVALID_ARGUMENT;
    if (x_len < need)
        return POSENC_ERR_BUFFER_TOO_SMALL;
    if (need == 0) /* nothing to rotate: no loop over the (maybe huge) batch */
        return POSENC_OK;
    /* x is rotated row by row while positions, sections and inv_freq are still read */
    size_t x_bytes = posenc_bytes(need, sizeof *x);
    if (posenc_overlaps(x, x_bytes, positions, posenc_bytes(positions_len, sizeof *positions)) ||
        posenc_overlaps(x, x_bytes, sections, posenc_bytes(n_axes, sizeof *sections)) ||
        posenc_overlaps(x, x_bytes, inv_freq, posenc_bytes(half, sizeof *inv_freq)))
        return POSENC_ERR_INVALID_ARGUMENT;

    int per_batch = positions_len == own_len && batch > 1;
    size_t groups = per_batch ? batch : 1, copies = per_batch ? 1 : batch, stride = positions_len / n_axes;
    /* a row's coefficients, 2n floats once rope_rotate_spread lays them out for the layout */
    float row_cos[2 * TRIG_BLOCK], row_sin[2 * TRIG_BLOCK];
    /* the vectors of one row: every head, head_dim floats apart (BSHD) or seq rows apart (BHSD) */
    size_t row_step = order == POSENC_ROPE_ORDER_BSHD ? row_len : head_dim;
    size_t head_step = order == POSENC_ROPE_ORDER_BSHD ? head_dim : seq * head_dim;
    axes_block b = { .inv_freq = inv_freq, .attention = attention_factor, .precision = precision };
    for (size_t k0 = 0; k0 < half; k0 += TRIG_BLOCK) {
        size_t n = half - k0 < TRIG_BLOCK ? half - k0 : TRIG_BLOCK;
        block_start(&b, n_axes, sections, arrangement, k0, n);
        for (size_t g = 0; g < groups; g++) {
            block_restart(&b);
            for (size_t r = 0; r < seq; r++) {
                block_row(&b, positions, stride, g * seq + r, row_cos, row_sin);
                rope_rotate_spread(layout, n, row_cos, row_sin);
                for (size_t c = 0; c < copies; c++)
                    rope_rotate(x + (g + c) * seq * row_len + r * row_step, heads, head_step, half, k0, n, layout,
                                row_cos, row_sin, 0);
            }
        }
    }
    return POSENC_OK;
}
