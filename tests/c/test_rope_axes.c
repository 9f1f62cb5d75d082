/* RoPE over several position axes and the M-RoPE positions, against the
 * formulas of posenc.h evaluated here in double (HF's Qwen2-VL get_rope_index
 * written out again for the positions), and their error statuses. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rope_calls.h"
#include "posenc.h"

#define EPS23 (1.0 / 8388608.0) /* 2^-23 */

static int same_floats(const float *a, const float *b, size_t n)
{
    return memcmp(a, b, n * sizeof *a) == 0;
}

/* Every value of the cache against A cos(p_a f_k), a the axis of k's section. */
static void test_cache_formula(void)
{
    enum { LEN = 1500, R = 20, HALF = R / 2 };
    static const size_t sections[3] = { 2, 5, 3 };
    double f[HALF];
    int32_t *pos = malloc(3 * LEN * sizeof *pos);
    float *c = malloc(LEN * HALF * sizeof *c), *s = malloc(LEN * HALF * sizeof *s);
    for (size_t k = 0; k < HALF; k++)
        f[k] = pow(10000.0, -2.0 * (double)k / R);
    for (int r = 0; r < LEN; r++) { /* runs, repeats and jumps on each axis */
        pos[r] = r / 4;
        pos[LEN + r] = r % 37 == 0 ? 1 << 20 : r;
        pos[2 * LEN + r] = r % 9 - 4;
    }
    for (int precision = 0; precision < 2; precision++) {
        int st = rope_axes_cache_with(c, s, LEN * HALF, LEN, pos, 3, sections, 0, R, f, 1.5, precision);
        double worst = 0;
        for (size_t r = 0; r < LEN; r++)
            for (size_t k = 0; k < HALF; k++) {
                size_t a = k < 2 ? 0 : k < 7 ? 1 : 2;
                double p = pos[a * LEN + r];
                /* the float32 recipe is off by half an ulp of the float angle */
                double angle = precision ? (double)((float)p * (float)f[k]) : p * f[k];
                worst = fmax(worst, fabs(c[r * HALF + k] - 1.5 * cos(angle)));
                worst = fmax(worst, fabs(s[r * HALF + k] - 1.5 * sin(angle)));
            }
        CHECKF(st == POSENC_OK && worst <= 2 * 1.5 * EPS23, "precision %d: status %d error %g", precision, st, worst);
    }
    free(pos);
    free(c);
    free(s);
}

/*
 * Qwen3-VL's interleaved M-RoPE (HF Qwen3VLTextRotaryEmbedding
 * .apply_interleaved_mrope): pair k on axis k % 3 when that is 1 or 2 and
 * k < 3 sections[axis], else on the temporal axis. mrope_section [24, 20, 20]
 * of 64 pairs, the real model's, through both the cache and the rotation
 * (half layout, one head: x = (1, 0) pairs rotate to (cos, sin)).
 */
