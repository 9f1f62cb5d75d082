/* test_half_weights.c: 16-bit weights (posenc_encoder.h, posenc_weight_format).
 * The widening of every F16 and BF16 value against its definition evaluated
 * in double; nn_linear_half against nn_linear on the widened values, bit for
 * bit, over shapes that reach every tail; and whole models (the gated
 * RMSNorm block with its own head, the plain LayerNorm block with biases and
 * a tied head) whose F16 and BF16 parameter buffers, laid out here from the
 * header's statement, give the logits and the decoder's feeds of the same
 * values as F32, bit for bit. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "nn_kernels.h"
#include "posenc_encoder.h"

#define COUNT(a) (sizeof(a) / sizeof(a)[0])

static uint32_t half_rng = 4242;

static uint32_t next_bits(void)
{
    half_rng = half_rng * 1664525u + 1013904223u;
    return half_rng >> 8;
}

/* The value of a half by its definition: F16 (IEEE binary16: 5 exponent bits,
 * bias 15, 10 fraction bits) or BF16 (8 exponent bits, bias 127, 7 fraction
 * bits); subnormal when the exponent is 0; exponent all ones: Inf or NaN. */
static double half_value(uint16_t h, int format)
{
    int bf16 = format == POSENC_WEIGHT_FORMAT_BF16, fbits = bf16 ? 7 : 10, bias = bf16 ? 127 : 15;
    int e = (h >> fbits) & (bf16 ? 0xff : 0x1f), top = bf16 ? 0xff : 0x1f;
    double m = (double)(h & ((1u << fbits) - 1)), s = (h & 0x8000) ? -1.0 : 1.0;
    if (e == top)
        return m == 0 ? s * INFINITY : NAN;
    return s * (e == 0 ? ldexp(m, 1 - bias - fbits) : ldexp(1.0 + ldexp(m, -fbits), e - bias));
}

static void test_widen_values(void)
{
    static uint16_t all[65536];
    static float got[65536];
    for (uint32_t h = 0; h < 65536; h++)
        all[h] = (uint16_t)h;
    for (int format = POSENC_WEIGHT_FORMAT_F16; format <= POSENC_WEIGHT_FORMAT_BF16; format++) {
        nn_widen(got, all, format, 65536);
        size_t wrong = 0, first = 0;
        for (uint32_t h = 0; h < 65536; h++) {
            double want = half_value((uint16_t)h, format);
            int f16_special = format == POSENC_WEIGHT_FORMAT_F16 && ((h >> 10) & 0x1f) == 0x1f;
            if (f16_special) /* not values of the format: read as (-1)^s 2^16 (1 + m / 1024) */
                want = ((h & 0x8000) ? -1.0 : 1.0) * ldexp(1.0 + ldexp((double)(h & 0x3ff), -10), 16);
            int same = isnan(want) ? isnan(got[h]) : (double)got[h] == want && !signbit(got[h]) == !signbit(want);
            if (!same && wrong++ == 0)
                first = h;
        }
        CHECKF(wrong == 0, "%s: %zu halves widened wrong, the first 0x%04zx", format == 1 ? "F16" : "BF16", wrong, first);
        /* one at a time (the tails' path) as in bulk */
        int same = 1;
        for (uint32_t h = 0; h < 65536; h += 7) {
            float one;
            nn_widen(&one, all + h, format, 1);
            same &= memcmp(&one, &got[h], sizeof one) == 0;
        }
        CHECKF(same, "%s: nn_widen of one half differs from eight at a time", format == 1 ? "F16" : "BF16");
    }
}

/* A random half of moderate size (F16: exponent 0 .. 16, subnormals included; BF16: near 1 or 0). */
static uint16_t random_half(int format)
{
    uint32_t r = next_bits();
    if (format == POSENC_WEIGHT_FORMAT_F16)
        return (uint16_t)((r & 0x8000) | (((r >> 10) % 17) << 10) | (r & 0x3ff));
    uint32_t e = (r >> 16) % 8 == 0 ? 0 : 112 + (r >> 7) % 16;
    return (uint16_t)((r & 0x8000) | (e << 7) | (r & 0x7f));
}

