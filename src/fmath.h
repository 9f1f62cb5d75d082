/*
 * fmath.h: the elementary functions posenc evaluates in double (exp, log, pow,
 * sin and cos), in its own C instead of the platform's libm. Two reasons:
 *   - native and wasm builds give bit-identical results (the same C, IEEE
 *     double operations only, no fused multiply-add: -ffp-contract=off);
 *   - the wasm carries no libm tables (musl's exp and its 2/pi table for
 *     sin/cos reduction were a quarter of the module).
 * Internal to posenc: not in posenc.h, not exported from the wasm.
 *
 * Error bounds, checked against glibc's long double libm over random and
 * edge inputs by tests/fmath/ulp.c (its output lists the maxima measured):
 *   fmath_exp     < 1 ulp for every double
 *   fmath_log     < 0.51 ulp for every double (a double-double log rounded once)
 *   fmath_pow     < 1 ulp for x > 0 and |y ln x| < 745
 *   fmath_sincos  < 1 ulp for every finite x: the argument reduction is exact
 *                 (Cody-Waite for |x| < 2^31, Payne-Hanek beyond and wherever
 *                 x is within 2^-28 of a multiple of pi/2)
 * Special values: exp(NaN) = NaN, exp(+inf) = +inf, exp(-inf) = 0; log(0) = -inf,
 * log(x < 0) = NaN, log(+inf) = +inf; sin and cos of inf or NaN are NaN. pow is
 * for x > 0 (what posenc raises to powers are bases > 1); it returns NaN for
 * other x and for NaN y, and 1 for x == 1 or y == 0.
 */
#ifndef POSENC_FMATH_H
#define POSENC_FMATH_H

double fmath_exp(double x);
double fmath_log(double x);
double fmath_pow(double x, double y);

/* *s = sin(x), *c = cos(x), with one argument reduction for both. */
void fmath_sincos(double x, double *s, double *c);

#endif