static void test_interleaved_formula(void)
{
    enum { LEN = 40, R = 128, HALF = R / 2 };
    static const size_t sections[3] = { 24, 20, 20 };
    double f[HALF];
    int32_t pos[3 * LEN];
    float c[LEN * HALF], s[LEN * HALF], x[LEN * R];
    for (size_t k = 0; k < HALF; k++)
        f[k] = pow(5000000.0, -2.0 * (double)k / R);
    for (int r = 0; r < LEN; r++) { /* text, then an image grid: temporal still, height and width varying */
        pos[r] = r < 10 ? r : 10;
        pos[LEN + r] = r < 10 ? r : 10 + (r - 10) / 6;
        pos[2 * LEN + r] = r < 10 ? r : 10 + (r - 10) % 6;
    }
    memset(x, 0, sizeof x);
    for (size_t r = 0; r < LEN; r++)
        for (size_t k = 0; k < HALF; k++)
            x[r * R + k] = 1.0f;
    int st = rope_axes_cache_with(c, s, LEN * HALF, LEN, pos, 3, sections, POSENC_AXES_INTERLEAVED, R, f, 1.0, 0);
    int sa = rope_axes_apply_with(x, LEN * R, 1, LEN, 1, R, POSENC_ROPE_ORDER_BSHD, R, POSENC_ROPE_HALF, f, 1.0, pos,
                                    3 * LEN, 3, sections, POSENC_AXES_INTERLEAVED, 0);
    double worst = 0;
    size_t on_axis[3] = { 0, 0, 0 };
    for (size_t k = 0; k < HALF; k++) {
        size_t a = k < 60 ? k % 3 : 0; /* 3 * 20 pairs interleave t h w; the rest are temporal */
        on_axis[a]++;
        for (size_t r = 0; r < LEN; r++) {
            double angle = pos[a * LEN + r] * f[k];
            worst = fmax(worst, fabs(c[r * HALF + k] - cos(angle)));
            worst = fmax(worst, fabs(s[r * HALF + k] - sin(angle)));
            worst = fmax(worst, fabs(x[r * R + k] - cos(angle)));
            worst = fmax(worst, fabs(x[r * R + HALF + k] - sin(angle)));
        }
    }
    CHECKF(st == POSENC_OK && sa == POSENC_OK && worst <= 2 * EPS23, "status %d %d error %g", st, sa, worst);
    CHECK(on_axis[0] == 24 && on_axis[1] == 20 && on_axis[2] == 20); /* sections count each axis's pairs */
    /* an axis whose last pair a + 3 (sections[a] - 1) does not exist: [8, 28, 28] of 64 */
    static const size_t too_many[3] = { 8, 28, 28 };
    CHECK(rope_axes_cache_with(c, s, LEN * HALF, LEN, pos, 3, too_many, POSENC_AXES_INTERLEAVED, R, f, 1.0, 0) ==
          POSENC_ERR_INVALID_ARGUMENT);
    CHECK(rope_axes_cache_with(c, s, LEN * HALF, LEN, pos, 3, too_many, POSENC_AXES_SECTIONED, R, f, 1.0, 0) == POSENC_OK);
    CHECK(rope_axes_cache_with(c, s, LEN * HALF, LEN, pos, 3, sections, 2, R, f, 1.0, 0) == POSENC_ERR_INVALID_ARGUMENT);
}

/* Every axis at the same positions: posenc_rope_cache and posenc_rope_apply bit for bit. */
static void test_equal_axes_are_plain_rope(void)
{
    enum { SEQ = 1300, BATCH = 2, HEADS = 3, D = 36, HALF = D / 2, N = BATCH * SEQ * HEADS * D };
    static const size_t sections[3] = { 6, 6, 6 }, two[2] = { 9, 9 };
    double f[HALF];
    int32_t plain[BATCH * SEQ], *three = malloc(3 * BATCH * SEQ * sizeof *three);
    float *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
    float *c1 = malloc(SEQ * HALF * sizeof *c1), *s1 = malloc(SEQ * HALF * sizeof *s1);
    float *c2 = malloc(SEQ * HALF * sizeof *c2), *s2 = malloc(SEQ * HALF * sizeof *s2);
    for (size_t k = 0; k < HALF; k++)
        f[k] = pow(500000.0, -2.0 * (double)k / D);
    for (int i = 0; i < BATCH * SEQ; i++)
        plain[i] = i % 11 == 5 ? 3 * i : i - 100;
    for (int a = 0; a < 3; a++)
        memcpy(three + a * BATCH * SEQ, plain, sizeof plain);
    for (int precision = 0; precision < 2; precision++)
        for (int layout = 0; layout < 2; layout++)
            for (int order = 0; order < 2; order++) {
                for (int i = 0; i < N; i++)
                    x[i] = y[i] = sinf((float)i * 0.37f);
                int a = rope_apply_ordered_with(x, N, BATCH, SEQ, HEADS, D, order, D, layout, f, 1.0, 0, plain,
                                                  BATCH * SEQ, precision);
                int b = rope_axes_apply_with(y, N, BATCH, SEQ, HEADS, D, order, D, layout, f, 1.0, three,
                                               3 * BATCH * SEQ, 3, sections, 0, precision);
                CHECKF(a == POSENC_OK && b == POSENC_OK && same_floats(x, y, N), "apply precision %d layout %d order %d",
                       precision, layout, order);
            }
    for (int a = 0; a < 2; a++) /* [2][seq] from the same positions */
        memcpy(three + a * SEQ, plain, SEQ * sizeof *plain);
    int st1 = rope_cache_with(c1, s1, SEQ * HALF, SEQ, 0, plain, D, f, 1.25, 0);
    int st2 = rope_axes_cache_with(c2, s2, SEQ * HALF, SEQ, three, 2, two, 0, D, f, 1.25, 0);
    CHECK(st1 == POSENC_OK && st2 == POSENC_OK && same_floats(c1, c2, SEQ * HALF) && same_floats(s1, s2, SEQ * HALF));
    free(three);
    free(x);
    free(y);
    free(c1);
    free(s1);
    free(c2);
    free(s2);
}