static void test_linear_half(void)
{
    enum { MAXR = 7, MAXO = 21, MAXN = 70 };
    static float x[MAXR * MAXN], wide[MAXO * MAXN], b[MAXO], want[MAXR * MAXO], got[MAXR * MAXO], tile[4 * MAXN];
    static uint16_t w[MAXO * MAXN];
    static const size_t shapes[][3] = { { 1, 1, 1 },  { 1, 4, 8 },  { 1, 5, 13 }, { 1, 21, 70 }, { 1, 20, 64 },
                                        { 1, 9, 12 }, { 2, 4, 16 }, { 3, 9, 7 },  { 4, 8, 64 },  { 5, 13, 70 },
                                        { 7, 5, 33 }, { 2, 3, 9 } };
    for (size_t i = 0; i < COUNT(x); i++)
        x[i] = (float)((double)next_bits() / 8388608.0 - 1.0);
    for (size_t i = 0; i < COUNT(b); i++)
        b[i] = (float)((double)next_bits() / 16777216.0 - 0.5);
    for (int format = POSENC_WEIGHT_FORMAT_F16; format <= POSENC_WEIGHT_FORMAT_BF16; format++) {
        for (size_t t = 0; t < COUNT(shapes); t++) {
            size_t rows = shapes[t][0], outs = shapes[t][1], n = shapes[t][2];
            /* W [outs][n] as halves, rows back to back (n odd: rows start mid-float) */
            for (size_t i = 0; i < outs * n; i++) {
                w[i] = random_half(format);
                wide[i] = (float)half_value(w[i], format);
            }
            for (int biased = 0; biased <= 1; biased++) {
                nn_linear(want, MAXO, x, MAXN, rows, wide, n, outs, n, biased ? b : NULL);
                memset(got, 0, sizeof got);
                nn_linear_half(got, MAXO, x, MAXN, rows, w, format, outs, n, biased ? b : NULL, tile, 0);
                int same = 1;
                for (size_t r = 0; r < rows; r++)
                    same &= memcmp(want + r * MAXO, got + r * MAXO, outs * sizeof *got) == 0;
                CHECKF(same, "nn_linear_half %s %zu x %zu x %zu, bias %d: differs from nn_linear on the widened weights",
                       format == 1 ? "F16" : "BF16", rows, outs, n, biased);
                /* add 1: y + the same product, as nn_linear_add */
                for (size_t i = 0; i < COUNT(got); i++)
                    got[i] = want[i] = (float)((double)next_bits() / 8388608.0 - 1.0);
                nn_linear_add(want, MAXO, x, MAXN, rows, wide, n, outs, n, biased ? b : NULL);
                nn_linear_half(got, MAXO, x, MAXN, rows, w, format, outs, n, biased ? b : NULL, tile, 1);
                CHECKF(memcmp(want, got, sizeof got) == 0,
                       "nn_linear_half %s %zu x %zu x %zu, bias %d, add: differs from nn_linear_add on the widened weights",
                       format == 1 ? "F16" : "BF16", rows, outs, n, biased);
            }
        }
    }
}

/* ------------------------------------------------------------ whole models */

/* A model of the test and the segments of its parameter buffer, in the
 * header's order: each a run of floats, or of matrix values (halves in F16
 * and BF16, two to a float, the last float's upper half unused when odd). */
typedef struct half_case {
    const char *name;
    size_t d, heads, kv_heads, d_ff, layers, vocab;
    int gated; /* GATED, RMS, no biases, own head; else PLAIN, LAYER, all biases, tied */
    int rope;  /* RoPE (an even head_dim), else no positions */
} half_case;

enum { MAX_SEGMENTS = 64 };
typedef struct segments {
    size_t n;
    size_t len[MAX_SEGMENTS];
    int matrix[MAX_SEGMENTS];
} segments;

static void seg(segments *s, size_t len, int matrix)
{
    s->len[s->n] = len, s->matrix[s->n] = matrix, s->n++;
}

