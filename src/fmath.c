/*
 * fmath.c: exp, log, pow and sincos in double, table-free but for 160 bytes
 * of 2/pi (see fmath.h for the bounds). Methods and sources:
 *   exp     fdlibm e_exp.c (Sun Microsystems, 1993): x = k ln2 + r, a rational
 *           approximation of exp(r) on |r| <= ln2 / 2, its coefficients P1-P5;
 *   log     x = 2^k m, m in [sqrt(2)/2, sqrt(2)), ln m = 2 atanh(s) with
 *           s = (m - 1) / (m + 1): the series 2 (s + s^3/3 + s^5/5 + ...)
 *           summed in double-double (Dekker 1971), the leading terms exactly;
 *   pow     exp(y ln x) with ln x and y ln x in double-double, the low part
 *           fed to exp as a correction to its reduced argument;
 *   sin/cos fdlibm k_sin.c and k_cos.c (their polynomials S1-S6 and C1-C6 on
 *           |r| <= pi/4, r given as hi + lo) after the reduction
 *           x = n pi/2 + r: Cody and Waite (1980) with pi/2 in four pieces
 *           for |x| < 2^31, Payne and Hanek (1983) with the bits of 2/pi
 *           beyond, and wherever the Cody-Waite remainder is too small to
 *           carry its own error.
 * Only IEEE double operations and integer arithmetic: the results are the
 * same bits on every conforming platform (posenc compiles with
 * -ffp-contract=off, so no fused multiply-adds).
 */
#include "fmath.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* exp, log and pow run once per frequency, never per value: clang compiles
 * them for size (its minsize attribute; the wasm carries them inline in the
 * JS). sincos, once per value in the float32 RoPE recipe, stays compiled for
 * speed, with the double-double helpers inlined. The same IEEE operations in
 * the same order either way: the results are the same bits. */
#if defined(__clang__)
#define COLD __attribute__((minsize))
#else
#define COLD
#endif

/* An unevaluated sum hi + lo with |lo| <= ulp(hi): about 106 bits. */
typedef struct dd {
    double hi, lo;
} dd;

