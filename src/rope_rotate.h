/* rope_rotate.h: the RoPE rotation of every head of one sequence row. */
#ifndef POSENC_ROPE_ROTATE_H
#define POSENC_ROPE_ROTATE_H

#include <stddef.h>

/* The most pairs one call rotates (callers pass blocks of TRIG_BLOCK pairs). */
#define ROPE_ROTATE_MAX_PAIRS 128

/*
 * Rotates pairs k0 <= k < k0 + n of each of `heads` vectors at row,
 * head_stride floats apart (head_dim for [seq][heads][head_dim], seq * head_dim
 * for [heads][seq][head_dim]), the pairs of posenc_rope_apply's layout, by
 * c[k - k0], s[k - k0], n <= ROPE_ROTATE_MAX_PAIRS:
 * a' = a c - b s, b' = b c + a s, every product and sum rounded to float (as
 * torch does): within 2^-23 * max(|c|, |s|, 1) * (|a| + |b|) of the exact
 * rotation by these c and s.
 */
void rope_rotate_row(float *row, size_t heads, size_t head_stride, size_t half, size_t k0, size_t n,
                     int layout, const float *c, const float *s);

#endif