static segments segments_of(const half_case *c)
{
    segments s = { 0, { 0 }, { 0 } };
    size_t d = c->d, hd = d / c->heads, kvd = (c->kv_heads ? c->kv_heads : c->heads) * hd, f = c->d_ff;
    seg(&s, c->vocab * d, 1); /* embed.weight */
    for (size_t l = 0; l < c->layers; l++) {
        if (c->gated) {
            seg(&s, d * d, 1), seg(&s, kvd * d, 1), seg(&s, kvd * d, 1), seg(&s, d * d, 1); /* q, k, v, o */
            seg(&s, d, 0);                                                                   /* norm1 (RMS) */
            seg(&s, f * d, 1), seg(&s, f * d, 1), seg(&s, d * f, 1);                         /* gate, up, down */
            seg(&s, d, 0);                                                                   /* norm2 */
        } else {
            for (int p = 0; p < 4; p++)
                seg(&s, d * d, 1), seg(&s, d, 0); /* q, k, v, out: weight, bias */
            seg(&s, 2 * d, 0);                    /* norm1: weight, bias */
            seg(&s, f * d, 1), seg(&s, f, 0), seg(&s, d * f, 1), seg(&s, d, 0);
            seg(&s, 2 * d, 0); /* norm2 */
        }
    }
    seg(&s, c->gated ? d : 2 * d, 0); /* the final norm */
    if (c->gated)
        seg(&s, c->vocab * d, 1); /* lm_head.weight */
    return s;
}

static posenc_encoder_config half_config(const half_case *c, int format)
{
    posenc_encoder_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.vocab_size = c->vocab, cfg.d_model = c->d, cfg.heads = c->heads, cfg.d_ff = c->d_ff, cfg.layers = c->layers;
    cfg.norm = POSENC_NORM_PRE, cfg.final_norm = 1, cfg.embed_scale = 1.0;
    cfg.positional = c->rope ? POSENC_POSITIONAL_ROPE : POSENC_POSITIONAL_NONE;
    cfg.weight_format = format;
    if (c->gated) {
        cfg.norm_kind = POSENC_NORM_KIND_RMS, cfg.mlp = POSENC_MLP_GATED, cfg.activation = POSENC_ACTIVATION_SILU;
        cfg.kv_heads = c->kv_heads, cfg.attention_bias = POSENC_ATTENTION_BIAS_NONE, cfg.lm_head = POSENC_LM_HEAD_OWN;
    } else {
        cfg.activation = POSENC_ACTIVATION_GELU, cfg.lm_head = POSENC_LM_HEAD_TIED;
    }
    return cfg;
}

/* The F32 buffer and the 16-bit one of the same values; returns their lengths in floats. */
static void fill_buffers(const segments *s, int format, float *wide, size_t *wide_len, float *packed, size_t *packed_len)
{
    size_t at = 0, pat = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (!s->matrix[i]) {
            for (size_t k = 0; k < s->len[i]; k++)
                wide[at + k] = packed[pat + k] = 1.0f + (float)((double)next_bits() / 16777216.0 * 0.2 - 0.1);
            at += s->len[i], pat += s->len[i];
            continue;
        }
        size_t floats = (s->len[i] + 1) / 2;
        memset(packed + pat, 0, floats * sizeof *packed);
        for (size_t k = 0; k < s->len[i]; k++) {
            uint16_t h = random_half(format);
            memcpy((unsigned char *)(packed + pat) + 2 * k, &h, sizeof h);
            wide[at + k] = (float)half_value(h, format);
        }
        at += s->len[i], pat += floats;
    }
    *wide_len = at, *packed_len = pat;
}

