/*
 * ulp.c: the accuracy of src/fmath.c, measured in ulps against the host's
 * long double libm (glibc on x86-64: a 64-bit significand, its own error a few
 * thousandths of a double ulp) over random inputs in the ranges posenc uses,
 * the whole double range, and the edges. Prints the largest error of each
 * function and range, and checks it against the bound in src/fmath.h.
 *
 *   build/native/test_fmath [samples]   samples per range (default 200000)
 *
 * Its own binary, not part of test_posenc: valgrind (which runs test_posenc)
 * computes long double in double precision, which would blind the reference.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fmath.h"

int check_passed, check_failed;

#define PI_4 0.78539816339744830962
#define SQRT_2 1.41421356237309504880

/* Extra ulps a less precise reference may contribute (none with 64 bits or more). */
#define REFERENCE_SLACK (LDBL_MANT_DIG >= 64 ? 0.0 : 1.0)

/* ---------------------------------------------------------------- inputs */

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

/* xorshift64* (Vigna 2016): fixed seed, so every run sees the same inputs. */
static uint64_t next_u64(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1du;
}

static double uniform(double lo, double hi)
{
    return lo + (hi - lo) * ((double)(next_u64() >> 11) * 0x1p-53);
}

/* lo * (hi / lo)^u: every binade between lo > 0 and hi equally often. */
static double log_uniform(double lo, double hi)
{
    return lo * pow(hi / lo, uniform(0.0, 1.0));
}

static double random_sign(double x)
{
    return next_u64() & 1 ? -x : x;
}

/* A finite double from random bits, |x| >= min_abs. */
static double random_finite(double min_abs)
{
    for (;;) {
        uint64_t u = next_u64();
        double x;
        memcpy(&x, &u, sizeof x);
        if (isfinite(x) && fabs(x) >= min_abs)
            return x;
    }
}

/* ---------------------------------------------------------------- errors */

/* |got - want| in units of the last place of want (2^-1074 at least). */
static double ulp_error(double got, long double want)
{
    if (isnan(want))
        return isnan(got) ? 0.0 : INFINITY;
    if (fabsl(want) > (long double)DBL_MAX) /* beyond the doubles: only inf is right */
        return isinf(got) && (got > 0) == (want > 0) ? 0.0 : INFINITY;
    if (isnan(got) || isinf(got))
        return INFINITY;
    int e;
    frexpl(want, &e); /* |want| in [2^(e-1), 2^e) */
    long double ulp = ldexpl(1.0L, e - 53 > -1074 ? e - 53 : -1074);
    if (want == 0.0L)
        ulp = ldexpl(1.0L, -1074);
    return (double)(fabsl((long double)got - want) / ulp);
}

/* The largest error over a range, and where. */
typedef struct worst {
    const char *function, *range;
    double bound, ulps, x, y;
    long samples;
} worst;

static void see(worst *w, double ulps, double x, double y)
{
    w->samples++;
    if (!(ulps <= w->ulps)) { /* NaN counts as worse */
        w->ulps = ulps;
        w->x = x;
        w->y = y;
    }
}

static void report(const worst *w)
{
    printf("%-13s %-38s %9ld  max %.4f ulp  at %.17g", w->function, w->range, w->samples, w->ulps, w->x);
    if (w->y == w->y)
        printf(", %.17g", w->y);
    printf("\n");
    CHECKF(w->ulps <= w->bound + REFERENCE_SLACK, "%s %s: %.4f ulp > %.2f at %.17g, %.17g", w->function,
           w->range, w->ulps, w->bound, w->x, w->y);
}

/* ---------------------------------------------------------------- exp */

static void see_exp(worst *w, double x)
{
    see(w, ulp_error(fmath_exp(x), expl((long double)x)), x, NAN);
}

