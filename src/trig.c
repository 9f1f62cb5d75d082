/* trig.c: sin/cos tables by an anchored angle-addition recurrence (see trig.h). */
#include "trig.h"

#include "fmath.h"
#include "simd.h"

enum {
    TRIG_TILE_ROWS = 8, /* rows stepped while a frequency pair stays in registers */
    /* blocks stepped together, tile by tile, so that the rows of a tile are
     * written whole (up to TRIG_GROUP * TRIG_BLOCK frequencies; 20 KB of
     * state and frequencies on the stack) and not in strips of one block's
     * columns down the whole table: the same values, bit for bit, fewer
     * cycles on a large table (bench/breakdown.mjs) */
    TRIG_GROUP = 4
};

/* The recurrence state of one column block: the current sin/cos and the step. */
typedef struct trig_state {
    double s[TRIG_BLOCK], c[TRIG_BLOCK], step_c[TRIG_BLOCK], step_s[TRIG_BLOCK];
    size_t k0, n, n_cos; /* first frequency, frequencies, cosines of the block */
} trig_state;

/* One rotation: sin(a + w) = sin a cos w + cos a sin w; cos(a + w) = cos a cos w - sin a sin w.
 * Every path below uses exactly these operations in this order. */
static inline void rotate(double *s, double *c, double cw, double sw)
{
    double s0 = *s;
    *s = s0 * cw + *c * sw;
    *c = *c * cw - s0 * sw;
}

static inline void store(const trig_target *t, float *dst, double v)
{
    float value = (float)(t->amplitude * v);
    for (size_t b = 0; b < t->n_batch; b++, dst += t->batch_stride)
        *dst = t->accumulate ? *dst * t->x_scale + value : value;
}

/* Any target: every value through store(), one frequency at a time. */
static void tile_generic(const trig_target *t, trig_state *st, size_t r0, size_t nr, size_t k_from)
{
    for (size_t k = k_from; k < st->n; k++) {
        double s = st->s[k], c = st->c[k];
        size_t col = (st->k0 + k) * t->col_stride;
        for (size_t r = r0; r < r0 + nr; r++) {
            store(t, t->sin_out + r * t->row_stride + col, s);
            if (k < st->n_cos)
                store(t, t->cos_out + r * t->row_stride + col, c);
            rotate(&s, &c, st->step_c[k], st->step_s[k]);
        }
        st->s[k] = s, st->c[k] = c;
    }
}

/* Steps frequency pairs through nr rows; EMIT(row, s, c) writes one pair's values.
 * Two pairs go together: their recurrences are independent, which hides the
 * latency of each (a multiply then an add per row). */
#define ROTATE_PAIR(s, c, cw, sw)                                                          \
    do {                                                                                   \
        f64x2 s_next = f64x2_add(f64x2_mul(s, cw), f64x2_mul(c, sw));                      \
        c = f64x2_sub(f64x2_mul(c, cw), f64x2_mul(s, sw));                                 \
        s = s_next;                                                                        \
    } while (0)

#define TILE_PAIRS(EMIT)                                                                   \
    for (; k + 4 <= st->n_cos; k += 4) {                                                   \
        f64x2 s = f64x2_load(st->s + k), c = f64x2_load(st->c + k);                        \
        f64x2 cw = f64x2_load(st->step_c + k), sw = f64x2_load(st->step_s + k);            \
        f64x2 s2 = f64x2_load(st->s + k + 2), c2 = f64x2_load(st->c + k + 2);              \
        f64x2 cw2 = f64x2_load(st->step_c + k + 2), sw2 = f64x2_load(st->step_s + k + 2);  \
        for (size_t r = r0; r < r0 + nr; r++) {                                            \
            EMIT(r, k, s, c);                                                              \
            EMIT(r, k + 2, s2, c2);                                                        \
            ROTATE_PAIR(s, c, cw, sw);                                                     \
            ROTATE_PAIR(s2, c2, cw2, sw2);                                                 \
        }                                                                                  \
        f64x2_store(st->s + k, s), f64x2_store(st->c + k, c);                              \
        f64x2_store(st->s + k + 2, s2), f64x2_store(st->c + k + 2, c2);                    \
    }