/* HF get_rope_index, written out again for spans (Qwen2-VL; Qwen2.5-VL's float32 temporal index). */
static size_t rope_index(int32_t *out, size_t cap, const posenc_mrope_span *spans, size_t n, size_t m, double tps)
{
    int32_t (*rows)[3] = malloc(cap * sizeof *rows);
    size_t at = 0;
    int32_t st_idx = 0;
    for (size_t i = 0; i < n; i++) {
        const posenc_mrope_span *s = &spans[i];
        int32_t top = st_idx - 1;
        if (s->kind == POSENC_MROPE_TEXT) {
            for (size_t j = 0; j < s->t; j++, at++)
                rows[at][0] = rows[at][1] = rows[at][2] = top = st_idx + (int32_t)j;
        } else {
            for (size_t ti = 0; ti < s->t; ti++)
                for (size_t hi = 0; hi < s->h / m; hi++)
                    for (size_t wi = 0; wi < s->w / m; wi++, at++) {
                        float sec = s->kind == POSENC_MROPE_IMAGE ? 0.0f : (float)s->seconds_per_grid;
                        int32_t t = tps > 0 ? (int32_t)(((float)ti * sec) * (float)tps) : (int32_t)ti;
                        rows[at][0] = st_idx + t, rows[at][1] = st_idx + (int32_t)hi, rows[at][2] = st_idx + (int32_t)wi;
                        for (int a = 0; a < 3; a++)
                            top = rows[at][a] > top ? rows[at][a] : top;
                    }
        }
        st_idx = top + 1;
    }
    for (size_t r = 0; r < at; r++)
        for (int a = 0; a < 3; a++)
            out[a * at + r] = rows[r][a];
    free(rows);
    return at;
}

static void test_mrope_positions(void)
{
    static const posenc_mrope_span qwen2[] = {
        { POSENC_MROPE_TEXT, 12, 0, 0, 0 }, { POSENC_MROPE_IMAGE, 1, 28, 42, 0 }, { POSENC_MROPE_TEXT, 5, 0, 0, 0 },
        { POSENC_MROPE_VIDEO, 3, 4, 6, 0 }, { POSENC_MROPE_IMAGE, 2, 2, 2, 0 }, { POSENC_MROPE_TEXT, 0, 0, 0, 0 },
        { POSENC_MROPE_TEXT, 4, 0, 0, 0 },
    };
    static const posenc_mrope_span qwen25[] = {
        { POSENC_MROPE_TEXT, 2, 0, 0, 0 },       { POSENC_MROPE_VIDEO, 7, 2, 2, 2.0 / 3.0 },
        { POSENC_MROPE_IMAGE, 3, 2, 4, 5.0 },     { POSENC_MROPE_VIDEO, 5, 4, 2, 0.5 },
        { POSENC_MROPE_TEXT, 3, 0, 0, 0 },
    };
    enum { CAP = 2048 };
    int32_t *got = malloc(3 * CAP * sizeof *got), *want = malloc(3 * CAP * sizeof *want);
    size_t seq = rope_index(want, CAP, qwen2, 7, 2, 0);
    CHECK(seq == 12 + 14 * 21 + 5 + 3 * 2 * 3 + 2 + 4);
    CHECK(posenc_mrope_positions(got, 3 * CAP, seq, qwen2, 7, 0, 0) == POSENC_OK &&
          memcmp(got, want, 3 * seq * sizeof *got) == 0);
    CHECK(got[12 + 294] == 33 && got[seq + 12 + 294] == 33); /* the text after the image: 12 + 20 + 1 */
    seq = rope_index(want, CAP, qwen25, 5, 1, 25);
    CHECK(posenc_mrope_positions(got, 3 * CAP, seq, qwen25, 5, 1, 25) == POSENC_OK &&
          memcmp(got, want, 3 * seq * sizeof *got) == 0);
    free(got);
    free(want);
}

