/*
 * rope_plan.h: a posenc_rope checked once, and the frequencies it gives
 * (src/rope_freq.c). The caches and rotations (src/rope_apply.c,
 * src/rope_axes.c) compute their frequencies from a plan, a block of pairs at
 * a time: no caller ever carries them across.
 */
#ifndef POSENC_ROPE_PLAN_H
#define POSENC_ROPE_PLAN_H

#include <stddef.h>

#include "posenc.h"

typedef struct rope_plan {
    int type;               /* posenc_rope_type                                  */
    size_t dim;             /* rotary_dim, resolved                              */
    size_t half;            /* dim / 2: the pairs                                */
    double base;            /* after DYNAMIC's rescaling                         */
    double factor;
    double original_max;    /* O                                                 */
    double attention;       /* A                                                 */
    double low, high;       /* YaRN's correction range, or llama3's freq factors  */
    const double *ext;      /* LongRoPE's factor list in use                      */
    const double *given;    /* rope->inv_freq, used as it is                      */
    int form;               /* posenc_rope_2d                                    */
    int layout, precision;
} rope_plan;

/*
 * Checks rope (the call's argument `index`) and fills *p, all but the
 * frequencies themselves (rope_plan_check). head_dim: the
 * rotated head's width (0 for caches: no head, rotary_dim must be set);
 * seq_len: the call's sequence length for DYNAMIC and LONGROPE when
 * rope->seq_len is 0 (0: none); axes (argument axes_index) or NULL.
 * Returns a status, with posenc_last_error's detail on failure.
 */
int rope_plan_make(rope_plan *p, const posenc_rope *rope, int index, size_t head_dim, size_t seq_len,
                   const posenc_rope_axes *axes, int axes_index);

/* The frequencies of a plan within the ranges the rotations take (finite,
 * |f_k| <= POSENC_ROPE_FREQUENCY_MAX): a pass over every pair, which a call
 * makes once its buffers are checked (their sizes bound the work). */
int rope_plan_check(const rope_plan *p, int index);

/* The plan again at the call's seq_len (DYNAMIC and LONGROPE frequencies
 * depend on it), once every buffer is checked: a call reads its positions
 * for their largest only when it knows they are there. */
int rope_plan_at(rope_plan *p, const posenc_rope *rope, int index, size_t head_dim, size_t seq_len,
                 const posenc_rope_axes *axes, int axes_index);

/* w[i] = the frequency of pair k0 + i, i < n (arranged as the 2-D form says). */
void rope_plan_block(const rope_plan *p, size_t k0, size_t n, double *w);

/* The byte ranges a rotation reads from rope while it writes: its given
 * frequencies and LongRoPE's lists (ptrs[i], bytes[i], up to 3; returns the count). */
size_t rope_plan_inputs(const rope_plan *p, const posenc_rope *rope, const void *ptrs[3], size_t bytes[3],
                        const char *names[3]);

/*
 * What posenc_rope_apply and posenc_rope_axes_apply share (src/rope_apply.c):
 * x's checks (arguments 1 to 7 of both), giving *need = batch * seq * heads
 * * head_dim; and one row of the float32 recipe, c[k] = A cos((float)p *
 * (float)w[k]) rounded as posenc.h says, k < n.
 */
int rope_check_x(const float *x, size_t x_len, size_t batch, size_t seq, size_t heads, size_t head_dim, int order,
                 size_t *need);
void rope_row_float32(float *c, float *s, size_t n, int32_t position, const double *w, double attention);

/* posenc_rope_apply after its checks: rotates x with the plan's frequencies
 * (its layout and precision), positions as posenc_rope_apply takes them. */
void rope_apply_run(float *x, size_t batch, size_t seq, size_t heads, size_t head_dim, int order, int32_t offset,
                    const int32_t *positions, size_t positions_len, const rope_plan *plan);

#endif
