/* trig.c: sin/cos tables by an anchored angle-addition recurrence (see trig.h). */
#include "trig.h"

#include <math.h>

enum {
    TRIG_BLOCK = 64,       /* frequencies kept in registers/stack at once      */
    TRIG_ANCHOR_ROWS = 32  /* rows between fresh libm anchors                  */
};

static void store(const trig_target *t, float *dst, double v)
{
    float value = (float)(t->amplitude * v);
    for (size_t b = 0; b < t->n_batch; b++, dst += t->batch_stride)
        *dst = t->accumulate ? *dst * t->x_scale + value : value;
}

static void store_row(const trig_target *t, size_t row, size_t k0, const double *s,
                      const double *c, size_t n_sin, size_t n_cos)
{
    float *so = t->sin_out + row * t->row_stride + k0 * t->col_stride;
    for (size_t k = 0; k < n_sin; k++)
        store(t, so + k * t->col_stride, s[k]);
    if (n_cos == 0)
        return;
    float *co = t->cos_out + row * t->row_stride + k0 * t->col_stride;
    for (size_t k = 0; k < n_cos; k++)
        store(t, co + k * t->col_stride, c[k]);
}

/* Rows at explicit positions: no recurrence, one libm evaluation per value. */
static void fill_block_positions(const trig_target *t, const double *w, size_t k0, size_t n,
                                 size_t n_cos, const trig_rows *rows)
{
    double s[TRIG_BLOCK], c[TRIG_BLOCK];
    for (size_t r = 0; r < rows->count; r++) {
        double p = (double)rows->positions[r];
        for (size_t k = 0; k < n; k++) {
            s[k] = sin(p * w[k]);
            c[k] = cos(p * w[k]);
        }
        store_row(t, r, k0, s, c, n, n_cos);
    }
}

static void fill_block_run(const trig_target *t, const double *w, size_t k0, size_t n,
                           size_t n_cos, const trig_rows *rows)
{
    double s[TRIG_BLOCK], c[TRIG_BLOCK], step_c[TRIG_BLOCK], step_s[TRIG_BLOCK];
    for (size_t k = 0; k < n; k++) {
        step_c[k] = cos(w[k]);
        step_s[k] = rows->step * sin(w[k]);
    }
    for (size_t r0 = 0; r0 < rows->count; r0 += TRIG_ANCHOR_ROWS) {
        double p = rows->first + (double)rows->step * (double)r0;
        for (size_t k = 0; k < n; k++) {
            s[k] = sin(p * w[k]);
            c[k] = cos(p * w[k]);
        }
        size_t r_end = r0 + TRIG_ANCHOR_ROWS < rows->count ? r0 + TRIG_ANCHOR_ROWS : rows->count;
        for (size_t r = r0; r < r_end; r++) {
            store_row(t, r, k0, s, c, n, n_cos);
            /* sin(a + w) = sin a cos w + cos a sin w;  cos(a + w) = cos a cos w - sin a sin w */
            for (size_t k = 0; k < n; k++) {
                double sk = s[k];
                s[k] = sk * step_c[k] + c[k] * step_s[k];
                c[k] = c[k] * step_c[k] - sk * step_s[k];
            }
        }
    }
}

void trig_fill(const trig_target *t, trig_freq_fn freq, const void *freq_ctx, size_t n_freq,
               size_t n_cos, const trig_rows *rows)
{
    double w[TRIG_BLOCK];
    for (size_t k0 = 0; k0 < n_freq; k0 += TRIG_BLOCK) {
        size_t n = n_freq - k0 < TRIG_BLOCK ? n_freq - k0 : TRIG_BLOCK;
        size_t nc = n_cos > k0 ? (n_cos - k0 < n ? n_cos - k0 : n) : 0;
        for (size_t k = 0; k < n; k++)
            w[k] = freq(freq_ctx, k0 + k);
        if (rows->positions)
            fill_block_positions(t, w, k0, n, nc, rows);
        else
            fill_block_run(t, w, k0, n, nc, rows);
    }
}
