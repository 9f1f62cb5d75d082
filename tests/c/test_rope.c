/* RoPE against the formulas of posenc.h / HF modeling_rope_utils.py, evaluated
 * here in double, independently of src/rope_*.c. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rope_calls.h"
#include "posenc.h"

#define PI_D 3.14159265358979323846
#define EPS23 (1.0 / 8388608.0) /* 2^-23 */
#define EPS22 (1.0 / 4194304.0) /* 2^-22 */

static double rel_err(double got, double want)
{
    double e = fabs(got - want) / fabs(want);
    return isnan(e) ? INFINITY : e;
}

/* ------------------------------------------------------------ frequencies */

static double theta(double base, size_t k, size_t d)
{
    return 1.0 / pow(base, (double)(2 * k) / (double)d);
}

/* HF _compute_yarn_parameters, written out again. */
static void yarn_ref(double *out, double *att, size_t d, double base, double factor, double orig,
                     double bf, double bs, double ms, double msad, int truncate)
{
    double lo = (double)d * log(orig / (bf * 2 * PI_D)) / (2 * log(base));
    double hi = (double)d * log(orig / (bs * 2 * PI_D)) / (2 * log(base));
    if (truncate) {
        lo = floor(lo);
        hi = ceil(hi);
    }
    lo = fmax(lo, 0);
    hi = fmin(hi, (double)d - 1);
    if (lo == hi)
        hi += 0.001;
    for (size_t k = 0; k < d / 2; k++) {
        double ramp = fmin(1, fmax(0, ((double)k - lo) / (hi - lo)));
        double t = theta(base, k, d);
        out[k] = t / factor * ramp + t * (1 - ramp);
    }
    double g1 = factor <= 1 ? 1 : 0.1 * ms * log(factor) + 1;
    double g2 = factor <= 1 ? 1 : 0.1 * msad * log(factor) + 1;
    double g = factor <= 1 ? 1 : 0.1 * log(factor) + 1;
    *att = ms != 0 && msad != 0 ? g1 / g2 : g;
}

static double max_rel(const double *got, const double *want, size_t n)
{
    double worst = 0;
    for (size_t k = 0; k < n; k++)
        worst = fmax(worst, rel_err(got[k], want[k]));
    return worst;
}