static void test_exp(long n)
{
    worst all = { "fmath_exp", "[-745.2, 709.8] (all finite results)", 1.0, 0, 0, NAN, 0 };
    worst unit = { "fmath_exp", "[-1, 1]", 1.0, 0, 0, NAN, 0 };
    worst tiny = { "fmath_exp", "|x| in [2^-60, 2^-20]", 1.0, 0, 0, NAN, 0 };
    worst edge = { "fmath_exp", "edges (0, thresholds, subnormal results)", 1.0, 0, 0, NAN, 0 };
    for (long i = 0; i < n; i++) {
        see_exp(&all, uniform(-745.2, 709.8));
        see_exp(&unit, uniform(-1.0, 1.0));
        see_exp(&tiny, random_sign(log_uniform(0x1p-60, 0x1p-20)));
    }
    static const double edges[] = { 0.0, -0.0, 0x1p-1074, 1.0, -1.0, 709.782712893383973096,
                                    709.78271289338397, 709.7827128933841, -708.39641853226408,
                                    -708.3964185322641, -720.0, -744.44007192138126,
                                    -745.13321910194110842, -745.1332191019412, -745.2,
                                    0.34657359027997264, -0.34657359027997264 };
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
        see_exp(&edge, edges[i]);
    for (long i = 0; i < n / 10; i++) /* subnormal results */
        see_exp(&edge, uniform(-745.2, -708.4));
    report(&all), report(&unit), report(&tiny), report(&edge);
    CHECK(isnan(fmath_exp(NAN)) && fmath_exp(INFINITY) == INFINITY && fmath_exp(-INFINITY) == 0.0);
    CHECK(fmath_exp(710.0) == INFINITY && fmath_exp(-746.0) == 0.0 && fmath_exp(0.0) == 1.0);
}

/* ---------------------------------------------------------------- log */

static void see_log(worst *w, double x)
{
    see(w, ulp_error(fmath_log(x), logl((long double)x)), x, NAN);
}

static void test_log(long n)
{
    worst all = { "fmath_log", "every positive double (random bits)", 0.51, 0, 0, NAN, 0 };
    worst near1 = { "fmath_log", "[1 - 2^-8, 1 + 2^-8]", 0.51, 0, 0, NAN, 0 };
    worst bases = { "fmath_log", "[1, 1e7] (bases, bucket distances)", 0.51, 0, 0, NAN, 0 };
    worst edge = { "fmath_log", "edges (1 +- k ulp, sqrt 2, extremes)", 0.51, 0, 0, NAN, 0 };
    for (long i = 0; i < n; i++) {
        see_log(&all, fabs(random_finite(0.0)));
        see_log(&near1, uniform(1.0 - 0x1p-8, 1.0 + 0x1p-8));
        see_log(&bases, log_uniform(1.0, 1e7));
    }
    for (int k = 1; k < 1000; k++) {
        see_log(&edge, 1.0 + k * 0x1p-52);
        see_log(&edge, 1.0 - k * 0x1p-53);
        see_log(&edge, nextafter(SQRT_2, 0.0) + (k - 500) * 0x1p-52);
        see_log(&edge, (double)k);
    }
    static const double edges[] = { DBL_MAX, DBL_MIN, 0x1p-1074, 0x1.fffffffffffffp-1023, 2.0, 0.5, 10000.0 };
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
        see_log(&edge, edges[i]);
    report(&all), report(&near1), report(&bases), report(&edge);
    CHECK(fmath_log(1.0) == 0.0 && fmath_log(0.0) == -INFINITY && fmath_log(-0.0) == -INFINITY);
    CHECK(isnan(fmath_log(-1.0)) && isnan(fmath_log(NAN)) && fmath_log(INFINITY) == INFINITY);
}

/* ---------------------------------------------------------------- pow */

static void see_pow(worst *w, double x, double y)
{
    see(w, ulp_error(fmath_pow(x, y), powl((long double)x, (long double)y)), x, y);
}

static void test_pow(long n)
{
    worst rope = { "fmath_pow", "base in (1, 1e7], y = +-2k/d in [-1, 1]", 1.0, 0, 0, 0, 0 };
    worst big_base = { "fmath_pow", "base in (1, DBL_MAX], y in [-1, 1]", 1.0, 0, 0, 0, 0 };
    worst alibi = { "fmath_pow", "2^y, y in [-1100, 0] (ALiBi slopes)", 1.0, 0, 0, 0, 0 };
    worst dynamic = { "fmath_pow", "x in [1, 1e3], y in [1, 2] (dynamic base)", 1.0, 0, 0, 0, 0 };
    worst general = { "fmath_pow", "any x > 0, |y ln x| < 745", 1.0, 0, 0, 0, 0 };
    for (long i = 0; i < n; i++) {
        double d = (double)(2 * (1 + (next_u64() % 4096)));
        double k = (double)(next_u64() % (uint64_t)(d / 2));
        see_pow(&rope, log_uniform(1.0 + 0x1p-20, 1e7), random_sign(2.0 * k / d));
        see_pow(&big_base, log_uniform(1.0 + 0x1p-20, DBL_MAX), uniform(-1.0, 1.0));
        see_pow(&alibi, 2.0, uniform(-1100.0, 0.0));
        see_pow(&dynamic, uniform(1.0, 1e3), uniform(1.0, 2.0));
        double x = fabs(random_finite(0.0));
        double ln = fabs(log(x));
        see_pow(&general, x, x == 1.0 ? uniform(-1e300, 1e300) : uniform(-745.0, 745.0) / ln);
    }
    report(&rope), report(&big_base), report(&alibi), report(&dynamic), report(&general);
    /* powers of two are exact (ALiBi slopes of power-of-two head counts), and so are exact results */
    int exact = 1;
    for (int k = -1074; k <= 1023; k++)
        exact &= fmath_pow(2.0, (double)k) == ldexp(1.0, k);
    CHECK(exact);
    CHECK(fmath_pow(10000.0, 0.5) == 100.0 && fmath_pow(4.0, -0.5) == 0.5 && fmath_pow(10.0, 3.0) == 1000.0);
    CHECK(fmath_pow(1.0, NAN) == 1.0 && fmath_pow(NAN, 0.0) == 1.0 && isnan(fmath_pow(-2.0, 2.0)));
    CHECK(fmath_pow(2.0, 1025.0) == INFINITY && fmath_pow(2.0, -1076.0) == 0.0 && isnan(fmath_pow(2.0, NAN)));
}

