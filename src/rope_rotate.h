/* rope_rotate.h: the RoPE rotation of a set of head vectors. */
#ifndef POSENC_ROPE_ROTATE_H
#define POSENC_ROPE_ROTATE_H

#include <stddef.h>

/* The most pairs one call rotates (callers pass blocks of TRIG_BLOCK pairs). */
#define ROPE_ROTATE_MAX_PAIRS 128

/*
 * Lays out the cos and sin of n pairs (n <= ROPE_ROTATE_MAX_PAIRS) for the
 * layout's kernel, in place: c and s hold 2n floats, the first n given.
 * POSENC_ROPE_HALF keeps them; POSENC_ROPE_INTERLEAVED spreads them to
 * c = [c0 c0 c1 c1 ...], s = [-s0 s0 -s1 s1 ...], the factors of
 * [a0 b0 a1 b1 ...] and of its pair-swapped copy [b0 a0 b1 a1 ...].
 */
void rope_rotate_spread(int layout, size_t n, float *c, float *s);

/*
 * Rotates pairs k0 <= k < k0 + n (the pairs of posenc_rope_apply's layout)
 * of `count` head vectors, vector v at x + v * stride, by the coefficients
 * that rope_rotate_spread laid out at c + v * coeff_stride and
 * s + v * coeff_stride (coeff_stride 0: every vector at one position, e.g. the
 * heads of a [seq][heads][head_dim] row; else one position per vector, e.g.
 * the rows of one head of [heads][seq][head_dim]):
 * a' = a c - b s, b' = b c + a s, every product and sum rounded to float (as
 * torch does): within 2^-23 * max(|c|, |s|, 1) * (|a| + |b|) of the exact
 * rotation by these c and s.
 */
void rope_rotate(float *x, size_t count, size_t stride, size_t half, size_t k0, size_t n, int layout,
                 const float *c, const float *s, size_t coeff_stride);

#endif
