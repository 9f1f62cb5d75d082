/* test_encoder.c: the encoder's building blocks and forward pass against the
 * maths evaluated here in double (Vaswani 3.1-3.5, torch's LayerNorm, GELU,
 * the positional formulas of posenc.h), written independently of src/nn_*.c
 * and src/encoder.c. Small shapes: the whole file runs in milliseconds. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rope_calls.h"
#include "posenc_encoder.h"

#define COUNT(a) (sizeof(a) / sizeof(a)[0])

static uint32_t rng_state = 12345;

/* uniform in [-a, a) */
static float uniform(float a)
{
    rng_state = rng_state * 1664525u + 1013904223u;
    return (float)(((double)(rng_state >> 8) / 16777216.0 * 2.0 - 1.0) * a);
}

static void fill(float *x, size_t n, float a)
{
    for (size_t i = 0; i < n; i++)
        x[i] = uniform(a);
}

/* max |got - want| / max |want|: the error relative to the tensor's scale */
static double rel_error(const float *got, const double *want, size_t n)
{
    double err = 0, scale = 0;
    for (size_t i = 0; i < n; i++) {
        double e = fabs(got[i] - want[i]);
        err = isnan(e) ? INFINITY : fmax(err, e);
        scale = fmax(scale, fabs(want[i]));
    }
    return err / scale;
}

/* ------------------------------------------------------------ double reference */

static void ref_linear(double *y, const double *x, size_t rows, size_t in, const float *w, size_t out,
                       const float *b)
{
    for (size_t r = 0; r < rows; r++)
        for (size_t o = 0; o < out; o++) {
            double s = b ? b[o] : 0.0;
            for (size_t i = 0; i < in; i++)
                s += x[r * in + i] * (double)w[o * in + i];
            y[r * out + o] = s;
        }
}

static void ref_layer_norm(double *x, size_t rows, size_t d, const float *g, const float *b)
{
    for (size_t r = 0; r < rows; r++) {
        double *v = x + r * d, mean = 0, var = 0;
        for (size_t k = 0; k < d; k++)
            mean += v[k] / (double)d;
        for (size_t k = 0; k < d; k++)
            var += (v[k] - mean) * (v[k] - mean) / (double)d;
        for (size_t k = 0; k < d; k++)
            v[k] = (v[k] - mean) / sqrt(var + 1e-5) * g[k] + b[k];
    }
}

static double ref_act(double x, int a)
{
    if (a == POSENC_ACTIVATION_GELU)
        return 0.5 * x * (1 + erf(x / sqrt(2.0)));
    if (a == POSENC_ACTIVATION_GELU_TANH)
        return 0.5 * x * (1 + tanh(sqrt(2 / 3.14159265358979323846) * (x + 0.044715 * x * x * x)));
    return x > 0 ? x : 0;
}

/* probabilities p (seq x seq) of one head from its scores, masked entries NAN */
static void ref_softmax(double *s, size_t n)
{
    double m = -INFINITY, sum = 0;
    for (size_t j = 0; j < n; j++)
        if (!isnan(s[j]))
            m = fmax(m, s[j]);
    for (size_t j = 0; j < n; j++)
        sum += isnan(s[j]) ? 0 : exp(s[j] - m);
    for (size_t j = 0; j < n; j++)
        s[j] = isnan(s[j]) ? 0 : exp(s[j] - m) / sum;
}

enum { V = 11, D = 8, H = 2, HD = 4, FF = 12, L = 2, S = 5, LANGS = 2, BUCKETS = 32 };

typedef struct ref_cfg {
    int positional, norm, activation, final_norm, causal, language;
    const int32_t *mask;
    int query_scale; /* LLAMA4: floor_scale 2, attn_scale 0.5; MINISTRAL3: beta 0.3, original 2 */
} ref_cfg;

/* The query multiplier of position p (posenc.h, posenc_query_scale), in double. */
static double ref_query_scale(int type, int p)
{
    if (type == POSENC_QUERY_SCALE_LLAMA4)
        return log1p(floor((p + 1) / 2.0)) * 0.5 + 1; /* the argument an integer: exact either way */
    if (type == POSENC_QUERY_SCALE_MINISTRAL3)
        return 1 + 0.3 * log1p(floor(p / 2.0));
    return 1;
}