/* ---------------------------------------------------------------- sin, cos */

static void see_sincos(worst *w, double x)
{
    double s, c;
    fmath_sincos(x, &s, &c);
    double es = ulp_error(s, sinl((long double)x)), ec = ulp_error(c, cosl((long double)x));
    see(w, es > ec ? es : ec, x, NAN);
}

static void test_sincos(long n)
{
    worst kernel = { "fmath_sincos", "|x| <= pi/4 (no reduction)", 1.0, 0, 0, NAN, 0 };
    worst medium = { "fmath_sincos", "|x| in [pi/4, 2^31) (Cody-Waite)", 1.0, 0, 0, NAN, 0 };
    worst angles = { "fmath_sincos", "p w, p < 2^31, w = 10000^-u (tables)", 1.0, 0, 0, NAN, 0 };
    worst f32 = { "fmath_sincos", "float p * float f, f <= 2^64 (RoPE f32)", 1.0, 0, 0, NAN, 0 };
    worst huge = { "fmath_sincos", "|x| >= 2^31 (Payne-Hanek, random bits)", 1.0, 0, 0, NAN, 0 };
    worst near = { "fmath_sincos", "doubles nearest n pi/2, n < 2^40", 1.0, 0, 0, NAN, 0 };
    for (long i = 0; i < n; i++) {
        see_sincos(&kernel, uniform(-PI_4, PI_4));
        see_sincos(&medium, random_sign(log_uniform(PI_4, 0x1p31)));
        double p = (double)(next_u64() % 0x80000000u);
        see_sincos(&angles, p * pow(10000.0, -uniform(0.0, 1.0)));
        float fp = (float)(next_u64() % 0x80000000u), ff = (float)log_uniform(0x1p-30, 0x1p64);
        see_sincos(&f32, (double)(fp * ff));
        double big = random_finite(0x1p31);
        see_sincos(&huge, big);
        long double m = (long double)(next_u64() >> 24); /* n < 2^40 */
        see_sincos(&near, (double)(m * 1.5707963267948966192313216916397514L));
    }
    /* the double closest to a multiple of pi/2 (Muller, "Elementary Functions"),
     * the largest double, multiples of pi/2 */
    see_sincos(&huge, 6381956970095103.0 * 0x1p797);
    see_sincos(&huge, DBL_MAX);
    see_sincos(&huge, -DBL_MAX);
    for (int k = 1; k < 2000; k++)
        see_sincos(&near, (double)(k * 1.5707963267948966192313216916397514L));
    report(&kernel), report(&medium), report(&angles), report(&f32), report(&huge), report(&near);

    double s, c;
    fmath_sincos(-0.0, &s, &c);
    CHECK(s == 0.0 && signbit(s) && c == 1.0);
    fmath_sincos(0x1p-1074, &s, &c);
    CHECK(s == 0x1p-1074 && c == 1.0);
    fmath_sincos(INFINITY, &s, &c);
    CHECK(isnan(s) && isnan(c));
    fmath_sincos(NAN, &s, &c);
    CHECK(isnan(s) && isnan(c));
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 200000;
    if (n < 1)
        n = 1;
    printf("fmath against long double libm (%d-bit significand), %ld samples per range\n", LDBL_MANT_DIG, n);
    test_exp(n);
    test_log(n);
    test_pow(n);
    test_sincos(n);
    printf("c: %d passed, %d failed\n", check_passed, check_failed);
    return check_failed ? 1 : 0;
}