static void test_errors(void)
{
    float c[16], s[16], x[32];
    double f[4] = { 1, 0.1, 0.01, 0.001 };
    int32_t pos[12] = { 0 }, out[12];
    size_t sections[3] = { 2, 1, 1 }, bad_sum[3] = { 2, 2, 1 }, huge[2] = { SIZE_MAX, 5 };
    posenc_mrope_span odd = { POSENC_MROPE_IMAGE, 1, 3, 4, 0 }, text = { POSENC_MROPE_TEXT, 4, 0, 0, 0 };
    posenc_mrope_span wide = { POSENC_MROPE_VIDEO, 3, 2, 2, 1e9 }, kind = { 7, 1, 2, 2, 0 };
    posenc_mrope_span neg = { POSENC_MROPE_VIDEO, 3, 2, 2, -1 }, long_text = { POSENC_MROPE_TEXT, 0x7fffffff, 0, 0, 0 };
    posenc_mrope_span more[2] = { { POSENC_MROPE_TEXT, 0x7fffffff, 0, 0, 0 }, { POSENC_MROPE_TEXT, 2, 0, 0, 0 } };
    for (int i = 0; i < 16; i++)
        c[i] = s[i] = 42.0f;
    for (int i = 0; i < 32; i++)
        x[i] = 42.0f;
    for (int i = 0; i < 12; i++)
        out[i] = 42;
    CHECK(rope_axes_cache_with(NULL, s, 16, 4, pos, 3, sections, 0, 8, f, 1, 0) == POSENC_ERR_NULL_POINTER);
    CHECK(rope_axes_cache_with(c, s, 16, 4, NULL, 3, sections, 0, 8, f, 1, 0) == POSENC_ERR_NULL_POINTER);
    CHECK(rope_axes_cache_with(c, s, 16, 4, pos, 3, NULL, 0, 8, f, 1, 0) == POSENC_ERR_NULL_POINTER);
    CHECK(rope_axes_cache_with(c, s, 16, 4, pos, 3, bad_sum, 0, 8, f, 1, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(rope_axes_cache_with(c, s, 16, 4, pos, 2, huge, 0, 8, f, 1, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(rope_axes_cache_with(c, s, 16, 4, pos, 0, sections, 0, 8, f, 1, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(rope_axes_cache_with(c, s, 16, 4, pos, 5, sections, 0, 8, f, 1, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(rope_axes_cache_with(c, s, 16, 4, pos, 3, sections, 0, 7, f, 1, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(rope_axes_cache_with(c, s, 16, 4, pos, 3, sections, 0, 8, f, -1, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(rope_axes_cache_with(c, s, 16, 4, pos, 3, sections, 0, 8, f, 1, 2) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(rope_axes_cache_with(c, c + 1, 15, 4, pos, 3, sections, 0, 8, f, 1, 0) == POSENC_ERR_BUFFER_TOO_SMALL);
    CHECK(rope_axes_cache_with(c, c + 4, 12, 3, pos, 3, sections, 0, 8, f, 1, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(rope_axes_cache_with(c, s, 16, SIZE_MAX / 2, pos, 3, sections, 0, 8, f, 1, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(rope_axes_apply_with(x, 32, 1, 2, 2, 8, 0, 8, 0, f, 1, pos, 5, 3, sections, 0, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(rope_axes_apply_with(x, 32, 1, 2, 2, 8, 0, 8, 2, f, 1, pos, 6, 3, sections, 0, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(rope_axes_apply_with(x, 32, 1, 2, 2, 8, 2, 8, 0, f, 1, pos, 6, 3, sections, 0, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(rope_axes_apply_with(x, 32, 1, 2, 2, 6, 0, 8, 0, f, 1, pos, 6, 3, sections, 0, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(rope_axes_apply_with(x, 31, 1, 2, 2, 8, 0, 8, 0, f, 1, pos, 6, 3, sections, 0, 0) == POSENC_ERR_BUFFER_TOO_SMALL);
    CHECK(rope_axes_apply_with(x, 32, 1, 2, 2, 8, 0, 8, 0, f, 1, NULL, 6, 3, sections, 0, 0) == POSENC_ERR_NULL_POINTER);
    CHECK(posenc_mrope_positions(out, 12, 4, &odd, 1, 2, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_mrope_positions(out, 12, 5, &text, 1, 2, 0) == POSENC_ERR_INVALID_ARGUMENT); /* seq is 4 */
    CHECK(posenc_mrope_positions(out, 11, 4, &text, 1, 2, 0) == POSENC_ERR_BUFFER_TOO_SMALL);
    CHECK(posenc_mrope_positions(out, 12, 3, &wide, 1, 2, 4) == POSENC_ERR_INVALID_ARGUMENT); /* past int32 */
    CHECK(posenc_mrope_positions(out, 12, 3, &neg, 1, 2, 4) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_mrope_positions(out, 12, 1, &kind, 1, 2, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_mrope_positions(out, 12, 4, &text, 1, 2, -1) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_mrope_positions(out, 12, 4, &text, 1, 2, NAN) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_mrope_positions(out, 12, 4, NULL, 1, 2, 0) == POSENC_ERR_NULL_POINTER);
    CHECK(posenc_mrope_positions(NULL, 12, 4, &text, 1, 2, 0) == POSENC_ERR_NULL_POINTER);
    CHECK(posenc_mrope_positions(out, 12, 0x7fffffff, &long_text, 1, 2, 0) == POSENC_ERR_BUFFER_TOO_SMALL);
    CHECK(posenc_mrope_positions(out, 12, 0x80000001, more, 2, 2, 0) == POSENC_ERR_INVALID_ARGUMENT); /* past int32 */
    int untouched = 1;
    for (int i = 0; i < 16; i++)
        untouched &= c[i] == 42.0f && s[i] == 42.0f;
    for (int i = 0; i < 32; i++)
        untouched &= x[i] == 42.0f;
    for (int i = 0; i < 12; i++)
        untouched &= out[i] == 42;
    CHECK(untouched);
    CHECK(posenc_mrope_positions(out, 0, 0, NULL, 0, 2, 0) == POSENC_OK);
}

/* Outputs that share memory with an input read after the first write are refused, nothing written. */
static void test_overlaps(void)
{
    union {
        double d[64];
        float f[128];
        int32_t i[128];
    } mem;
    double f[4] = { 1, 0.1, 0.01, 0.001 };
    int32_t pos[12] = { 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3 };
    size_t sections[3] = { 2, 1, 1 };
    posenc_mrope_span spans[1];
    memset(spans, 0, sizeof spans); /* padding too: the bytes are compared below */
    spans[0].kind = POSENC_MROPE_TEXT;
    spans[0].t = 4;
    float sin_out[16];
    /* positions inside cos_out, inv_freq inside x, spans inside out (sections are the axes' own) */
    memcpy(mem.i, pos, sizeof pos);
    CHECK(rope_axes_cache_with(mem.f, sin_out, 16, 4, mem.i, 3, sections, 0, 8, f, 1, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(memcmp(mem.i, pos, sizeof pos) == 0);
    memcpy(mem.d, f, sizeof f);
    CHECK(rope_axes_apply_with(mem.f, 16, 1, 2, 1, 8, 0, 8, 0, mem.d, 1, pos, 6, 3, sections, 0, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(memcmp(mem.d, f, sizeof f) == 0);
    memcpy(mem.d, spans, sizeof spans);
    CHECK(posenc_mrope_positions(mem.i, 12, 4, (const posenc_mrope_span *)(const void *)mem.d, 1, 2, 0) ==
          POSENC_ERR_INVALID_ARGUMENT);
    CHECK(memcmp(mem.d, spans, sizeof spans) == 0);
    /* only touching: fine */
    CHECK(rope_axes_cache_with(mem.f, mem.f + 16, 16, 4, pos, 3, sections, 0, 8, f, 1, 0) == POSENC_OK);
}

void test_rope_axes(void)
{
    test_overlaps();
    test_cache_formula();
    test_interleaved_formula();
    test_equal_axes_are_plain_rope();
    test_mrope_positions();
    test_errors();
}