/* The encoder of posenc.h in double, on the documented parameter layout. */
static void ref_encoder(double *x, const ref_cfg *c, const float *params, const int32_t *tokens,
                        double *attn)
{
    const float *embed = params, *lang = embed + V * D, *t5 = lang + LANGS * D;
    const float *w = t5 + (c->positional == POSENC_POSITIONAL_T5 ? BUCKETS * H : 0);
    double h[S * D], q[S * D], k[S * D], v[S * D], ctx[S * D], a[S * D], hid[S * FF];
    for (int s = 0; s < S; s++)
        for (int j = 0; j < D; j++) {
            double e = embed[tokens[s] * D + j] * sqrt((double)D);
            if (c->positional == POSENC_POSITIONAL_SINUSOIDAL) {
                double f = pow(10000.0, -(double)(j - j % 2) / D);
                e += j % 2 ? cos(s * f) : sin(s * f);
            }
            x[s * D + j] = e + (c->language >= 0 ? lang[c->language * D + j] : 0);
        }
    for (int l = 0; l < L; l++) {
        const float *wq = w, *wk = wq + D * D + D, *wv = wk + D * D + D, *wo = wv + D * D + D;
        const float *n1 = wo + D * D + D, *w1 = n1 + 2 * D, *w2 = w1 + FF * D + FF, *n2 = w2 + D * FF + D;
        for (int pass = 0; pass < 2; pass++) {
            memcpy(h, x, sizeof h);
            const float *norm = pass ? n2 : n1;
            if (c->norm == POSENC_NORM_PRE)
                ref_layer_norm(h, S, D, norm, norm + D);
            if (pass == 0) {
                ref_linear(q, h, S, D, wq, D, wq + D * D);
                ref_linear(k, h, S, D, wk, D, wk + D * D);
                ref_linear(v, h, S, D, wv, D, wv + D * D);
                if (c->positional == POSENC_POSITIONAL_ROPE) /* half layout, base 10000 */
                    for (int s = 0; s < S; s++)
                        for (int hh = 0; hh < H; hh++)
                            for (int i = 0; i < HD / 2; i++) {
                                double th = s * pow(10000.0, -2.0 * i / HD);
                                for (double *t = q; t; t = t == q ? k : NULL) {
                                    double *p = t + s * D + hh * HD;
                                    double a0 = p[i], b0 = p[i + HD / 2];
                                    p[i] = a0 * cos(th) - b0 * sin(th);
                                    p[i + HD / 2] = b0 * cos(th) + a0 * sin(th);
                                }
                            }
                for (int s = 0; s < S; s++) /* after RoPE, as transformers scales the rotated q */
                    for (int j = 0; j < D; j++)
                        q[s * D + j] *= ref_query_scale(c->query_scale, s);
                for (int hh = 0; hh < H; hh++)
                    for (int i = 0; i < S; i++) {
                        double sc[S];
                        for (int j = 0; j < S; j++) {
                            double dot = 0;
                            for (int t = 0; t < HD; t++)
                                dot += q[i * D + hh * HD + t] * k[j * D + hh * HD + t];
                            sc[j] = dot / sqrt((double)HD);
                            if (c->positional == POSENC_POSITIONAL_ALIBI)
                                sc[j] -= pow(2.0, -8.0 * (hh + 1) / H) * abs(i - j);
                            if (c->positional == POSENC_POSITIONAL_T5) /* |rel| < 8: exact buckets */
                                sc[j] += t5[(j > i ? 16 + (j - i) : i - j) * H + hh];
                            if ((c->mask && !c->mask[j]) || (c->causal && j > i))
                                sc[j] = NAN;
                        }
                        ref_softmax(sc, S);
                        for (int t = 0; t < HD; t++) {
                            double o = 0;
                            for (int j = 0; j < S; j++)
                                o += sc[j] * v[j * D + hh * HD + t];
                            ctx[i * D + hh * HD + t] = o;
                        }
                        for (int j = 0; j < S; j++)
                            attn[((l * H + hh) * S + i) * S + j] = sc[j];
                    }
                ref_linear(a, ctx, S, D, wo, D, wo + D * D);
            } else {
                ref_linear(hid, h, S, D, w1, FF, w1 + FF * D);
                for (int i = 0; i < S * FF; i++)
                    hid[i] = ref_act(hid[i], c->activation);
                ref_linear(a, hid, S, FF, w2, D, w2 + D * FF);
            }
            for (int i = 0; i < S * D; i++)
                x[i] += a[i];
            if (c->norm == POSENC_NORM_POST)
                ref_layer_norm(x, S, D, norm, norm + D);
        }
        w = n2 + 2 * D;
    }
    if (c->final_norm)
        ref_layer_norm(x, S, D, w, w + D);
}

/* ------------------------------------------------------------ building blocks */

