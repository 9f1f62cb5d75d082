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
#include "params.h"
#include "rope_plan.h"
#include "rope_rotate.h"
#include "trig.h"

_Static_assert(TRIG_BLOCK <= ROPE_ROTATE_MAX_PAIRS, "rope_rotate takes blocks of TRIG_BLOCK pairs");

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
    const rope_plan *plan;
    double attention;
    int precision;
    float gc[TRIG_BLOCK], gs[TRIG_BLOCK]; /* a gathered part's row, before it is scattered */
} axes_block;

static void block_start(axes_block *b, size_t n_axes, const size_t *sections, int arrangement, size_t k0, size_t n)
{
    double w[TRIG_BLOCK];
    b->count = 0;
    b->k0 = k0;
    rope_plan_block(b->plan, k0, n, w);
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
        part->w[part->n++] = w[i];
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
            rope_row_float32(pc, ps, part->n, p, part->w, b->attention);
        }
        if (!part->contiguous)
            for (size_t j = 0; j < part->n; j++)
                c[part->at[j]] = b->gc[j], s[part->at[j]] = b->gs[j];
        part->last = p;
        part->started = 1;
    }
}

/* The largest position + 1 of positions[0 .. n): HF's seq_len (0 for none). */
static size_t largest_plus_one(const int32_t *positions, size_t n)
{
    int64_t last = -1;
    for (size_t i = 0; i < n; i++)
        last = positions[i] > last ? positions[i] : last;
    return (size_t)(last + 1);
}

/* The outputs must share no memory with positions or the plan's inputs. */
static int check_reads(const void *out, size_t out_bytes, int out_index, const char *out_name,
                       const int32_t *positions, size_t positions_len, const rope_plan *plan, const posenc_rope *rope)
{
    const void *ptrs[3];
    size_t bytes[3];
    const char *names[3];
    if (posenc_overlaps(out, out_bytes, positions, posenc_bytes(positions_len, sizeof *positions)))
        return fail_overlap(out_index, out_name, "positions");
    for (size_t i = 0, count = rope_plan_inputs(plan, rope, ptrs, bytes, names); i < count; i++)
        if (posenc_overlaps(out, out_bytes, ptrs[i], bytes[i]))
            return fail_overlap(out_index, out_name, names[i]);
    return POSENC_OK;
}

int posenc_rope_axes_cache(float *cos_out, float *sin_out, size_t out_len, size_t length, const int32_t *positions,
                           const posenc_rope_axes *axes, const posenc_rope *rope)
{
    rope_plan plan;
    size_t need, positions_len;
    int status;
    if (!cos_out)
        return fail_null(1, "cos_out");
    if (!sin_out)
        return fail_null(2, "sin_out");
    if (!positions && length)
        return fail_null(5, "positions");
    if (!axes)
        return fail_null(6, "axes");
    if (!rope)
        return fail_null(7, "rope");
    if ((status = param_check(POSENC_PARAM_LENGTH, 4, (double)length)) ||
        (status = param_check(POSENC_PARAM_N_AXES, 6, (double)axes->n_axes)))
        return status;
    if (checked_mul(length, axes->n_axes, &positions_len))
        return fail_size(4, "length * n_axes", length, axes->n_axes);
    if ((status = rope_plan_make(&plan, rope, 7, 0, 0, axes, 6)))
        return status;
    size_t half = plan.half;
    if (checked_mul(length, half, &need))
        return fail_size(4, "length * rotary_dim / 2", length, half);
    if (out_len < need)
        return fail_length(3, "out_len", out_len, need);
    if (need == 0)
        return POSENC_OK;
    /* the outputs are written while positions and the plan's inputs are still read */
    size_t out_bytes = posenc_bytes(need, sizeof(float));
    if (posenc_overlaps(cos_out, out_bytes, sin_out, out_bytes))
        return fail_overlap(1, "cos_out", "sin_out");
    if ((status = check_reads(cos_out, out_bytes, 1, "cos_out", positions, positions_len, &plan, rope)) ||
        (status = check_reads(sin_out, out_bytes, 2, "sin_out", positions, positions_len, &plan, rope)) ||
        (status = rope_plan_at(&plan, rope, 7, 0, largest_plus_one(positions, positions_len), axes, 6)))
        return status;

    axes_block b = { .plan = &plan, .attention = plan.attention, .precision = plan.precision };
    for (size_t k0 = 0; k0 < half; k0 += TRIG_BLOCK) {
        size_t n = half - k0 < TRIG_BLOCK ? half - k0 : TRIG_BLOCK;
        block_start(&b, axes->n_axes, axes->sections, axes->arrangement, k0, n);
        for (size_t r = 0; r < length; r++)
            block_row(&b, positions, length, r, cos_out + r * half + k0, sin_out + r * half + k0);
    }
    return POSENC_OK;
}