/* [s0 c0 s1 c1 ...] rows written once, no scaling: the sinusoidal table. */
static void tile_interleaved(const trig_target *t, trig_state *st, size_t r0, size_t nr)
{
    size_t k = 0;
    float *base = t->sin_out + 2 * st->k0;
#define EMIT_INTERLEAVED(r, k, s, c) store_interleaved_f32(base + (r) * t->row_stride + 2 * (k), s, c)
    TILE_PAIRS(EMIT_INTERLEAVED)
    tile_generic(t, st, r0, nr, k);
}

/* Sines and cosines each contiguous ([s | c] tables, RoPE caches), optionally scaled. */
static void tile_contiguous(const trig_target *t, trig_state *st, size_t r0, size_t nr)
{
    size_t k = 0;
    float *so = t->sin_out + st->k0, *co = t->cos_out + st->k0;
    if (t->amplitude == 1.0) {
#define EMIT_PAIRS(r, k, s, c) \
    (store_pair_f32(so + (r) * t->row_stride + (k), s), store_pair_f32(co + (r) * t->row_stride + (k), c))
        TILE_PAIRS(EMIT_PAIRS)
    } else {
        f64x2 amp = f64x2_splat(t->amplitude);
#define EMIT_SCALED_PAIRS(r, k, s, c)                                              \
    (store_pair_f32(so + (r) * t->row_stride + (k), f64x2_mul(amp, s)),            \
     store_pair_f32(co + (r) * t->row_stride + (k), f64x2_mul(amp, c)))
        TILE_PAIRS(EMIT_SCALED_PAIRS)
    }
    tile_generic(t, st, r0, nr, k);
}

static void anchor(double *s, double *c, const double *w, size_t n, double p)
{
    for (size_t k = 0; k < n; k++)
        fmath_sincos(p * w[k], &s[k], &c[k]);
}

static void steps(double *step_c, double *step_s, const double *w, size_t n, int direction)
{
    for (size_t k = 0; k < n; k++) {
        double sin_w;
        fmath_sincos(w[k], &sin_w, &step_c[k]);
        step_s[k] = direction * sin_w;
    }
}

/* Rows at explicit positions: each run of consecutive positions is filled as a
 * contiguous run (the recurrence), so a KV cache or a padded batch costs what
 * an offset does; a position that breaks the run starts a new anchor. */
static void fill_run(const trig_target *t, trig_state *st, size_t nb, double (*w)[TRIG_BLOCK],
                     const trig_rows *rows);

static void fill_positions(const trig_target *t, trig_state *st, size_t nb, double (*w)[TRIG_BLOCK],
                           const trig_rows *rows)
{
    const int32_t *pos = rows->positions;
    for (size_t r0 = 0, r1; r0 < rows->count; r0 = r1) {
        for (r1 = r0 + 1; r1 < rows->count && pos[r1 - 1] < INT32_MAX && pos[r1] == pos[r1 - 1] + 1; r1++)
            ;
        trig_target run = *t;
        run.sin_out += r0 * t->row_stride;
        run.cos_out += r0 * t->row_stride;
        trig_rows contiguous = { r1 - r0, (double)pos[r0], 1, NULL };
        fill_run(&run, st, nb, w, &contiguous);
    }
}

/* Rows from an anchor at position p to the next one: the next multiple of
 * TRIG_ANCHOR_ROWS in the direction of travel (step +1 or -1). */
static size_t rows_to_next_anchor(double p, int step)
{
    int64_t rem = (int64_t)p % TRIG_ANCHOR_ROWS; /* p is an integer, |p| < 2^32 */
    if (rem < 0)
        rem += TRIG_ANCHOR_ROWS;
    if (step < 0)
        return rem ? (size_t)rem : TRIG_ANCHOR_ROWS;
    return (size_t)(TRIG_ANCHOR_ROWS - rem);
}

/* st[0..nb) and w[0..nb): the blocks of a group, each its own frequencies. */
static void fill_run(const trig_target *t, trig_state *st, size_t nb, double (*w)[TRIG_BLOCK],
                     const trig_rows *rows)
{
    int fast_interleaved = t->n_batch == 1 && !t->accumulate && t->amplitude == 1.0 &&
                           t->col_stride == 2 && t->cos_out == t->sin_out + 1;
    int fast_contiguous = t->n_batch == 1 && !t->accumulate && t->col_stride == 1;
    for (size_t a0 = 0, a_end; a0 < rows->count; a0 = a_end) {
        double p = rows->first + (double)rows->step * (double)a0;
        for (size_t b = 0; b < nb; b++)
            anchor(st[b].s, st[b].c, w[b], st[b].n, p);
        size_t left = rows->count - a0, next = rows_to_next_anchor(p, rows->step);
        a_end = a0 + (next < left ? next : left);
        for (size_t r0 = a0; r0 < a_end; r0 += TRIG_TILE_ROWS) {
            size_t nr = a_end - r0 < TRIG_TILE_ROWS ? a_end - r0 : TRIG_TILE_ROWS;
            for (size_t b = 0; b < nb; b++) {
                if (fast_interleaved)
                    tile_interleaved(t, &st[b], r0, nr);
                else if (fast_contiguous)
                    tile_contiguous(t, &st[b], r0, nr);
                else
                    tile_generic(t, &st[b], r0, nr, 0);
            }
        }
    }
}