static void test_frequencies(void)
{
    double f[64], ref[64], att = 0;
    posenc_rope_scaling s = { 0 };

    CHECK(rope_freqs(f, 32, 64, 0, NULL, 0, &att) == POSENC_OK && att == 1.0);
    for (size_t k = 0; k < 32; k++)
        ref[k] = theta(10000, k, 64);
    CHECK(max_rel(f, ref, 32) <= 4e-16);

    s.type = POSENC_ROPE_LINEAR;
    s.factor = 4;
    CHECK(rope_freqs(f, 32, 64, 10000, &s, 0, &att) == POSENC_OK && att == 1.0);
    for (size_t k = 0; k < 32; k++)
        ref[k] = theta(10000, k, 64) / 4;
    CHECK(max_rel(f, ref, 32) <= 4e-16);

    /* dynamic NTK: below max_position_embeddings the base is unchanged */
    s = (posenc_rope_scaling){ .type = POSENC_ROPE_DYNAMIC, .factor = 2, .max_position_embeddings = 2048 };
    CHECK(rope_freqs(f, 32, 64, 10000, &s, 1000, &att) == POSENC_OK);
    for (size_t k = 0; k < 32; k++)
        ref[k] = theta(10000, k, 64);
    CHECK(max_rel(f, ref, 32) <= 4e-16);
    CHECK(rope_freqs(f, 32, 64, 10000, &s, 8192, &att) == POSENC_OK);
    double b2 = 10000 * pow(2.0 * 8192 / 2048 - 1, 64.0 / 62.0);
    for (size_t k = 0; k < 32; k++)
        ref[k] = theta(b2, k, 64);
    CHECK(max_rel(f, ref, 32) <= 4e-16);

    /* YaRN: plain, mscale pair, truncate off, attention factor given, factor from M / O */
    struct { double factor, max, bf, bs, ms, msad, att; int no_trunc; } yc[] = {
        { 4, 16384, 0, 0, 0, 0, 0, 0 },     { 4, 16384, 0, 0, 1, 0.5, 0, 0 },
        { 40, 0, 0, 0, 0.707, 0.707, 0, 0 }, { 4, 16384, 16, 2, 0, 0, 0, 1 },
        { 4, 16384, 0, 0, 0, 0, 1.5, 0 },   { 0, 16384, 0, 0, 0, 0, 0, 0 },
        { 0.5, 0, 0, 0, 0, 0, 0, 0 },
    };
    for (size_t i = 0; i < sizeof yc / sizeof *yc; i++) {
        s = (posenc_rope_scaling){ POSENC_ROPE_YARN, yc[i].no_trunc, yc[i].factor, 4096, yc[i].max,
                                   yc[i].att, yc[i].bf, yc[i].bs, yc[i].ms, yc[i].msad, 0, 0, NULL, NULL, 0 };
        double ref_att, factor = yc[i].factor ? yc[i].factor : yc[i].max / 4096;
        yarn_ref(ref, &ref_att, 64, 10000, factor, 4096, yc[i].bf ? yc[i].bf : 32, yc[i].bs ? yc[i].bs : 1,
                 yc[i].ms, yc[i].msad, !yc[i].no_trunc);
        if (yc[i].att)
            ref_att = yc[i].att;
        int st = rope_freqs(f, 32, 64, 10000, &s, 0, &att);
        CHECKF(st == 0 && max_rel(f, ref, 32) <= 1e-15 && rel_err(att, ref_att) <= 1e-15,
               "yarn case %zu: status %d, error %g, attention %.17g vs %.17g", i, st,
               max_rel(f, ref, 32), att, ref_att);
    }

    /* Llama 3.1 (factor 8, 1, 4, 8192 on base 500000) */
    s = (posenc_rope_scaling){ .type = POSENC_ROPE_LLAMA3, .factor = 8, .original_max_position_embeddings = 8192,
                               .low_freq_factor = 1, .high_freq_factor = 4 };
    CHECK(rope_freqs(f, 64, 128, 500000, &s, 0, &att) == POSENC_OK && att == 1.0);
    int bands[3] = { 0, 0, 0 };
    for (size_t k = 0; k < 64; k++) {
        double t = theta(500000, k, 128), wl = 2 * PI_D / t;
        if (wl < 8192 / 4.0) {
            ref[k] = t, bands[0]++;
        } else if (wl > 8192 / 1.0) {
            ref[k] = t / 8, bands[2]++;
        } else {
            double sm = (8192 / wl - 1) / 3;
            ref[k] = (1 - sm) * t / 8 + sm * t, bands[1]++;
        }
    }
    CHECKF(max_rel(f, ref, 64) <= 1e-15 && bands[0] && bands[1] && bands[2], "llama3 error %g",
           max_rel(f, ref, 64));

    /* LongRoPE: short factors up to O, long beyond; attention from M / O */
    const double shortf[4] = { 1, 1.25, 1.5, 2 }, longf[4] = { 1.5, 3, 8, 24 };
    s = (posenc_rope_scaling){ .type = POSENC_ROPE_LONGROPE, .original_max_position_embeddings = 4096,
                               .max_position_embeddings = 131072, .short_factor = shortf,
                               .long_factor = longf, .factors_len = 4 };
    double want_att = sqrt(1 + log(32.0) / log(4096.0));
    for (int pass = 0; pass < 3; pass++) {
        size_t seq = pass == 0 ? 0 : pass == 1 ? 4096 : 4097;
        const double *e = pass == 2 ? longf : shortf;
        for (size_t k = 0; k < 4; k++)
            ref[k] = 1 / (e[k] * pow(10000, (double)(2 * k) / 8));
        CHECKF(rope_freqs(f, 4, 8, 10000, &s, seq, &att) == 0 && max_rel(f, ref, 4) <= 4e-16 &&
                   rel_err(att, want_att) <= 4e-16, "longrope seq %zu", seq);
    }
}

