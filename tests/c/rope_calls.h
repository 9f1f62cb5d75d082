/* rope_calls.h: the tests' shorthand for RoPE calls with their parts spelled
 * out (rotary_dim, frequencies, attention factor, layout, precision), each
 * building the posenc_rope (and posenc_rope_axes) the routines take. A NULL
 * inv_freq leaves the frequencies to the routine (base 0: 10000). */
#ifndef POSENC_TESTS_ROPE_CALLS_H
#define POSENC_TESTS_ROPE_CALLS_H

#include <string.h>

#include "posenc.h"

static inline posenc_rope rope_given(size_t rotary_dim, int layout, const double *inv_freq, double attention,
                                     int precision)
{
    posenc_rope r;
    memset(&r, 0, sizeof r);
    r.rotary_dim = rotary_dim;
    r.layout = layout;
    r.inv_freq = inv_freq;
    r.attention_factor = attention;
    r.precision = precision;
    return r;
}

static inline posenc_rope_axes rope_axes_of(size_t n_axes, const size_t *sections, int arrangement)
{
    posenc_rope_axes a;
    memset(&a, 0, sizeof a);
    a.n_axes = n_axes;
    for (size_t i = 0; n_axes <= POSENC_ROPE_MAX_AXES && i < n_axes; i++) /* more: refused before they are read */
        a.sections[i] = sections[i];
    a.arrangement = arrangement;
    return a;
}

static inline int rope_freqs(double *inv_freq, size_t n, size_t rotary_dim, double base,
                             const posenc_rope_scaling *s, size_t seq_len, double *attention)
{
    posenc_rope r = rope_given(rotary_dim, 0, NULL, 0, 0);
    r.base = base;
    r.seq_len = seq_len;
    if (s)
        r.scaling = *s;
    return posenc_rope_frequencies(inv_freq, n, &r, NULL, attention);
}

static inline int rope_cache_with(float *c, float *s, size_t out_len, size_t length, int32_t offset,
                                  const int32_t *positions, size_t rotary_dim, const double *inv_freq,
                                  double attention, int precision)
{
    posenc_rope r = rope_given(rotary_dim, 0, inv_freq, attention, precision);
    return posenc_rope_cache(c, s, out_len, length, offset, positions, &r);
}

static inline int rope_apply_ordered_with(float *x, size_t x_len, size_t batch, size_t seq, size_t heads,
                                          size_t head_dim, int order, size_t rotary_dim, int layout,
                                          const double *inv_freq, double attention, int32_t offset,
                                          const int32_t *positions, size_t positions_len, int precision)
{
    posenc_rope r = rope_given(rotary_dim, layout, inv_freq, attention, precision);
    return posenc_rope_apply(x, x_len, batch, seq, heads, head_dim, order, offset, positions, positions_len, &r);
}

static inline int rope_apply_with(float *x, size_t x_len, size_t batch, size_t seq, size_t heads, size_t head_dim,
                                  size_t rotary_dim, int layout, const double *inv_freq, double attention,
                                  int32_t offset, const int32_t *positions, size_t positions_len, int precision)
{
    return rope_apply_ordered_with(x, x_len, batch, seq, heads, head_dim, POSENC_ROPE_ORDER_BSHD, rotary_dim,
                                   layout, inv_freq, attention, offset, positions, positions_len, precision);
}

static inline int rope_axes_cache_with(float *c, float *s, size_t out_len, size_t length, const int32_t *positions,
                                       size_t n_axes, const size_t *sections, int arrangement, size_t rotary_dim,
                                       const double *inv_freq, double attention, int precision)
{
    posenc_rope r = rope_given(rotary_dim, 0, inv_freq, attention, precision);
    posenc_rope_axes a = sections ? rope_axes_of(n_axes, sections, arrangement) : rope_axes_of(0, NULL, 0);
    return posenc_rope_axes_cache(c, s, out_len, length, positions, sections ? &a : NULL, &r);
}

static inline int rope_axes_apply_with(float *x, size_t x_len, size_t batch, size_t seq, size_t heads,
                                       size_t head_dim, int order, size_t rotary_dim, int layout,
                                       const double *inv_freq, double attention, const int32_t *positions,
                                       size_t positions_len, size_t n_axes, const size_t *sections, int arrangement,
                                       int precision)
{
    posenc_rope r = rope_given(rotary_dim, layout, inv_freq, attention, precision);
    posenc_rope_axes a = sections ? rope_axes_of(n_axes, sections, arrangement) : rope_axes_of(0, NULL, 0);
    return posenc_rope_axes_apply(x, x_len, batch, seq, heads, head_dim, order, positions, positions_len,
                                  sections ? &a : NULL, &r);
}

#endif