void trig_fill(const trig_target *t, trig_freq_fn freq, const void *freq_ctx, size_t n_freq,
               size_t n_cos, const trig_rows *rows)
{
    trig_state st[TRIG_GROUP];
    double w[TRIG_GROUP][TRIG_BLOCK];
    for (size_t g0 = 0; g0 < n_freq; g0 += (size_t)TRIG_GROUP * TRIG_BLOCK) {
        size_t nb = 0;
        for (size_t k0 = g0; k0 < n_freq && nb < TRIG_GROUP; k0 += TRIG_BLOCK, nb++) {
            trig_state *sb = &st[nb];
            sb->k0 = k0;
            sb->n = n_freq - k0 < TRIG_BLOCK ? n_freq - k0 : TRIG_BLOCK;
            sb->n_cos = n_cos > k0 ? (n_cos - k0 < sb->n ? n_cos - k0 : sb->n) : 0;
            for (size_t k = 0; k < sb->n; k++)
                w[nb][k] = freq(freq_ctx, k0 + k);
            steps(sb->step_c, sb->step_s, w[nb], sb->n, rows->positions ? 1 : rows->step);
        }
        if (rows->positions) {
            fill_positions(t, st, nb, w, rows);
        } else {
            fill_run(t, st, nb, w, rows);
        }
    }
}

void trig_stream_start(trig_stream *ts, const double *w, size_t n, double first)
{
    for (size_t k = 0; k < n; k++)
        ts->w[k] = w[k];
    ts->n = n;
    steps(ts->step_c, ts->step_s, w, n, 1);
    trig_stream_seek(ts, first);
}

void trig_stream_seek(trig_stream *ts, double first)
{
    ts->position = first;
    ts->to_anchor = 0;
}

void trig_stream_row(trig_stream *ts, float *cos_out, float *sin_out, double amplitude)
{
    if (ts->to_anchor == 0) {
        anchor(ts->s, ts->c, ts->w, ts->n, ts->position);
        ts->to_anchor = rows_to_next_anchor(ts->position, 1);
    }
    ts->to_anchor--;
    ts->position += 1.0;
    size_t k = 0;
    f64x2 amp = f64x2_splat(amplitude);
    for (; k + 2 <= ts->n; k += 2) {
        f64x2 s = f64x2_load(ts->s + k), c = f64x2_load(ts->c + k);
        f64x2 cw = f64x2_load(ts->step_c + k), sw = f64x2_load(ts->step_s + k);
        store_pair_f32(cos_out + k, f64x2_mul(amp, c));
        store_pair_f32(sin_out + k, f64x2_mul(amp, s));
        ROTATE_PAIR(s, c, cw, sw);
        f64x2_store(ts->s + k, s), f64x2_store(ts->c + k, c);
    }
    for (; k < ts->n; k++) {
        cos_out[k] = (float)(amplitude * ts->c[k]);
        sin_out[k] = (float)(amplitude * ts->s[k]);
        rotate(&ts->s[k], &ts->c[k], ts->step_c[k], ts->step_s[k]);
    }
}

void trig_point(const double *w, size_t n, double p, float *cos_out, float *sin_out, double amplitude)
{
    double s[TRIG_BLOCK], c[TRIG_BLOCK];
    for (size_t k0 = 0; k0 < n; k0 += TRIG_BLOCK) {
        size_t nk = n - k0 < TRIG_BLOCK ? n - k0 : TRIG_BLOCK;
        anchor(s, c, w + k0, nk, p);
        for (size_t k = 0; k < nk; k++) {
            cos_out[k0 + k] = (float)(amplitude * c[k]);
            sin_out[k0 + k] = (float)(amplitude * s[k]);
        }
    }
}