int posenc_rope_axes_apply(float *x, size_t x_len, size_t batch, size_t seq, size_t heads, size_t head_dim,
                           int order, const int32_t *positions, size_t positions_len, const posenc_rope_axes *axes,
                           const posenc_rope *rope)
{
    rope_plan plan;
    size_t need, batch_rows, shared_len, own_len;
    int status;
    if (!positions && positions_len)
        return fail_null(8, "positions");
    if (!axes)
        return fail_null(10, "axes");
    if (!rope)
        return fail_null(11, "rope");
    if ((status = rope_check_x(x, x_len, batch, seq, heads, head_dim, order, &need)) ||
        (status = param_check(POSENC_PARAM_N_AXES, 10, (double)axes->n_axes)))
        return status;
    if (checked_mul(batch, seq, &batch_rows) || checked_mul(axes->n_axes, seq, &shared_len) ||
        checked_mul(axes->n_axes, batch_rows, &own_len))
        return fail_size(3, "n_axes * batch * seq", batch, seq);
    /* [n_axes][seq] (every batch alike) or [n_axes][batch][seq] (HF's position_ids [3][batch][seq]) */
    if (positions_len != shared_len && positions_len != own_len)
        return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_NONE, 9, "positions_len",
                                 POSENC_RULE_RESULT, (double)positions_len, (double)shared_len, (double)own_len, NULL,
                                 "must be n_axes * seq ([n_axes][seq]) or n_axes * batch * seq ([n_axes][batch][seq])");
    if ((status = rope_plan_make(&plan, rope, 11, head_dim, 0, axes, 10)))
        return status;
    if (need == 0) /* nothing to rotate: no loop over the (maybe huge) batch */
        return POSENC_OK;
    /* x is rotated row by row while positions and the plan's inputs are still read */
    if ((status = check_reads(x, posenc_bytes(need, sizeof *x), 1, "x", positions, positions_len, &plan, rope)) ||
        (status = rope_plan_at(&plan, rope, 11, head_dim, largest_plus_one(positions, positions_len), axes, 10)))
        return status;

    size_t half = plan.half, row_len = heads * head_dim;
    int layout = plan.layout;
    int per_batch = positions_len == own_len && batch > 1;
    size_t groups = per_batch ? batch : 1, copies = per_batch ? 1 : batch, stride = positions_len / axes->n_axes;
    /* a row's coefficients, 2n floats once rope_rotate_spread lays them out for the layout */
    float row_cos[2 * TRIG_BLOCK], row_sin[2 * TRIG_BLOCK];
    /* the vectors of one row: every head, head_dim floats apart (BSHD) or seq rows apart (BHSD) */
    size_t row_step = order == POSENC_ROPE_ORDER_BSHD ? row_len : head_dim;
    size_t head_step = order == POSENC_ROPE_ORDER_BSHD ? head_dim : seq * head_dim;
    axes_block b = { .plan = &plan, .attention = plan.attention, .precision = plan.precision };
    for (size_t k0 = 0; k0 < half; k0 += TRIG_BLOCK) {
        size_t n = half - k0 < TRIG_BLOCK ? half - k0 : TRIG_BLOCK;
        block_start(&b, axes->n_axes, axes->sections, axes->arrangement, k0, n);
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