static void check_half_case(const half_case *c, int format)
{
    const char *fname = format == POSENC_WEIGHT_FORMAT_F16 ? "F16" : "BF16";
    segments s = segments_of(c);
    size_t total = 0;
    for (size_t i = 0; i < s.n; i++)
        total += s.len[i];
    float *wide = malloc(total * sizeof *wide), *packed = malloc(total * sizeof *packed);
    size_t wide_len, packed_len, need_wide, need_packed, work_wide, work_packed;
    fill_buffers(&s, format, wide, &wide_len, packed, &packed_len);
    posenc_encoder_config cw = half_config(c, POSENC_WEIGHT_FORMAT_F32), ch = half_config(c, format);
    enum { SEQ = 9 };
    CHECK(posenc_encoder_sizes(&cw, SEQ, &need_wide, &work_wide) == POSENC_OK);
    CHECK(posenc_encoder_sizes(&ch, SEQ, &need_packed, &work_packed) == POSENC_OK);
    CHECKF(need_wide == wide_len && need_packed == packed_len, "%s %s: params %zu and %zu floats, laid out %zu and %zu",
           c->name, fname, need_wide, need_packed, wide_len, packed_len);
    size_t tile = 4 * (c->d > c->d_ff ? c->d : c->d_ff);
    CHECKF(work_packed == work_wide + tile, "%s %s: the workspace grows by %zu floats, not the tile's %zu", c->name, fname,
           work_packed - work_wide, tile);
    int32_t tokens[SEQ];
    for (size_t i = 0; i < SEQ; i++)
        tokens[i] = (int32_t)(next_bits() % c->vocab);
    size_t out_len = SEQ * c->vocab;
    float *lw = malloc(out_len * sizeof *lw), *lh = malloc(out_len * sizeof *lh);
    float *ww = malloc(work_wide * sizeof *ww), *wh = malloc(work_packed * sizeof *wh);
    CHECK(posenc_encoder_logits(lw, out_len, &cw, wide, wide_len, tokens, SEQ, NULL, NULL, 1, -1, NULL, 0, ww,
                                work_wide) == POSENC_OK);
    CHECK(posenc_encoder_logits(lh, out_len, &ch, packed, packed_len, tokens, SEQ, NULL, NULL, 1, -1, NULL, 0, wh,
                                work_packed) == POSENC_OK);
    CHECKF(memcmp(lw, lh, out_len * sizeof *lw) == 0, "%s %s: the logits differ from F32's on the same values", c->name,
           fname);
    /* the decoder: a prompt of 4, then one token at a time */
    posenc_decoder *dw = NULL, *dh = NULL;
    CHECK(posenc_decoder_create(&dw, &cw, wide, wide_len, 0, -1) == POSENC_OK);
    CHECK(posenc_decoder_create(&dh, &ch, packed, packed_len, 0, -1) == POSENC_OK);
    int same = dw && dh;
    for (size_t i = 0; same && i < SEQ;) {
        size_t count = i == 0 ? 4 : 1;
        same &= posenc_decoder_feed(dw, tokens + i, NULL, count, lw, c->vocab) == POSENC_OK;
        same &= posenc_decoder_feed(dh, tokens + i, NULL, count, lh, c->vocab) == POSENC_OK;
        same &= memcmp(lw, lh, c->vocab * sizeof *lw) == 0;
        i += count;
    }
    CHECKF(same, "%s %s: the decoder's logits differ from F32's", c->name, fname);
    posenc_decoder_free(dw);
    posenc_decoder_free(dh);
    free(wide), free(packed), free(lw), free(lh), free(ww), free(wh);
}

static void test_half_models(void)
{
    static const half_case cases[] = {
        /* odd products: every matrix ends mid-float; one head of 5 (the products' tails) */
        { "gated, d 5", 5, 1, 1, 7, 2, 9, 1, 0 },
        /* eight features per step; GQA 2 / 1; RoPE */
        { "gated, d 16", 16, 2, 1, 24, 2, 11, 1, 1 },
        { "plain, tied, d 5", 5, 1, 0, 7, 2, 9, 0, 0 },
        { "plain, tied, d 8", 8, 2, 0, 12, 1, 13, 0, 1 },
    };
    for (size_t i = 0; i < COUNT(cases); i++)
        for (int format = POSENC_WEIGHT_FORMAT_F16; format <= POSENC_WEIGHT_FORMAT_BF16; format++)
            check_half_case(&cases[i], format);
    /* a format past the enum is refused, naming it */
    posenc_encoder_config bad = half_config(&cases[0], 3);
    size_t p, w;
    CHECK(posenc_encoder_sizes(&bad, 1, &p, &w) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_last_error()->param == POSENC_PARAM_WEIGHT_FORMAT);
}

void test_half_weights(void)
{
    test_widen_values();
    test_linear_half();
    test_half_models();
}