static void test_frequency_errors(void)
{
    double f[8], att = 42;
    const double fac[4] = { 1, 1, 1, 1 }, bad[4] = { 1, 0, 1, 1 };
    for (int i = 0; i < 8; i++)
        f[i] = 42;
    const posenc_rope_scaling cases[] = {
        { .type = 6 },
        { .type = -1 },
        { .type = POSENC_ROPE_LINEAR },                       /* factor missing */
        { .type = POSENC_ROPE_LINEAR, .factor = -1 },
        { .type = POSENC_ROPE_LINEAR, .factor = NAN },
        { .type = POSENC_ROPE_LINEAR, .factor = INFINITY },
        { .type = POSENC_ROPE_DYNAMIC, .factor = 2 },         /* M missing */
        { .type = POSENC_ROPE_DYNAMIC, .factor = 2, .max_position_embeddings = 10.5 },
        { .type = POSENC_ROPE_DYNAMIC, .factor = 1e300, .max_position_embeddings = 1 }, /* base overflows */
        { .type = POSENC_ROPE_YARN, .factor = 4 },            /* neither O nor M */
        { .type = POSENC_ROPE_YARN, .factor = 4, .max_position_embeddings = 100, .beta_fast = 1, .beta_slow = 2 },
        { .type = POSENC_ROPE_YARN, .factor = 4, .max_position_embeddings = 100, .beta_fast = -3 },
        { .type = POSENC_ROPE_YARN, .factor = 4, .max_position_embeddings = 100, .mscale = -1, .mscale_all_dim = 1 },
        { .type = POSENC_ROPE_YARN, .factor = 4, .max_position_embeddings = 100, .attention_factor = -1 },
        { .type = POSENC_ROPE_LLAMA3, .factor = 8, .original_max_position_embeddings = 8192,
          .low_freq_factor = 4, .high_freq_factor = 1 },
        { .type = POSENC_ROPE_LLAMA3, .factor = 8, .low_freq_factor = 1, .high_freq_factor = 4 },
        { .type = POSENC_ROPE_LONGROPE, .max_position_embeddings = 100, .short_factor = fac,
          .long_factor = fac, .factors_len = 3 },
        { .type = POSENC_ROPE_LONGROPE, .max_position_embeddings = 100, .short_factor = fac,
          .long_factor = bad, .factors_len = 4 },
        { .type = POSENC_ROPE_LONGROPE, .factor = 4, .original_max_position_embeddings = 1,
          .short_factor = fac, .long_factor = fac, .factors_len = 4 }, /* ln(O) = 0 */
    };
    int all = 1;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int st = rope_freqs(f, 8, 8, 10000, &cases[i], 0, &att);
        if (st != POSENC_ERR_INVALID_ARGUMENT) {
            all = 0;
            fprintf(stderr, "frequency error case %zu: status %d\n", i, st);
        }
    }
    CHECK(all);
    posenc_rope_scaling nulls = { .type = POSENC_ROPE_LONGROPE, .max_position_embeddings = 100, .factors_len = 4 };
    CHECK(rope_freqs(f, 8, 8, 10000, &nulls, 0, &att) == POSENC_ERR_NULL_POINTER);
    posenc_rope_scaling dyn = { .type = POSENC_ROPE_DYNAMIC, .factor = 2, .max_position_embeddings = 8 };
    CHECK(rope_freqs(f, 8, 2, 10000, &dyn, 0, &att) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(rope_freqs(f, 8, 7, 10000, NULL, 0, &att) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(rope_freqs(f, 8, 0, 10000, NULL, 0, &att) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(rope_freqs(f, 8, 8, 1.0, NULL, 0, &att) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(rope_freqs(f, 8, 8, NAN, NULL, 0, &att) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(rope_freqs(f, 3, 8, 10000, NULL, 0, &att) == POSENC_ERR_BUFFER_TOO_SMALL);
    CHECK(rope_freqs(NULL, 8, 8, 10000, NULL, 0, &att) == POSENC_ERR_NULL_POINTER);
    CHECK(rope_freqs(f, 8, 8, 10000, NULL, 0, NULL) == POSENC_ERR_NULL_POINTER);
    int untouched = att == 42;
    for (int i = 0; i < 8; i++)
        untouched &= f[i] == 42;
    CHECK(untouched);

    /* llama3 with low == high (Llama 4 Scout: 1 and 1): no smooth band, long wavelengths / factor */
    posenc_rope_scaling equal = { .type = POSENC_ROPE_LLAMA3, .factor = 16, .original_max_position_embeddings = 8192,
                                  .low_freq_factor = 1, .high_freq_factor = 1 };
    double g[64];
    CHECK(rope_freqs(g, 64, 128, 500000, &equal, 0, &att) == POSENC_OK && att == 1.0);
    int same = 1;
    for (int k = 0; k < 64; k++) {
        double fk = pow(500000.0, -2.0 * k / 128.0), wavelen = 2 * 3.14159265358979323846 / fk;
        double expected = wavelen > 8192.0 ? fk / 16 : fk;
        same &= fabs(g[k] - expected) <= 1e-15 * expected;
    }
    CHECK(same);
}

/* ------------------------------------------------------------ cache, apply */

static uint32_t lcg_state = 12345;
static float rnd(void) /* in [-1, 1), exact in float */
{
    lcg_state = lcg_state * 1664525u + 1013904223u;
    return (float)(lcg_state >> 8) / 8388608.0f - 1.0f;
}

static void test_cache(void)
{
    enum { R = 64, H = 24, LEN = 70 };
    double f[H], att = 1.25;
    float c[LEN * H], s[LEN * H];
    for (size_t k = 0; k < H; k++)
        f[k] = theta(10000, k, R);
    static const int32_t offsets[] = { 0, -35, (1 << 20) - 40, (1 << 24) - 40 };
    for (size_t oi = 0; oi < 4; oi++) {
        int st = rope_cache_with(c, s, LEN * H, LEN, offsets[oi], NULL, 2 * H, f, att, 0);
        double worst = 0;
        for (size_t r = 0; r < LEN; r++)
            for (size_t k = 0; k < H; k++) {
                double a = ((double)offsets[oi] + (double)r) * f[k];
                worst = fmax(worst, fabs(c[r * H + k] - att * cos(a)));
                worst = fmax(worst, fabs(s[r * H + k] - att * sin(a)));
            }
        CHECKF(st == 0 && worst <= EPS23, "cache offset %d: error %g", offsets[oi], worst);
    }
    /* explicit positions, float32 recipe */
    int32_t pos[LEN];
    for (size_t r = 0; r < LEN; r++)
        pos[r] = (int32_t)(r * 7919u * 131u) - (1 << 22);
    CHECK(rope_cache_with(c, s, LEN * H, LEN, 0, pos, 2 * H, f, att, 1) == 0);
    int exact = 1;
    for (size_t r = 0; r < LEN; r++)
        for (size_t k = 0; k < H; k++) {
            float a = (float)pos[r] * (float)f[k];
            exact &= c[r * H + k] == (float)cos((double)a) * (float)att;
            exact &= s[r * H + k] == (float)sin((double)a) * (float)att;
        }
    CHECK(exact);
    float keep = c[0] = 42;
    CHECK(rope_cache_with(c, s, LEN * H - 1, LEN, 0, NULL, 2 * H, f, att, 0) == POSENC_ERR_BUFFER_TOO_SMALL);
    CHECK(rope_cache_with(c, s, LEN * H, LEN, INT32_MAX - 10, NULL, 2 * H, f, att, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(rope_cache_with(c, s, LEN * H, LEN, 0, NULL, 2 * H - 1, f, att, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(rope_cache_with(c, s, LEN * H, LEN, 0, NULL, 2 * H, f, -1.0, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(rope_cache_with(c, s, LEN * H, LEN, 0, NULL, 2 * H, f, att, 2) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(rope_cache_with(c, c + 1, LEN * H, LEN, 0, NULL, 2 * H, f, att, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(rope_cache_with(c, s, SIZE_MAX, SIZE_MAX / 4, 0, pos, 2 * H, f, att, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(rope_cache_with(NULL, s, LEN * H, LEN, 0, NULL, 2 * H, f, att, 0) == POSENC_ERR_NULL_POINTER);
    f[3] = NAN;
    CHECK(rope_cache_with(c, s, LEN * H, LEN, 0, NULL, 2 * H, f, att, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(c[0] == keep);
}

/* The double-precision rotation of one head, layout by pair index. */
static void rotate_ref(double *out, const float *v, size_t head_dim, size_t rot, int layout, double p,
                       const double *f, double att)
{
    for (size_t i = 0; i < head_dim; i++)
        out[i] = v[i];
    for (size_t k = 0; k < rot / 2; k++) {
        size_t a = layout ? 2 * k : k, b = layout ? 2 * k + 1 : k + rot / 2;
        double c = att * cos(p * f[k]), s = att * sin(p * f[k]);
        out[a] = v[a] * c - v[b] * s;
        out[b] = v[b] * c + v[a] * s;
    }
}

/* Applies RoPE and checks every output against rotate_ref: pairs within
 * 2^-22 * A * (|a| + |b|), untouched dims bit for bit. Returns 1 when all hold. */
static int check_apply(size_t batch, size_t seq, size_t heads, size_t head_dim, size_t rot, int layout,
                       int32_t offset, const int32_t *pos, size_t pos_len, double att)
{
    size_t n = batch * seq * heads * head_dim;
    float *x = malloc(n * sizeof *x), *x0 = malloc(n * sizeof *x0);
    double *f = malloc(rot / 2 * sizeof *f), *ref = malloc(head_dim * sizeof *ref);
    for (size_t i = 0; i < n; i++)
        x0[i] = x[i] = rnd() * 3.0f;
    for (size_t k = 0; k < rot / 2; k++)
        f[k] = theta(10000, k, rot);
    int ok = rope_apply_with(x, n, batch, seq, heads, head_dim, rot, layout, f, att, offset, pos, pos_len,
                               0) == POSENC_OK;
    for (size_t b = 0; b < batch && ok; b++)
        for (size_t s = 0; s < seq; s++) {
            double p = pos ? pos[pos_len == seq ? s : b * seq + s] : (double)offset + (double)s;
            for (size_t h = 0; h < heads; h++) {
                size_t at = ((b * seq + s) * heads + h) * head_dim;
                rotate_ref(ref, x0 + at, head_dim, rot, layout, p, f, att);
                for (size_t k = 0; k < rot / 2; k++) {
                    size_t a = layout ? 2 * k : k, bb = layout ? 2 * k + 1 : k + rot / 2;
                    double bound = EPS22 * att * (fabs(x0[at + a]) + fabs(x0[at + bb]));
                    ok &= fabs(x[at + a] - ref[a]) <= bound && fabs(x[at + bb] - ref[bb]) <= bound;
                }
                for (size_t i = rot; i < head_dim; i++)
                    ok &= x[at + i] == x0[at + i];
            }
        }
    free(x), free(x0), free(f), free(ref);
    return ok;
}

static void test_apply(void)
{
    int32_t pos[2 * 40];
    for (int i = 0; i < 80; i++)
        pos[i] = (i * 37) % 50 - 5 + (i >= 40 ? (1 << 20) : 0);
    for (int layout = 0; layout < 2; layout++) {
        CHECKF(check_apply(2, 3, 2, 8, 8, layout, 0, NULL, 0, 1.0), "layout %d small", layout);
        CHECKF(check_apply(3, 5, 4, 10, 6, layout, 7, NULL, 0, 1.3), "layout %d partial", layout);
        CHECKF(check_apply(1, 70, 2, 128, 128, layout, (1 << 20) - 35, NULL, 0, 1.0), "layout %d 2^20", layout);
        CHECKF(check_apply(2, 40, 3, 16, 12, layout, 0, pos, 40, 1.0), "layout %d positions per row", layout);
        CHECKF(check_apply(2, 40, 3, 16, 12, layout, 0, pos, 80, 1.0), "layout %d positions per batch", layout);
        /* wider than one stack tile: 1500 pairs (two column blocks) */
        CHECKF(check_apply(2, 3, 1, 3001, 3000, layout, 5, NULL, 0, 1.0), "layout %d wide", layout);
        CHECKF(check_apply(1, 0, 2, 8, 8, layout, 0, NULL, 0, 1.0), "layout %d empty", layout);
    }
}

/* apply == rotating by the cache's floats with float arithmetic, bit for bit, in both precisions */
static void test_apply_matches_cache(void)
{
    enum { S = 33, HEADS = 3, D = 20, R = 16 };
    float x[S * HEADS * D], y[S * HEADS * D], c[S * R / 2], s[S * R / 2];
    double f[R / 2];
    for (size_t k = 0; k < R / 2; k++)
        f[k] = theta(500000, k, R) / 3;
    for (int precision = 0; precision < 2; precision++)
        for (int layout = 0; layout < 2; layout++) {
            for (size_t i = 0; i < S * HEADS * D; i++)
                x[i] = y[i] = rnd();
            CHECK(rope_cache_with(c, s, S * R / 2, S, 1000003, NULL, R, f, 1.1, precision) == 0);
            CHECK(rope_apply_with(x, S * HEADS * D, 1, S, HEADS, D, R, layout, f, 1.1, 1000003, NULL, 0,
                                    precision) == 0);
            int same = 1;
            for (size_t r = 0; r < S; r++)
                for (size_t h = 0; h < HEADS; h++) {
                    float *v = y + (r * HEADS + h) * D;
                    for (size_t k = 0; k < R / 2; k++) {
                        size_t a = layout ? 2 * k : k, b = layout ? 2 * k + 1 : k + R / 2;
                        float ck = c[r * R / 2 + k], sk = s[r * R / 2 + k], va = v[a], vb = v[b];
                        /* both precisions rotate in float, as torch does */
                        float ac = va * ck, bs = vb * sk, bc = vb * ck, as = va * sk;
                        v[a] = ac - bs;
                        v[b] = bc + as;
                    }
                }
            same = memcmp(x, y, sizeof x) == 0;
            CHECKF(same, "precision %d layout %d", precision, layout);
        }
}

/* Explicit positions: runs of consecutive positions (longer than an anchor run,
 * broken, ending at INT32_MAX) give the cache's values bit for bit, and the
 * double-precision rotation within the documented bound. */
static void test_apply_positions_runs(void)
{
    enum { S = 1600, HEADS = 2, D = 8, R = 8 };
    static int32_t pos[S];
    static float x[S * HEADS * D], y[S * HEADS * D], c[S * R / 2], s[S * R / 2];
    double f[R / 2];
    for (size_t k = 0; k < R / 2; k++)
        f[k] = theta(10000, k, R);
    for (size_t r = 0; r < S; r++)
        pos[r] = r < 1500 ? (int32_t)(5 + r) : r < 1510 ? (int32_t)(1000 - r) : r < 1590 ? (int32_t)(100 + r) : INT32_MAX - (int32_t)(S - 1 - r);
    for (size_t i = 0; i < S * HEADS * D; i++)
        x[i] = y[i] = rnd();
    CHECK(rope_cache_with(c, s, S * R / 2, S, 0, pos, R, f, 1.0, 0) == 0);
    CHECK(rope_apply_with(x, S * HEADS * D, 1, S, HEADS, D, R, 0, f, 1.0, 0, pos, S, 0) == 0);
    double worst = 0;
    for (size_t r = 0; r < S; r++)
        for (size_t h = 0; h < HEADS; h++) {
            float *v = y + (r * HEADS + h) * D;
            for (size_t k = 0; k < R / 2; k++) {
                float ck = c[r * R / 2 + k], sk = s[r * R / 2 + k], va = v[k], vb = v[k + R / 2];
                float ac = va * ck, bs = vb * sk, bc = vb * ck, as = va * sk;
                v[k] = ac - bs;
                v[k + R / 2] = bc + as;
                double a = (double)pos[r] * f[k];
                double ea = fabs((double)ck - cos(a)), es = fabs((double)sk - sin(a));
                worst = fmax(worst, fmax(ea, es));
            }
        }
    CHECK(memcmp(x, y, sizeof x) == 0);
    CHECKF(worst <= 1.0 / 8388608.0, "cache error %g", worst);
}

/* x [b][s][h] -> [b][h][s] (to_bhsd) or back: the head vectors move whole. */
static void permute_heads(float *dst, const float *src, size_t B, size_t S, size_t H, size_t D, int to_bhsd)
{
    for (size_t b = 0; b < B; b++)
        for (size_t r = 0; r < S; r++)
            for (size_t h = 0; h < H; h++) {
                size_t bshd = ((b * S + r) * H + h) * D, bhsd = ((b * H + h) * S + r) * D;
                memcpy(dst + (to_bhsd ? bhsd : bshd), src + (to_bhsd ? bshd : bhsd), D * sizeof(float));
            }
}

/* BHSD: x[b][h][s] rotated equals BSHD's x[b][s][h], bit for bit, for every
 * layout, precision and kind of positions (offset, per row, per batch and
 * row); shapes with one tile of rows, several tiles and a partial one, more
 * than one block of frequencies, and a single row (decoding). */
static void test_apply_bhsd_is_a_permutation(void)
{
    static const size_t shapes[][5] = { /* B, S, H, D, R */
        { 2, 37, 3, 10, 8 }, { 1, 70, 2, 300, 260 }, { 2, 45, 3, 256, 256 }, { 3, 1, 4, 16, 16 },
    };
    for (size_t si = 0; si < sizeof shapes / sizeof *shapes; si++) {
        size_t B = shapes[si][0], S = shapes[si][1], H = shapes[si][2], D = shapes[si][3], R = shapes[si][4];
        size_t N = B * S * H * D;
        float *bshd = malloc(N * sizeof *bshd), *bhsd = malloc(N * sizeof *bhsd), *want = malloc(N * sizeof *want);
        double *f = malloc(R / 2 * sizeof *f);
        int32_t *pos = malloc(B * S * sizeof *pos);
        if (!bshd || !bhsd || !want || !f || !pos) {
            CHECK(!"allocation");
            free(bshd), free(bhsd), free(want), free(f), free(pos);
            return;
        }
        for (size_t k = 0; k < R / 2; k++)
            f[k] = theta(10000, k, R);
        for (size_t i = 0; i < B * S; i++)
            pos[i] = (int32_t)((i * 13) % 29) - 6;
        const size_t positions_len[] = { 0, S, B * S };
        for (int layout = 0; layout < 2; layout++)
            for (int precision = 0; precision < 2; precision++)
                for (size_t pi = 0; pi < 3; pi++) {
                    const int32_t *p = positions_len[pi] ? pos : NULL;
                    for (size_t i = 0; i < N; i++)
                        bshd[i] = rnd();
                    permute_heads(bhsd, bshd, B, S, H, D, 1); /* the permuted copy */
                    int st = rope_apply_with(bshd, N, B, S, H, D, R, layout, f, 1.25, -3, p, positions_len[pi],
                                               precision);
                    int st2 = rope_apply_ordered_with(bhsd, N, B, S, H, D, POSENC_ROPE_ORDER_BHSD, R, layout, f,
                                                        1.25, -3, p, positions_len[pi], precision);
                    permute_heads(want, bshd, B, S, H, D, 1);
                    CHECKF(st == 0 && st2 == 0 && memcmp(bhsd, want, N * sizeof *want) == 0,
                           "shape %zu layout %d precision %d positions %zu", si, layout, precision, positions_len[pi]);
                }
        free(bshd), free(bhsd), free(want), free(f), free(pos);
    }

    enum { B = 2, S = 5, H = 3, D = 8, N = B * S * H * D };
    float x[N], y[N];
    double f[D / 2];
    for (size_t k = 0; k < D / 2; k++)
        f[k] = theta(10000, k, D);
    /* BSHD through the ordered entry is posenc_rope_apply */
    for (size_t i = 0; i < N; i++)
        x[i] = y[i] = rnd();
    CHECK(rope_apply_with(x, N, B, S, H, D, D, 0, f, 1.0, 5, NULL, 0, 0) == 0);
    CHECK(rope_apply_ordered_with(y, N, B, S, H, D, POSENC_ROPE_ORDER_BSHD, D, 0, f, 1.0, 5, NULL, 0, 0) == 0);
    CHECK(memcmp(x, y, sizeof y) == 0);
    /* errors: an unknown order, and the checks of posenc_rope_apply; nothing written */
    CHECK(rope_apply_ordered_with(x, N, B, S, H, D, 2, D, 0, f, 1.0, 0, NULL, 0, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(rope_apply_ordered_with(x, N, B, S, H, D, -1, D, 0, f, 1.0, 0, NULL, 0, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(rope_apply_ordered_with(x, N - 1, B, S, H, D, 1, D, 0, f, 1.0, 0, NULL, 0, 0) == POSENC_ERR_BUFFER_TOO_SMALL);
    CHECK(rope_apply_ordered_with(x, N, B, S, H, D, 1, D, 0, f, 1.0, 0, (const int32_t *)(const void *)(x + 8), S,
                                    0) == POSENC_ERR_INVALID_ARGUMENT); /* positions inside x */
    CHECK(rope_apply_ordered_with(NULL, N, B, S, H, D, 1, D, 0, f, 1.0, 0, NULL, 0, 0) == POSENC_ERR_NULL_POINTER);
    CHECK(memcmp(x, y, sizeof y) == 0);
}

static void test_apply_errors(void)
{
    float x[96];
    double f[4] = { 1, 0.1, 0.01, 0.001 };
    int32_t pos[6] = { 0 };
    for (int i = 0; i < 96; i++)
        x[i] = 42;
    CHECK(rope_apply_with(x, 96, 1, 6, 2, 8, 7, 0, f, 1, 0, NULL, 0, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(rope_apply_with(x, 96, 1, 6, 2, 8, 10, 0, f, 1, 0, NULL, 0, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(rope_apply_with(x, 96, 1, 6, 0, 8, 8, 0, f, 1, 0, NULL, 0, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(rope_apply_with(x, 96, 0, 6, 2, 8, 8, 0, f, 1, 0, NULL, 0, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(rope_apply_with(x, 96, 1, 6, 2, 8, 8, 2, f, 1, 0, NULL, 0, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(rope_apply_with(x, 96, 1, 6, 2, 8, 8, 0, f, 1, 0, NULL, 0, 5) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(rope_apply_with(x, 96, 1, 6, 2, 8, 8, 0, f, INFINITY, 0, NULL, 0, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(rope_apply_with(x, 96, 1, 6, 2, 8, 8, 0, f, 1, INT32_MAX - 2, NULL, 0, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(rope_apply_with(x, 96, 1, 6, 2, 8, 8, 0, f, 1, 0, pos, 5, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(rope_apply_with(x, 96, 1, 6, 2, 8, 8, 0, f, 1, 0, NULL, 6, 0) == POSENC_ERR_NULL_POINTER);
    CHECK(rope_apply_with(x, 95, 1, 6, 2, 8, 8, 0, f, 1, 0, NULL, 0, 0) == POSENC_ERR_BUFFER_TOO_SMALL);
    CHECK(rope_apply_with(x, 96, SIZE_MAX / 2, 6, 2, 8, 8, 0, f, 1, 0, NULL, 0, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(rope_apply_with(x, 96, INT32_MAX, INT32_MAX, INT32_MAX, 8, 8, 0, f, 1, 0, NULL, 0, 0) == POSENC_ERR_SIZE_OVERFLOW);
    f[2] = -INFINITY;
    CHECK(rope_apply_with(x, 96, 1, 6, 2, 8, 8, 0, f, 1, 0, NULL, 0, 0) == POSENC_ERR_INVALID_ARGUMENT);
    int untouched = 1;
    for (int i = 0; i < 96; i++)
        untouched &= x[i] == 42;
    CHECK(untouched);
}

/* ------------------------------------------------------------ permutation */

static void test_permute(void)
{
    enum { HEADS = 3, D = 10, R = 8, IN = 5 };
    float w[HEADS * D * IN], wp[HEADS * D * IN], back[HEADS * D * IN], in[IN];
    float q1[HEADS * D], q2[HEADS * D];
    double f[R / 2];
    for (size_t i = 0; i < HEADS * D * IN; i++)
        w[i] = rnd();
    for (size_t i = 0; i < IN; i++)
        in[i] = rnd();
    for (size_t k = 0; k < R / 2; k++)
        f[k] = theta(10000, k, R);
    CHECK(posenc_rope_permute_weights(wp, sizeof wp / 4, w, sizeof w / 4, HEADS, D, R, IN,
                                      POSENC_ROPE_INTERLEAVED, POSENC_ROPE_HALF) == 0);
    CHECK(posenc_rope_permute_weights(back, sizeof back / 4, wp, sizeof wp / 4, HEADS, D, R, IN,
                                      POSENC_ROPE_HALF, POSENC_ROPE_INTERLEAVED) == 0);
    CHECK(memcmp(back, w, sizeof w) == 0);
    /* q = W x, then RoPE: interleaved on W equals half on W' (features permuted) */
    for (size_t r = 0; r < HEADS * D; r++) {
        double a1 = 0, a2 = 0;
        for (size_t i = 0; i < IN; i++)
            a1 += (double)w[r * IN + i] * in[i], a2 += (double)wp[r * IN + i] * in[i];
        q1[r] = (float)a1, q2[r] = (float)a2;
    }
    CHECK(rope_apply_with(q1, HEADS * D, 1, 1, HEADS, D, R, POSENC_ROPE_INTERLEAVED, f, 1, 12345, NULL, 0, 0) == 0);
    CHECK(rope_apply_with(q2, HEADS * D, 1, 1, HEADS, D, R, POSENC_ROPE_HALF, f, 1, 12345, NULL, 0, 0) == 0);
    int same = 1;
    for (size_t h = 0; h < HEADS; h++)
        for (size_t j = 0; j < D; j++) {
            size_t src = j < R ? (j < R / 2 ? 2 * j : 2 * (j - R / 2) + 1) : j;
            same &= q2[h * D + j] == q1[h * D + src];
        }
    CHECK(same);
    CHECK(posenc_rope_permute_weights(back, sizeof back / 4, w, sizeof w / 4, HEADS, D, R, IN, 0, 0) == 0 &&
          memcmp(back, w, sizeof w) == 0);
    back[0] = 42;
    CHECK(posenc_rope_permute_weights(w + 1, sizeof w / 4, w, sizeof w / 4, HEADS, D, R, IN, 0, 1) ==
          POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_rope_permute_weights(back, sizeof back / 4, w, sizeof w / 4, HEADS, D, R + 1, IN, 0, 1) ==
          POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_rope_permute_weights(back, sizeof back / 4, w, sizeof w / 4, HEADS, D, 12, IN, 0, 1) ==
          POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_rope_permute_weights(back, sizeof back / 4, w, sizeof w / 4, HEADS, D, R, IN, 0, 3) ==
          POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_rope_permute_weights(back, sizeof back / 4 - 1, w, sizeof w / 4, HEADS, D, R, IN, 0, 1) ==
          POSENC_ERR_BUFFER_TOO_SMALL);
    CHECK(posenc_rope_permute_weights(back, sizeof back / 4, NULL, sizeof w / 4, HEADS, D, R, IN, 0, 1) ==
          POSENC_ERR_NULL_POINTER);
    CHECK(back[0] == 42);
}

void test_rope(void)
{
    test_frequencies();
    test_frequency_errors();
    test_cache();
    test_apply();
    test_apply_matches_cache();
    test_apply_positions_runs();
    test_apply_errors();
    test_apply_bhsd_is_a_permutation();
    test_permute();
}