static uint64_t bits_of(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static double from_bits(uint64_t u)
{
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* ------------------------------------------------ error-free transforms */

/* a + b exactly, when |a| >= |b| or a == 0 (Dekker's Fast2Sum). */
static dd fast_two_sum(double a, double b)
{
    double s = a + b;
    return (dd){ s, b - (s - a) };
}

/* a + b exactly, any order (Knuth's TwoSum). */
static dd two_sum(double a, double b)
{
    double s = a + b, b_part = s - a;
    return (dd){ s, (a - (s - b_part)) + (b - b_part) };
}

/* a * b exactly for |a|, |b| < 2^995 (Dekker's product, Veltkamp's 26-bit split:
 * wasm has no fused multiply-add to get the error term in one instruction). */
static dd two_prod(double a, double b)
{
    double p = a * b;
    double ca = 134217729.0 * a, a_hi = ca - (ca - a), a_lo = a - a_hi; /* 2^27 + 1 */
    double cb = 134217729.0 * b, b_hi = cb - (cb - b), b_lo = b - b_hi;
    return (dd){ p, ((a_hi * b_hi - p) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo };
}

static dd dd_mul(dd a, dd b)
{
    dd p = two_prod(a.hi, b.hi);
    return fast_two_sum(p.hi, p.lo + (a.hi * b.lo + a.lo * b.hi));
}

/* y 2^k for y in [1/2, 2] and -1075 <= k <= 1024, rounded once (a subnormal
 * or overflowing result): 2^j is built from its bits, so j stays normal. */
static double scale2(double y, int k)
{
    if (k > 1023) {
        y *= 0x1p1023;
        k -= 1023;
    } else if (k < -1000) {
        y *= 0x1p-1000; /* exact: y 2^-1000 is normal */
        k += 1000;
    }
    return y * from_bits((uint64_t)(k + 1023) << 52);
}

/* ------------------------------------------------ exp */

#define LN2_HI_32 0x1.62e42feep-1           /* ln 2 in 32 bits: k LN2_HI_32 is exact */
#define LN2_LO_32 0x1.a39ef35793c76p-33     /* ln 2 - LN2_HI_32                       */
#define INV_LN2 0x1.71547652b82fep0
#define ROUND_MAGIC 0x1.8p52 /* (v + ROUND_MAGIC) - ROUND_MAGIC rounds |v| < 2^51 to an integer */

/* exp(x + x_lo) for |x_lo| <= 2^-40 (1 + |x|): fdlibm e_exp.c with x_lo
 * folded into the low part of the reduced argument. */
COLD static double exp_dd(double x, double x_lo)
{
    static const double P1 = 1.66666666666666019037e-01, P2 = -2.77777777770155933842e-03,
                        P3 = 6.61375632143793436117e-05, P4 = -1.65339022054652515390e-06,
                        P5 = 4.13813679705723846039e-08;
    if (!(x < 709.8)) /* NaN, or beyond DBL_MAX = exp(709.78...) */
        return x + INFINITY;
    if (x < -745.2) /* below half the least subnormal: exp(-745.13...) = 2^-1075 */
        return 0.0;
    double kd = (x * INV_LN2 + ROUND_MAGIC) - ROUND_MAGIC;
    double hi = x - kd * LN2_HI_32; /* exact: |k| < 2^11, and Sterbenz */
    double lo = kd * LN2_LO_32 - x_lo;
    double r = hi - lo;
    double t = r * r;
    double c = r - t * (P1 + t * (P2 + t * (P3 + t * (P4 + t * P5))));
    double y = 1.0 - ((lo - (r * c) / (2.0 - c)) - hi);
    return scale2(y, (int)kd);
}

COLD double fmath_exp(double x)
{
    return exp_dd(x, 0.0);
}

/* ------------------------------------------------ log */

#define LN2_HI 0x1.62e42fefa39efp-1 /* ln 2 = LN2_HI + LN2_LO to 2^-109 */
#define LN2_LO 0x1.abc9e3b39803fp-56
#define SQRT2 0x1.6a09e667f3bcdp0

/* ln x in double-double, relative error below 2^-64 (tests/fmath/ulp.c). */
COLD static dd log_dd(double x)
{
    if (!(x > 0.0) || x == INFINITY) /* 0, negative, NaN, +inf */
        return (dd){ x == 0.0 ? -INFINITY : x > 0.0 ? x : NAN, 0.0 };
    int k = 0;
    if (x < 0x1p-1022) { /* subnormal: scale into the normal range */
        x *= 0x1p54;
        k = -54;
    }
    uint64_t u = bits_of(x);
    k += (int)(u >> 52) - 1023;
    double m = from_bits((u & 0x000fffffffffffffu) | 0x3ff0000000000000u); /* [1, 2) */
    if (m > SQRT2) {
        m *= 0.5;
        k++;
    }
    double f = m - 1.0; /* exact (Sterbenz) */

    /* s = f / (2 + f) in double-double: the denominator is 2 + f exactly as
     * den + den_lo, and s_lo the quotient of the residual f - s (den + den_lo) */
    double den = 2.0 + f, den_lo = (2.0 - den) + f;
    double s = f / den;
    dd q = two_prod(s, den);
    double s_lo = (((f - q.hi) - q.lo) - s * den_lo) / den;

    /* ln m = 2s + s^3 (2/3 + z (2/5 + z (2/7 + ...))), z = s^2 <= 0.0295:
     * the terms to 2/25 leave less than 2^-70 of ln m. The 2/3 and the
     * products are double-double, the rest (w, below 2^-12 of ln m) double. */
    dd z = two_prod(s, s);
    z.lo += 2.0 * s * s_lo;
    double w = 0.0;
    for (int i = 25; i >= 5; i -= 2) /* w = 2/5 + z (2/7 + z (... + z 2/25)) */
        w = 2.0 / i + z.hi * w;
    dd zw = two_prod(z.hi, w);
    dd v = two_sum(2.0 / 3, zw.hi); /* 2/3 = 0x1.5555555555555p-1 + 0x1.5555555555555p-55 */
    v.lo += zw.lo + z.lo * w + 0x1.5555555555555p-55;
    dd tail = dd_mul(dd_mul((dd){ s, s_lo }, z), v);

    /* k ln2 + 2s + tail, each sum error-free where the parts are comparable */
    dd ln_m = two_sum(2.0 * s, tail.hi);
    ln_m.lo += 2.0 * s_lo + tail.lo;
    dd k_ln2 = two_prod((double)k, LN2_HI);
    dd sum = two_sum(k_ln2.hi, ln_m.hi);
    sum.lo += ln_m.lo + (k_ln2.lo + (double)k * LN2_LO);
    return fast_two_sum(sum.hi, sum.lo);
}

COLD double fmath_log(double x)
{
    dd l = log_dd(x);
    return l.hi + l.lo;
}

/* ------------------------------------------------ pow */

COLD double fmath_pow(double x, double y)
{
    if (x == 1.0 || y == 0.0)
        return 1.0;
    if (!(x > 0.0))
        return NAN;
    dd l = log_dd(x);
    double z = l.hi * y;
    /* NaN, or surely out of range (|y ln x| > 746): exp gives inf or 0. For
     * the rest, |y| < 746 / |ln x| < 2^63 (|ln x| >= 2^-53 for x != 1), so
     * the split in two_prod cannot overflow. */
    if (!(fabs(z) < 746.0))
        return exp_dd(z, 0.0);
    dd p = two_prod(l.hi, y);
    dd yl = fast_two_sum(p.hi, p.lo + l.lo * y);
    return exp_dd(yl.hi, yl.lo);
}

/* ------------------------------------------------ sin, cos */

/* pi/2 = PIO2_1 + PIO2_2 + PIO2_3 + PIO2_4 to 2^-126: the first three have
 * 22 significant bits, so n PIO2_i is exact for |n| < 2^31. */
#define PIO2_1 0x1.921fb8p0
#define PIO2_2 -0x1.5dde98p-23
#define PIO2_3 0x1.846988p-48
#define PIO2_4 0x1.8cc51701b839ap-72
#define PIO2_HI 0x1.921fb54442d18p0 /* pi/2 = PIO2_HI + PIO2_LO to 2^-107 */
#define PIO2_LO 0x1.1a62633145c07p-54
#define INV_PIO2 0x1.45f306dc9c883p-1
#define PIO4 0x1.921fb54442d18p-1

/* The bits of 2/pi after the binary point, 32 to a word, most significant
 * first, after two zero words (so that a window may start before the point).
 * 38 words reach bit 1216: the last any double needs is bit 1162. Check:
 *   python3 -c "from mpmath import mp, pi; mp.prec = 1300; print(hex(int(2 / pi * 2**1216)))" */
static const uint32_t TWO_OVER_PI[40] = {
    0x00000000, 0x00000000, 0xa2f9836e, 0x4e441529, 0xfc2757d1, 0xf534ddc0,
    0xdb629599, 0x3c439041, 0xfe5163ab, 0xdebbc561, 0xb7246e3a, 0x424dd2e0,
    0x06492eea, 0x09d1921c, 0xfe1deb1c, 0xb129a73e, 0xe88235f5, 0x2ebb4484,
    0xe99c7026, 0xb45f7e41, 0x3991d639, 0x835339f4, 0x9c845f8b, 0xbdf9283b,
    0x1ff897ff, 0xde05980f, 0xef2f118b, 0x5a0a6d1f, 0x6d367ecf, 0x27cb09b7,
    0x4f463f66, 0x9e5fea2d, 0x7527bac7, 0xebe5f17b, 0x3d0739f7, 0x8a5292ea,
    0x6bfb5fb1, 0x1f8d5d08, 0x56033046, 0xfc7b6bab,
};

/* acc += v d 2^(32 off): a 6-limb number times a 32-bit digit, added into
 * 8 limbs (least significant first). (2^32-1)^2 + 2 (2^32-1) < 2^64: no overflow. */
static void mul_add(uint32_t acc[8], const uint32_t v[6], uint32_t d, int off)
{
    uint64_t carry = 0;
    for (int i = 0; i + off < 8; i++) {
        carry += (i < 6 ? (uint64_t)v[i] * d : 0) + acc[i + off];
        acc[i + off] = (uint32_t)carry;
        carry >>= 32;
    }
}

/* Bits lo .. lo + 52 of the 8-limb number a, 0 < lo % 32. */
static uint64_t bits53(const uint32_t a[8], int lo)
{
    int w = lo >> 5, sh = lo & 31;
    uint64_t low = ((uint64_t)a[w + 1] << 32 | a[w]) >> sh;
    return (low | (uint64_t)a[w + 2] << (64 - sh)) & 0x001fffffffffffffu;
}

/*
 * Payne-Hanek: for finite ax >= pi/4, ax = n pi/2 + r with |r| <= pi/4;
 * returns n mod 4. With ax = m 2^e (m < 2^53 an integer), ax (2/pi) mod 4 needs
 * the bits of 2/pi from bit e - 1 on: the earlier ones add multiples of 4.
 * 192 of them make A = m (those bits) with ax (2/pi) = A 2^-190 (mod 4), exact
 * to 2^-137; the fraction, at least 2^-62 from an integer for any double
 * (the closest, 6381956970095103 2^797, is 2^-60.9 in units of pi/2), keeps
 * 75 correct bits.
 */
static unsigned reduce_large(double ax, dd *r)
{
    uint64_t u = bits_of(ax);
    int e = (int)(u >> 52) - 1075;
    uint64_t m = (u & 0x000fffffffffffffu) | 0x0010000000000000u;
    uint32_t v[6], a[8] = { 0 };
    int bit = e + 62; /* bit e - 1 of 2/pi, counted from 0 in the padded table */
    for (int k = 5; k >= 0; k--, bit += 32) {
        uint64_t pair = (uint64_t)TWO_OVER_PI[bit >> 5] << 32 | TWO_OVER_PI[(bit >> 5) + 1];
        v[k] = (uint32_t)(pair >> (32 - (bit & 31)));
    }
    mul_add(a, v, (uint32_t)m, 0);
    mul_add(a, v, (uint32_t)(m >> 32), 1);

    /* bits 191-190: n mod 4; bit 189 rounds n to nearest and makes the
     * fraction negative; the fraction in three exact 53-bit pieces */
    unsigned n = ((a[5] >> 29) + 1) >> 1;
    double c0 = (double)bits53(a, 137) - (double)((a[5] >> 29) & 1) * 0x1p53;
    dd f = fast_two_sum(c0 * 0x1p-53, (double)bits53(a, 84) * 0x1p-106);
    f = two_sum(f.hi, f.lo + (double)bits53(a, 31) * 0x1p-159);
    dd p = two_prod(f.hi, PIO2_HI);
    *r = fast_two_sum(p.hi, p.lo + (f.hi * PIO2_LO + f.lo * PIO2_HI));
    return n & 3;
}

/* x = n pi/2 + r, |r| <= pi/4 (to rounding), r in double-double; returns n mod 4. */
static unsigned reduce(double x, dd *r)
{
    double ax = fabs(x);
    if (ax <= PIO4) {
        *r = (dd){ x, 0.0 };
        return 0;
    }
    if (ax < 0x1p31) {
        /* Cody-Waite: x - n PIO2_1 is exact (Sterbenz), so are n PIO2_2 and
         * n PIO2_3 and their sums (TwoSum); only n PIO2_4 rounds. The error,
         * below 2^-92, is 2^-64 of any remainder above 2^-28. */
        double n = (x * INV_PIO2 + ROUND_MAGIC) - ROUND_MAGIC;
        dd a = two_sum(x - n * PIO2_1, -(n * PIO2_2));
        dd b = two_sum(a.hi, -(n * PIO2_3));
        *r = fast_two_sum(b.hi, (a.lo + b.lo) - n * PIO2_4);
        if (fabs(r->hi) >= 0x1p-28)
            return (unsigned)(int64_t)n & 3;
    }
    if (!(ax < INFINITY)) { /* inf, NaN */
        *r = (dd){ x - x, 0.0 };
        return 0;
    }
    unsigned n = reduce_large(ax, r);
    if (x < 0) {
        *r = (dd){ -r->hi, -r->lo };
        n = (0u - n) & 3;
    }
    return n;
}

/* sin(x + y), |x| <= pi/4, |y| <= ulp(x): fdlibm k_sin.c. */
static double sin_kernel(dd r)
{
    static const double S1 = -1.66666666666666324348e-01, S2 = 8.33333333332248946124e-03,
                        S3 = -1.98412698298579493134e-04, S4 = 2.75573137070700676789e-06,
                        S5 = -2.50507602534068634195e-08, S6 = 1.58969099521155010221e-10;
    double x = r.hi, z = x * x, v = z * x;
    double p = S2 + z * (S3 + z * (S4 + z * (S5 + z * S6)));
    return x - ((z * (0.5 * r.lo - v * p) - r.lo) - v * S1);
}

/* cos(x + y), |x| <= pi/4, |y| <= ulp(x): fdlibm k_cos.c (1 - z/2 with its
 * rounding error recovered, then the rest of the series). */
static double cos_kernel(dd r)
{
    static const double C1 = 4.16666666666666019037e-02, C2 = -1.38888888888741095749e-03,
                        C3 = 2.48015872894767294178e-05, C4 = -2.75573143513906633035e-07,
                        C5 = 2.08757232129817482790e-09, C6 = -1.13596475577881948265e-11;
    double x = r.hi, z = x * x, z2 = z * z;
    double p = z * (C1 + z * (C2 + z * C3)) + z2 * z2 * (C4 + z * (C5 + z * C6));
    double half_z = 0.5 * z, w = 1.0 - half_z;
    return w + (((1.0 - w) - half_z) + (z * p - x * r.lo));
}

void fmath_sincos(double x, double *s, double *c)
{
    dd r;
    unsigned n = reduce(x, &r);
    double sr = sin_kernel(r), cr = cos_kernel(r);
    switch (n) {
    case 0: *s = sr, *c = cr; break;
    case 1: *s = cr, *c = -sr; break;
    case 2: *s = -sr, *c = -cr; break;
    default: *s = -cr, *c = sr; break;
    }
}