static void test_softmax(void)
{
    /* scores past ~88.7: the encoder article's exp(x) / sum exp(x) is inf / inf */
    float x[8] = { 1000, 999, 0, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY };
    volatile float big = x[0];
    float naive = expf(big) / (expf(big) + expf(x[1]) + expf(x[2]));
    CHECK(isnan(naive));
    CHECK(posenc_softmax(x, 8, 2, 4) == POSENC_OK);
    double e1 = exp(-1.0), sum = 1 + e1 + exp(-1000.0);
    CHECK(fabs(x[0] - 1 / sum) <= 0x1p-24 && fabs(x[1] - e1 / sum) <= 0x1p-24 && x[2] == 0 && x[3] == 0);
    CHECK(x[4] == 0 && x[5] == 0 && x[6] == 0 && x[7] == 0); /* all masked: zeros, not NaN */

    float y[3] = { 1, NAN, 2 };
    CHECK(posenc_softmax(y, 3, 1, 3) == POSENC_ERR_INVALID_ARGUMENT && y[0] == 1);
    y[1] = INFINITY;
    CHECK(posenc_softmax(y, 3, 1, 3) == POSENC_ERR_INVALID_ARGUMENT && y[0] == 1);
    CHECK(posenc_softmax(y, 2, 1, 3) == POSENC_ERR_BUFFER_TOO_SMALL);
    CHECK(posenc_softmax(y, 3, 1, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_softmax(NULL, 3, 1, 3) == POSENC_ERR_NULL_POINTER);
}

static void test_blocks(void)
{
    enum { R = 3, IN = 7, OUT = 9 };
    float x[R * IN], w[OUT * IN], b[OUT], y[R * OUT], y1[OUT];
    double xd[R * IN], want[R * OUT];
    fill(x, COUNT(x), 2), fill(w, COUNT(w), 1), fill(b, COUNT(b), 1);
    for (size_t i = 0; i < COUNT(x); i++)
        xd[i] = x[i];
    CHECK(posenc_linear(y, COUNT(y), x, COUNT(x), R, IN, w, COUNT(w), OUT, b) == POSENC_OK);
    ref_linear(want, xd, R, IN, w, OUT, b);
    CHECKF(rel_error(y, want, COUNT(y)) < 1e-6, "linear %g", rel_error(y, want, COUNT(y)));
    /* each output is the same bits whether computed alone or inside a block */
    int same = 1;
    for (int r = 0; r < R; r++) {
        CHECK(posenc_linear(y1, OUT, x + r * IN, IN, 1, IN, w, COUNT(w), OUT, b) == POSENC_OK);
        same &= memcmp(y1, y + r * OUT, sizeof y1) == 0;
    }
    CHECK(same);
    CHECK(posenc_linear(y, COUNT(y), x, COUNT(x), R, IN, w, COUNT(w) - 1, OUT, b) == POSENC_ERR_BUFFER_TOO_SMALL);
    CHECK(posenc_linear(x + 1, COUNT(x), x, COUNT(x), 1, IN, w, COUNT(w), 2, b) == POSENC_ERR_INVALID_ARGUMENT);

    /* layer norm, in place, against the formula */
    float g[IN], be[IN], z[R * IN];
    fill(g, IN, 2), fill(be, IN, 1);
    memcpy(z, x, sizeof z);
    CHECK(posenc_layer_norm(z, COUNT(z), z, COUNT(z), R, IN, g, be, 0) == POSENC_OK);
    memcpy(want, xd, sizeof xd);
    ref_layer_norm(want, R, IN, g, be);
    CHECKF(rel_error(z, want, R * IN) < 1e-6, "layer norm %g", rel_error(z, want, R * IN));
    CHECK(posenc_layer_norm(z + 1, COUNT(z), z, COUNT(z), 1, IN, g, be, 0) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_layer_norm(z, COUNT(z), z, COUNT(z), R, IN, g, be, -1) == POSENC_ERR_INVALID_ARGUMENT);

    /* feed-forward, every activation; in place */
    enum { FD = 5, FH = 6 };
    float p[2 * FD * FH + FH + FD], f[R * FD], hid[R * FH];
    double fd[R * FD], hd[R * FH], fw[R * FD];
    fill(p, COUNT(p), 1);
    for (int a = POSENC_ACTIVATION_RELU; a <= POSENC_ACTIVATION_GELU_TANH; a++) {
        fill(f, COUNT(f), 2);
        for (size_t i = 0; i < COUNT(f); i++)
            fd[i] = f[i];
        CHECK(posenc_feed_forward(f, COUNT(f), f, COUNT(f), R, FD, FH, p, COUNT(p), a, hid, COUNT(hid)) == POSENC_OK);
        ref_linear(hd, fd, R, FD, p, FH, p + FH * FD);
        for (size_t i = 0; i < COUNT(hd); i++)
            hd[i] = ref_act(hd[i], a);
        ref_linear(fw, hd, R, FH, p + FH * FD + FH, FD, p + 2 * FH * FD + FH);
        CHECKF(rel_error(f, fw, COUNT(f)) < 1e-6, "activation %d: %g", a, rel_error(f, fw, COUNT(f)));
    }
    CHECK(posenc_feed_forward(f, COUNT(f), f, COUNT(f), R, FD, FH, p, COUNT(p), 4, hid, COUNT(hid)) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_feed_forward(f, COUNT(f), f, COUNT(f), R, FD, FH, p, COUNT(p), 0, hid, COUNT(hid) - 1) == POSENC_ERR_BUFFER_TOO_SMALL);

    /* mean pooling over the kept rows; embedding lookup */
    const int32_t keep[R] = { 1, 0, 1 };
    float m[IN];
    CHECK(posenc_mean_pool(m, IN, x, COUNT(x), R, IN, keep) == POSENC_OK);
    double worst = 0;
    for (int k = 0; k < IN; k++)
        worst = fmax(worst, fabs(m[k] - (xd[k] + xd[2 * IN + k]) / 2));
    CHECK(worst <= 0x1p-22);
    const int32_t none[R] = { 0, 0, 0 };
    CHECK(posenc_mean_pool(m, IN, x, COUNT(x), R, IN, none) == POSENC_OK && m[0] == 0);
    const int32_t tok[2] = { 2, 0 }, bad[2] = { 2, 3 };
    float e[2 * IN];
    CHECK(posenc_embed(e, COUNT(e), tok, 2, x, COUNT(x), R, IN, 0.5f) == POSENC_OK &&
          e[1] == x[2 * IN + 1] * 0.5f && e[IN] == x[0] * 0.5f);
    e[0] = 42;
    CHECK(posenc_embed(e, COUNT(e), bad, 2, x, COUNT(x), R, IN, 1) == POSENC_ERR_INVALID_ARGUMENT && e[0] == 42);
}

static void test_attention(void)
{
    enum { AS = 6, AH = 2, AD = 3, N = AS * AH * AD };
    float q[N], k[N], v[N], out[N], probs[AH * AS * AS], bias[AH * AS * AS], work[AS * AS];
    fill(q, N, 3), fill(k, N, 3), fill(v, N, 1), fill(bias, COUNT(bias), 1);
    const int32_t mask[AS] = { 1, 1, 0, 1, 1, 0 };
    for (int causal = 0; causal <= 1; causal++) {
        CHECK(posenc_attention(out, N, q, k, v, N, AS, AH, AD, bias, COUNT(bias), mask, causal, probs,
                               COUNT(probs), NULL, 0) == POSENC_OK);
        double want_p[AH * AS * AS], want[N];
        for (int h = 0; h < AH; h++)
            for (int i = 0; i < AS; i++) {
                double *sc = want_p + (h * AS + i) * AS;
                for (int j = 0; j < AS; j++) {
                    double dot = 0;
                    for (int t = 0; t < AD; t++)
                        dot += (double)q[(i * AH + h) * AD + t] * k[(j * AH + h) * AD + t];
                    sc[j] = (!mask[j] || (causal && j > i)) ? NAN : dot / sqrt(AD) + bias[(h * AS + i) * AS + j];
                }
                ref_softmax(sc, AS);
                for (int t = 0; t < AD; t++) {
                    double o = 0;
                    for (int j = 0; j < AS; j++)
                        o += sc[j] * v[(j * AH + h) * AD + t];
                    want[(i * AH + h) * AD + t] = o;
                }
            }
        CHECKF(rel_error(probs, want_p, COUNT(probs)) < 1e-6, "probs %g", rel_error(probs, want_p, COUNT(probs)));
        CHECKF(rel_error(out, want, N) < 1e-6, "attention %g", rel_error(out, want, N));
        int masked_zero = 1;
        for (int h = 0; h < AH; h++)
            for (int i = 0; i < AS; i++)
                masked_zero &= probs[(h * AS + i) * AS + 2] == 0 && probs[(h * AS + i) * AS + 5] == 0;
        CHECK(masked_zero);
    }
    /* without probs: the same output through the work row */
    float out2[N];
    CHECK(posenc_attention(out2, N, q, k, v, N, AS, AH, AD, bias, COUNT(bias), mask, 1, NULL, 0, work,
                           COUNT(work)) == POSENC_OK && memcmp(out, out2, sizeof out) == 0);
    CHECK(posenc_attention(out2, N, q, k, v, N, AS, AH, AD, NULL, 0, NULL, 0, NULL, 0, work, COUNT(work) - 1) ==
          POSENC_ERR_BUFFER_TOO_SMALL);
    CHECK(posenc_attention(out2, N, q, k, v, N, AS, AH, AD, NULL, 0, NULL, 0, NULL, 0, NULL, 0) ==
          POSENC_ERR_NULL_POINTER);
    CHECK(posenc_attention(q, N, q, k, v, N, AS, AH, AD, NULL, 0, NULL, 0, NULL, 0, work, COUNT(work)) ==
          POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_attention(out2, N, q, k, v, N, AS, AH, AD, NULL, 0, NULL, 2, NULL, 0, work, COUNT(work)) ==
          POSENC_ERR_INVALID_ARGUMENT);
}

/* ------------------------------------------------------------ the encoder */

static void test_encoder_forward(void)
{
    static const int32_t tokens[S] = { 3, 1, 4, 1, 5 }, mask[S] = { 1, 1, 1, 1, 0 };
    static const ref_cfg cases[] = {
        { POSENC_POSITIONAL_NONE, POSENC_NORM_PRE, POSENC_ACTIVATION_RELU, 0, 0, -1, NULL, 0 },
        { POSENC_POSITIONAL_SINUSOIDAL, POSENC_NORM_POST, POSENC_ACTIVATION_GELU, 0, 0, 1, NULL, 0 },
        { POSENC_POSITIONAL_ROPE, POSENC_NORM_PRE, POSENC_ACTIVATION_GELU_TANH, 1, 0, 0, mask, 0 },
        { POSENC_POSITIONAL_ALIBI, POSENC_NORM_PRE, POSENC_ACTIVATION_RELU, 0, 1, -1, mask, 0 },
        { POSENC_POSITIONAL_T5, POSENC_NORM_POST, POSENC_ACTIVATION_RELU, 1, 0, -1, NULL, 0 },
        { POSENC_POSITIONAL_NONE, POSENC_NORM_PRE, POSENC_ACTIVATION_RELU, 0, 1, -1, NULL, POSENC_QUERY_SCALE_LLAMA4 },
        { POSENC_POSITIONAL_ROPE, POSENC_NORM_POST, POSENC_ACTIVATION_GELU, 1, 1, 0, NULL, POSENC_QUERY_SCALE_MINISTRAL3 },
    };
    double inv_freq[HD / 2], att;
    CHECK(rope_freqs(inv_freq, HD / 2, HD, 0, NULL, 0, &att) == POSENC_OK);
    static float params[20000], work[4096], attn[L * H * S * S];
    float out[S * D];
    double want[S * D], want_attn[L * H * S * S];
    for (size_t n = 0; n < COUNT(cases); n++) {
        const ref_cfg *c = &cases[n];
        posenc_encoder_config cfg = { 0 };
        cfg.vocab_size = V, cfg.d_model = D, cfg.heads = H, cfg.d_ff = FF, cfg.layers = L, cfg.languages = LANGS;
        cfg.positional = c->positional, cfg.norm = c->norm, cfg.activation = c->activation;
        cfg.final_norm = c->final_norm, cfg.rope.inv_freq = inv_freq;
        cfg.query_scale.type = c->query_scale, cfg.query_scale.floor_scale = 2, cfg.query_scale.attn_scale = 0.5;
        cfg.query_scale.beta = 0.3, cfg.query_scale.original_max_position = 2;
        size_t params_len, work_len;
        CHECK(posenc_encoder_sizes(&cfg, S, &params_len, &work_len) == POSENC_OK);
        size_t layer = 4 * (D * D + D) + 4 * D + 2 * FF * D + FF + D;
        size_t expect = (V + LANGS) * D + (c->positional == POSENC_POSITIONAL_T5 ? BUCKETS * H : 0) + L * layer +
                        (c->final_norm ? 2 * D : 0);
        int biased = c->positional == POSENC_POSITIONAL_ALIBI || c->positional == POSENC_POSITIONAL_T5;
        /* h, ctx, q k v; the scores of a block of 4 queries; ALiBi and T5 bias rows over j - i */
        CHECKF(params_len == expect && work_len == 2 * S * D + 3 * S * D + 4 * S + (biased ? H * (2 * S - 1) : 0),
               "case %zu: sizes %zu %zu", n, params_len, work_len);
        fill(params, params_len, 0.5f);
        CHECK(posenc_encoder_forward(out, COUNT(out), &cfg, params, params_len, tokens, S, NULL, c->mask, c->causal,
                                     c->language, attn, COUNT(attn), work, work_len) == POSENC_OK);
        ref_encoder(want, c, params, tokens, want_attn);
        double e = rel_error(out, want, COUNT(out)), ea = rel_error(attn, want_attn, COUNT(attn));
        CHECKF(e < 1e-5 && ea < 1e-5, "case %zu: output %g, attention %g", n, e, ea);
        /* without attention out: the same bits */
        float out2[S * D];
        CHECK(posenc_encoder_forward(out2, COUNT(out2), &cfg, params, params_len, tokens, S, NULL, c->mask, c->causal,
                                     c->language, NULL, 0, work, work_len) == POSENC_OK &&
              memcmp(out, out2, sizeof out) == 0);
    }
}

static void test_encoder_errors(void)
{
    static float params[8192], work[4096];
    float out[S * D], attn[L * H * S * S];
    static const int32_t tokens[S] = { 0, 1, 2, 3, 4 }, bad[S] = { 0, 1, V, 3, 4 };
    double inv_freq[HD / 2] = { 1, 0.01 };
    posenc_encoder_config ok = { 0 };
    ok.vocab_size = V, ok.d_model = D, ok.heads = H, ok.d_ff = FF, ok.layers = L;
    size_t pl, wl;
    CHECK(posenc_encoder_sizes(&ok, S, &pl, &wl) == POSENC_OK);
    out[0] = 42;
#define FORWARD(cfg, toks, lang, a, alen, wlen) \
    posenc_encoder_forward(out, COUNT(out), cfg, params, pl, toks, S, NULL, NULL, 0, lang, a, alen, work, wlen)
    CHECK(FORWARD(&ok, bad, -1, NULL, 0, wl) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(FORWARD(&ok, tokens, 0, NULL, 0, wl) == POSENC_ERR_INVALID_ARGUMENT); /* no languages */
    CHECK(FORWARD(&ok, tokens, -1, NULL, 0, wl - 1) == POSENC_ERR_BUFFER_TOO_SMALL);
    CHECK(FORWARD(&ok, tokens, -1, attn, COUNT(attn) - 1, wl) == POSENC_ERR_BUFFER_TOO_SMALL);
    CHECK(FORWARD(&ok, tokens, -1, NULL, 4, wl) == POSENC_ERR_NULL_POINTER);
    CHECK(FORWARD(NULL, tokens, -1, NULL, 0, wl) == POSENC_ERR_NULL_POINTER);
    CHECK(posenc_encoder_forward(out, COUNT(out), &ok, params, pl, tokens, S, NULL, NULL, 0, -1, NULL, 0, params + 8, wl) ==
          POSENC_ERR_INVALID_ARGUMENT); /* work overlaps params */
    posenc_encoder_config c;
    int invalid = 1;
    for (int field = 0; field < 14; field++) {
        c = ok;
        switch (field) {
        case 0: c.vocab_size = 0; break;
        case 1: c.heads = 3; break; /* 8 is no multiple of 3 */
        case 2: c.d_ff = 0; break;
        case 3: c.positional = 6; break;
        case 4: c.norm = 2; break;
        case 5: c.activation = -1; break;
        case 6: c.final_norm = 2; break;
        case 7: c.norm_eps = -1; break;
        case 8: c.embed_scale = NAN; break;
        case 9: c.positional = POSENC_POSITIONAL_ROPE, c.rope.base = 0.5; break; /* base must be > 1 */
        case 10: c.positional = POSENC_POSITIONAL_ROPE, c.rope.inv_freq = inv_freq, c.rope.rotary_dim = 3; break;
        case 11: c.positional = POSENC_POSITIONAL_SINUSOIDAL, c.sinusoidal.base = 0.5; break;
        case 12: c.positional = POSENC_POSITIONAL_ALIBI, c.alibi.max_bias = -1; break;
        case 13: c.positional = POSENC_POSITIONAL_T5, c.t5.num_buckets = 3; break;
        }
        int status = FORWARD(&c, tokens, -1, NULL, 0, sizeof work / sizeof *work);
        invalid &= status == POSENC_ERR_INVALID_ARGUMENT;
        if (!invalid) {
            CHECKF(0, "field %d: status %d", field, status);
            invalid = 1;
        }
    }
    CHECK(out[0] == 42); /* nothing written on any error */
    c = ok;
    c.vocab_size = SIZE_MAX / 2; /* past its row's bound, 2^31 - 1 */
    CHECK(posenc_encoder_sizes(&c, S, &pl, &wl) == POSENC_ERR_INVALID_ARGUMENT);
    c = ok;
    c.d_model = c.d_ff = (size_t)1 << 30, c.layers = POSENC_POSITION_MAX; /* each in range, the count is not */
    CHECK(posenc_encoder_sizes(&c, S, &pl, &wl) == POSENC_ERR_SIZE_OVERFLOW);
    CHECK(posenc_encoder_sizes(&ok, (size_t)1 << 40, &pl, &wl) != POSENC_OK);
    CHECK(posenc_encoder_sizes(&ok, S, NULL, &wl) == POSENC_ERR_NULL_POINTER);
    /* ALiBi and T5: one bias row over j - i, whose last key 2 seq - 2 must be an int32 position */
    for (int positional = POSENC_POSITIONAL_ALIBI; positional <= POSENC_POSITIONAL_T5; positional++) {
        c = ok;
        c.positional = positional;
        size_t limit = (size_t)1 << 30;
        int at_limit = posenc_encoder_sizes(&c, limit, &pl, &wl);
        CHECK(at_limit == (SIZE_MAX > 0xffffffffu ? POSENC_OK : POSENC_ERR_SIZE_OVERFLOW));
        CHECK(posenc_encoder_sizes(&c, limit + 1, &pl, &wl) == POSENC_ERR_INVALID_ARGUMENT);
    }
#undef FORWARD
}


/* posenc_encoder_logits: the forward output times the head (own or tied), and
 * learned positions: pos_embed.weight after embed.weight, one row per position. */
static void test_encoder_logits(void)
{
    static const int32_t tokens[S] = { 3, 1, 4, 1, 5 };
    static float params[20000], work[4096];
    float hidden[S * D], logits[S * V], none[S * V];
    posenc_encoder_config c = { 0 };
    c.vocab_size = V, c.d_model = D, c.heads = H, c.d_ff = FF, c.layers = L, c.final_norm = 1;
    c.positional = POSENC_POSITIONAL_LEARNED, c.learned.max_length = S;
    size_t layer = 4 * (D * D + D) + 4 * D + 2 * FF * D + FF + D;
    for (int head = POSENC_LM_HEAD_OWN; head <= POSENC_LM_HEAD_TIED; head++) {
        c.lm_head = head;
        size_t pl, wl;
        CHECK(posenc_encoder_sizes(&c, S, &pl, &wl) == POSENC_OK);
        size_t want_params = (V + S) * D + L * layer + 2 * D + (head == POSENC_LM_HEAD_OWN ? V * D : 0);
        CHECKF(pl == want_params && wl == 2 * S * D + 3 * S * D + 4 * S + S * D, "head %d: sizes %zu %zu", head, pl, wl);
        fill(params, pl, 0.5f);
        CHECK(posenc_encoder_forward(hidden, COUNT(hidden), &c, params, pl, tokens, S, NULL, NULL, 1, -1, NULL, 0, work,
                                     wl) == POSENC_OK);
        CHECK(posenc_encoder_logits(logits, COUNT(logits), &c, params, pl, tokens, S, NULL, NULL, 1, -1, NULL, 0, work,
                                    wl) == POSENC_OK);
        const float *w = head == POSENC_LM_HEAD_TIED ? params : params + pl - V * D;
        double want[S * V];
        for (int s = 0; s < S; s++)
            for (int v = 0; v < V; v++) {
                double dot = 0;
                for (int k = 0; k < D; k++)
                    dot += (double)hidden[s * D + k] * w[v * D + k];
                want[s * V + v] = dot;
            }
        CHECKF(rel_error(logits, want, COUNT(logits)) < 1e-6, "head %d: %g", head, rel_error(logits, want, S * V));
        CHECK(posenc_encoder_logits(logits, COUNT(logits) - 1, &c, params, pl, tokens, S, NULL, NULL, 1, -1, NULL, 0, work,
                                    wl) == POSENC_ERR_BUFFER_TOO_SMALL);
        CHECK(posenc_encoder_logits(logits, COUNT(logits), &c, params, pl, tokens, S, NULL, NULL, 1, -1, NULL, 0, work,
                                    wl - 1) == POSENC_ERR_BUFFER_TOO_SMALL);
    }
    size_t pl, wl;
    /* no head: logits refused, nothing written */
    c.lm_head = POSENC_LM_HEAD_NONE;
    CHECK(posenc_encoder_sizes(&c, S, &pl, &wl) == POSENC_OK);
    memset(none, 0x5a, sizeof none);
    float before = none[0];
    CHECK(posenc_encoder_logits(none, COUNT(none), &c, params, pl, tokens, S, NULL, NULL, 1, -1, NULL, 0, work, wl) ==
          POSENC_ERR_INVALID_ARGUMENT);
    CHECK(memcmp(&none[0], &before, sizeof before) == 0);
    c.lm_head = 3;
    CHECK(posenc_encoder_sizes(&c, S, &pl, &wl) == POSENC_ERR_INVALID_ARGUMENT);
    /* learned: a longer sequence than the table, or no table */
    c.lm_head = POSENC_LM_HEAD_TIED;
    CHECK(posenc_encoder_sizes(&c, S + 1, &pl, &wl) == POSENC_ERR_INVALID_ARGUMENT);
    c.learned.max_length = 0;
    CHECK(posenc_encoder_sizes(&c, 0, &pl, &wl) == POSENC_ERR_INVALID_ARGUMENT);
    c.learned.max_length = S;
    static const int32_t longer[S + 1] = { 0, 1, 2, 3, 4, 5 };
    CHECK(posenc_encoder_forward(hidden, COUNT(hidden) + D, &c, params, 20000, longer, S + 1, NULL, NULL, 1, -1, NULL, 0,
                                 work, COUNT(work)) == POSENC_ERR_INVALID_ARGUMENT);
    /* no layers: x[s] = E[t_s] * scale + P[s], one float product and one sum */
    c.layers = 0, c.final_norm = 0, c.embed_scale = 1.5;
    CHECK(posenc_encoder_sizes(&c, S, &pl, &wl) == POSENC_OK && pl == (V + S) * D);
    CHECK(posenc_encoder_forward(hidden, COUNT(hidden), &c, params, pl, tokens, S, NULL, NULL, 0, -1, NULL, 0, work, wl) ==
          POSENC_OK);
    int exact = 1;
    for (int s = 0; s < S; s++)
        for (int k = 0; k < D; k++)
            exact &= hidden[s * D + k] == params[tokens[s] * D + k] * 1.5f + params[(V + s) * D + k];
    CHECK(exact);
}

/* A routine that wrote an output and then read an input through it would
 * read values it never checked: every such overlap is refused, nothing written. */
static void test_overlaps(void)
{
    /* out over the token ids: once the first row is written, ids 1.. read as
       float bits, far outside the table (ASan: SEGV before the check) */
    float table[4] = { 1, 2, 3, 4 };
    union {
        float f[8];
        int32_t i[8];
    } b;
    for (int s = 0; s < 8; s++)
        b.i[s] = 1;
    CHECK(posenc_embed(b.f + 1, 7, b.i, 7, table, 4, 4, 1, 1.0f) == POSENC_ERR_INVALID_ARGUMENT);
    int unchanged = 1;
    for (int s = 0; s < 8; s++)
        unchanged &= b.i[s] == 1;
    CHECK(unchanged);
    CHECK(posenc_embed(b.f + 7, 1, b.i, 1, table, 4, 4, 1, 1.0f) == POSENC_OK && b.f[7] == 2.0f); /* apart */

    /* attention and mean pooling read key_mask while writing */
    enum { AS = 3, AH = 1, AD = 2, N = AS * AH * AD };
    float q[N], k[N], v[N], work[AS * AS], pool[AD];
    fill(q, N, 1), fill(k, N, 1), fill(v, N, 1);
    union {
        float f[N];
        int32_t i[N];
    } m;
    for (int s = 0; s < N; s++)
        m.i[s] = 1;
    CHECK(posenc_attention(m.f, N, q, k, v, N, AS, AH, AD, NULL, 0, m.i + 2, 0, NULL, 0, work, COUNT(work)) ==
          POSENC_ERR_INVALID_ARGUMENT);
    float scratch[AS * AS];
    union {
        float f[AS * AS];
        int32_t i[AS * AS];
    } w;
    for (int s = 0; s < AS * AS; s++)
        w.i[s] = 1;
    float out[N];
    CHECK(posenc_attention(out, N, q, k, v, N, AS, AH, AD, NULL, 0, w.i + 6, 0, NULL, 0, w.f, AS * AS) ==
          POSENC_ERR_INVALID_ARGUMENT); /* the score scratch over the mask */
    CHECK(posenc_attention(out, N, q, k, v, N, AS, AH, AD, NULL, 0, w.i + 6, 0, NULL, 0, scratch, AS * AS) ==
          POSENC_OK);
    unchanged = 1;
    for (int s = 0; s < N; s++)
        unchanged &= m.i[s] == 1;
    for (int s = 0; s < AS * AS; s++)
        unchanged &= w.i[s] == 1;
    CHECK(unchanged);
    CHECK(posenc_mean_pool(m.f + 1, AD, q, N, AS, AD, m.i) == POSENC_ERR_INVALID_ARGUMENT && m.i[1] == 1);
    CHECK(posenc_mean_pool(pool, AD, q, N, AS, AD, m.i) == POSENC_OK);

    /* the whole encoder: tokens, key_mask and the RoPE frequencies are read in
       every layer, after out, work and attention are written */
    static float params[4096], wk[4096], attn[L * H * S * S];
    static union {
        float f[4096];
        int32_t i[4096];
        double d[2048];
    } u;
    double inv_freq[HD / 2] = { 1, 0.01 };
    posenc_encoder_config c = { 0 };
    c.vocab_size = V, c.d_model = D, c.heads = H, c.d_ff = FF, c.layers = L;
    c.positional = POSENC_POSITIONAL_ROPE, c.rope.inv_freq = inv_freq;
    size_t pl, wl;
    CHECK(posenc_encoder_sizes(&c, S, &pl, &wl) == POSENC_OK && pl <= COUNT(params) && wl <= COUNT(wk));
    fill(params, pl, 0.5f);
    float enc[S * D];
    for (int i = 0; i < 4096; i++)
        u.i[i] = 1;
    /* tokens inside out, inside work, inside attention; the mask inside work;
       the frequencies inside work */
    CHECK(posenc_encoder_forward(u.f, S * D, &c, params, pl, u.i + S, S, NULL, NULL, 0, -1, NULL, 0, wk, wl) ==
          POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_encoder_forward(enc, S * D, &c, params, pl, u.i + wl - 1, S, NULL, NULL, 0, -1, NULL, 0, u.f, wl) ==
          POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_encoder_forward(enc, S * D, &c, params, pl, u.i, S, NULL, NULL, 0, -1, u.f + 1, COUNT(attn), wk, wl) ==
          POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_encoder_forward(enc, S * D, &c, params, pl, u.i + wl, S, NULL, u.i + 4, 0, -1, NULL, 0, u.f, wl) ==
          POSENC_ERR_INVALID_ARGUMENT);
    unchanged = 1;
    for (int i = 0; i < 4096; i++)
        unchanged &= u.i[i] == 1;
    CHECK(unchanged);
    c.rope.inv_freq = u.d + 10;
    u.d[10] = 1, u.d[11] = 0.01;
    CHECK(posenc_encoder_forward(enc, S * D, &c, params, pl, u.i + 2 * wl, S, NULL, NULL, 0, -1, NULL, 0, u.f, wl) ==
          POSENC_ERR_INVALID_ARGUMENT);
    CHECK(u.d[10] == 1 && u.d[11] == 0.01);
    c.rope.inv_freq = inv_freq;
    CHECK(posenc_encoder_forward(enc, S * D, &c, params, pl, u.i, S, NULL, u.i + S, 0, -1, attn, COUNT(attn), wk, wl) ==
          POSENC_OK);
}

void test_encoder(void)
{
    test_softmax();
    test_blocks();
    test_attention();
    test_encoder_forward();
    test_encoder_errors();
    test_encoder_logits();
    test_overlaps();
}
