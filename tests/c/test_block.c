/* test_block.c: the grown block of posenc_encoder_config (RMSNorm, the
 * SiLU-gated MLP, grouped-query attention, head_dim apart from d_model /
 * heads, optional projection biases, per-head q/k RMSNorm, sliding windows)
 * against a Llama-style decoder written here in double from the papers and
 * HF's modeling_llama.py / modeling_qwen3.py formulas, independently of
 * src/encoder/. Whole passes, the decoder's feeds, the layout's size, the
 * config's refusals, and the two new kernels (SiLU, RMSNorm). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "nn_math.h"
#include "posenc_encoder.h"

static uint32_t block_rng = 777;

static float block_uniform(float a)
{
    block_rng = block_rng * 1664525u + 1013904223u;
    return (float)(((double)(block_rng >> 8) / 16777216.0 * 2.0 - 1.0) * a);
}

/* One test model: the config's block parts, and the dimensions. */
typedef struct block_case {
    const char *name;
    size_t d, heads, kv_heads, head_dim, d_ff, layers, vocab, window;
    int norm_kind, mlp, activation, bias, qk_norm, tied;
} block_case;

/* Where the tensors of the case sit (the layout posenc_encoder.h states,
 * counted here on its own). */
typedef struct block_layout {
    size_t hd, qd, kvd, q_w, q_b, k_w, k_b, v_w, v_b, o_w, o_b, qn, kn, n1, ff, n2, layer, first, final, head, total;
} block_layout;

#define ABSENT ((size_t)-1)

static size_t put(size_t *off, int present, size_t n)
{
    size_t where = present ? *off : ABSENT;
    if (present)
        *off += n;
    return where;
}

static block_layout layout_of(const block_case *c)
{
    block_layout L;
    size_t d = c->d, off = 0, norm = c->norm_kind == POSENC_NORM_KIND_RMS ? d : 2 * d;
    int bias = c->bias != POSENC_ATTENTION_BIAS_NONE;
    L.hd = c->head_dim ? c->head_dim : d / c->heads;
    L.qd = c->heads * L.hd;
    L.kvd = (c->kv_heads ? c->kv_heads : c->heads) * L.hd;
    L.q_w = put(&off, 1, L.qd * d), L.q_b = put(&off, bias, L.qd);
    L.k_w = put(&off, 1, L.kvd * d), L.k_b = put(&off, bias, L.kvd);
    L.v_w = put(&off, 1, L.kvd * d), L.v_b = put(&off, bias, L.kvd);
    L.o_w = put(&off, 1, d * L.qd), L.o_b = put(&off, c->bias == POSENC_ATTENTION_BIAS_ALL, d);
    L.qn = put(&off, c->qk_norm, L.hd), L.kn = put(&off, c->qk_norm, L.hd);
    L.n1 = put(&off, 1, norm);
    L.ff = put(&off, 1, c->mlp == POSENC_MLP_GATED ? 3 * c->d_ff * d : 2 * c->d_ff * d + c->d_ff + d);
    L.n2 = put(&off, 1, norm);
    L.layer = off;
    L.first = c->vocab * d;
    L.final = L.first + c->layers * L.layer;
    L.head = L.final + norm;
    L.total = L.head + (c->tied ? 0 : c->vocab * d);
    return L;
}

static posenc_encoder_config config_of(const block_case *c)
{
    posenc_encoder_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.vocab_size = c->vocab, cfg.d_model = c->d, cfg.heads = c->heads, cfg.d_ff = c->d_ff, cfg.layers = c->layers;
    cfg.norm = POSENC_NORM_PRE, cfg.activation = c->activation, cfg.final_norm = 1;
    cfg.lm_head = c->tied ? POSENC_LM_HEAD_TIED : POSENC_LM_HEAD_OWN;
    cfg.embed_scale = 1.0, cfg.norm_eps = 1e-6;
    cfg.positional = POSENC_POSITIONAL_ROPE;
    cfg.rope.base = 10000.0, cfg.rope.layout = POSENC_ROPE_HALF;
    cfg.norm_kind = c->norm_kind, cfg.mlp = c->mlp, cfg.kv_heads = c->kv_heads, cfg.head_dim = c->head_dim;
    cfg.attention_bias = c->bias, cfg.qk_norm = c->qk_norm, cfg.window = c->window;
    return cfg;
}

/* Random weights: linear U(-1/sqrt(fan_in), ..), norms 1 + U(-0.2, 0.2), biases U(-0.1, 0.1). */
static void fill_params(const block_case *c, const block_layout *L, float *p)
{
    for (size_t i = 0; i < L->total; i++)
        p[i] = block_uniform(0.5f);
    for (size_t l = 0; l < c->layers; l++) {
        float *w = p + L->first + l * L->layer;
        size_t norm = c->norm_kind == POSENC_NORM_KIND_RMS ? c->d : 2 * c->d;
        for (size_t k = 0; k < c->d; k++)
            w[L->n1 + k] = 1.0f + block_uniform(0.2f), w[L->n2 + k] = 1.0f + block_uniform(0.2f);
        for (size_t k = 0; c->qk_norm && k < L->hd; k++)
            w[L->qn + k] = 1.0f + block_uniform(0.2f), w[L->kn + k] = 1.0f + block_uniform(0.2f);
        (void)norm;
    }
    for (size_t k = 0; k < c->d; k++)
        p[L->final + k] = 1.0f + block_uniform(0.2f);
}

/* ------------------------------------------------------------ the double reference */

static void ref_norm(double *y, const double *x, size_t d, const float *g, int kind, double eps)
{
    if (kind == POSENC_NORM_KIND_RMS) { /* LlamaRMSNorm: x * rsqrt(mean(x^2) + eps) * weight */
        double ms = 0;
        for (size_t k = 0; k < d; k++)
            ms += x[k] * x[k] / (double)d;
        for (size_t k = 0; k < d; k++)
            y[k] = x[k] / sqrt(ms + eps) * g[k];
        return;
    }
    double mean = 0, var = 0; /* LayerNorm: biased variance, weight then bias */
    for (size_t k = 0; k < d; k++)
        mean += x[k] / (double)d;
    for (size_t k = 0; k < d; k++)
        var += (x[k] - mean) * (x[k] - mean) / (double)d;
    for (size_t k = 0; k < d; k++)
        y[k] = (x[k] - mean) / sqrt(var + eps) * g[k] + g[d + k];
}

static void ref_lin(double *y, const double *x, size_t in, const float *w, size_t out, const float *b)
{
    for (size_t o = 0; o < out; o++) {
        double s = b ? b[o] : 0.0;
        for (size_t i = 0; i < in; i++)
            s += x[i] * (double)w[o * in + i];
        y[o] = s;
    }
}

static double ref_act(double x, int a)
{
    if (a == POSENC_ACTIVATION_SILU)
        return x / (1.0 + exp(-x));
    if (a == POSENC_ACTIVATION_GELU_TANH)
        return 0.5 * x * (1 + tanh(sqrt(2 / 3.14159265358979323846) * (x + 0.044715 * x * x * x)));
    if (a == POSENC_ACTIVATION_GELU)
        return 0.5 * x * (1 + erf(x / sqrt(2.0)));
    return x > 0 ? x : 0;
}

/* rotate_half RoPE at position p on one head of hd features: pairs (i, i + hd/2),
 * theta_i = p * 10000^(-2i / hd) (Su et al. 2021; HF apply_rotary_pos_emb) */
static void ref_rope(double *x, size_t hd, double p)
{
    size_t half = hd / 2;
    for (size_t i = 0; i < half; i++) {
        double t = p * pow(10000.0, -2.0 * (double)i / (double)hd), a = x[i], b = x[i + half];
        x[i] = a * cos(t) - b * sin(t);
        x[i + half] = b * cos(t) + a * sin(t);
    }
}

static const float *at(const float *w, size_t off)
{
    return off == ABSENT ? NULL : w + off;
}

/* logits [seq][vocab] of the causal model in double */
static void ref_logits(double *logits, const block_case *c, const block_layout *L, const float *p, const int32_t *tok,
                       size_t seq)
{
    size_t d = c->d, hd = L->hd, kvh = c->kv_heads ? c->kv_heads : c->heads, group = c->heads / kvh;
    double *x = calloc(seq * d, sizeof *x), *h = calloc(d, sizeof *h), *q = calloc(seq * L->qd, sizeof *q);
    double *k = calloc(seq * L->kvd, sizeof *k), *v = calloc(seq * L->kvd, sizeof *v);
    double *ctx = calloc(L->qd, sizeof *ctx), *o = calloc(d, sizeof *o), *s = calloc(seq, sizeof *s);
    double *g = calloc(c->d_ff, sizeof *g), *u = calloc(c->d_ff, sizeof *u), *n = calloc(seq * d, sizeof *n);
    for (size_t t = 0; t < seq; t++)
        for (size_t j = 0; j < d; j++)
            x[t * d + j] = p[(size_t)tok[t] * d + j];
    for (size_t l = 0; l < c->layers; l++) {
        const float *w = p + L->first + l * L->layer;
        for (size_t t = 0; t < seq; t++) {
            ref_norm(h, x + t * d, d, w + L->n1, c->norm_kind, 1e-6);
            ref_lin(q + t * L->qd, h, d, w + L->q_w, L->qd, at(w, L->q_b));
            ref_lin(k + t * L->kvd, h, d, w + L->k_w, L->kvd, at(w, L->k_b));
            ref_lin(v + t * L->kvd, h, d, w + L->v_w, L->kvd, at(w, L->v_b));
            for (size_t hh = 0; hh < c->heads; hh++) {
                if (c->qk_norm)
                    ref_norm(q + t * L->qd + hh * hd, q + t * L->qd + hh * hd, hd, w + L->qn, POSENC_NORM_KIND_RMS, 1e-6);
                ref_rope(q + t * L->qd + hh * hd, hd, (double)t);
            }
            for (size_t hh = 0; hh < kvh; hh++) {
                if (c->qk_norm)
                    ref_norm(k + t * L->kvd + hh * hd, k + t * L->kvd + hh * hd, hd, w + L->kn, POSENC_NORM_KIND_RMS, 1e-6);
                ref_rope(k + t * L->kvd + hh * hd, hd, (double)t);
            }
        }
        for (size_t t = 0; t < seq; t++) {
            for (size_t hh = 0; hh < c->heads; hh++) {
                size_t kh = hh / group, lo = c->window && t + 1 > c->window ? t + 1 - c->window : 0;
                double m = -INFINITY, sum = 0;
                for (size_t j = lo; j <= t; j++) {
                    double dot = 0;
                    for (size_t i = 0; i < hd; i++)
                        dot += q[t * L->qd + hh * hd + i] * k[j * L->kvd + kh * hd + i];
                    s[j] = dot / sqrt((double)hd);
                    m = fmax(m, s[j]);
                }
                for (size_t j = lo; j <= t; j++)
                    sum += s[j] = exp(s[j] - m);
                for (size_t i = 0; i < hd; i++) {
                    double acc = 0;
                    for (size_t j = lo; j <= t; j++)
                        acc += s[j] / sum * v[j * L->kvd + kh * hd + i];
                    ctx[hh * hd + i] = acc;
                }
            }
            ref_lin(o, ctx, L->qd, w + L->o_w, d, at(w, L->o_b));
            for (size_t j = 0; j < d; j++)
                n[t * d + j] = x[t * d + j] + o[j];
        }
        memcpy(x, n, seq * d * sizeof *x);
        for (size_t t = 0; t < seq; t++) {
            ref_norm(h, x + t * d, d, w + L->n2, c->norm_kind, 1e-6);
            const float *ff = w + L->ff;
            size_t f = c->d_ff;
            if (c->mlp == POSENC_MLP_GATED) {
                ref_lin(g, h, d, ff, f, NULL);
                ref_lin(u, h, d, ff + f * d, f, NULL);
                for (size_t i = 0; i < f; i++)
                    g[i] = ref_act(g[i], c->activation) * u[i];
                ref_lin(o, g, f, ff + 2 * f * d, d, NULL);
            } else {
                ref_lin(g, h, d, ff, f, ff + f * d);
                for (size_t i = 0; i < f; i++)
                    g[i] = ref_act(g[i], c->activation);
                ref_lin(o, g, f, ff + f * d + f, d, ff + f * d + f + d * f);
            }
            for (size_t j = 0; j < d; j++)
                x[t * d + j] += o[j];
        }
    }
    const float *head = c->tied ? p : p + L->head;
    for (size_t t = 0; t < seq; t++) {
        ref_norm(h, x + t * d, d, p + L->final, c->norm_kind, 1e-6);
        ref_lin(logits + t * c->vocab, h, d, head, c->vocab, NULL);
    }
    free(x), free(h), free(q), free(k), free(v), free(ctx), free(o), free(s), free(g), free(u), free(n);
}

static double max_rel(const float *got, const double *want, size_t n)
{
    double err = 0, scale = 0;
    for (size_t i = 0; i < n; i++) {
        double e = fabs(got[i] - want[i]);
        err = isnan(e) ? INFINITY : fmax(err, e);
        scale = fmax(scale, fabs(want[i]));
    }
    return err / scale;
}

#define SEQ 11

static void check_case(const block_case *c)
{
    block_layout L = layout_of(c);
    posenc_encoder_config cfg = config_of(c);
    size_t params_len = 0, work_len = 0;
    CHECKF(posenc_encoder_sizes(&cfg, SEQ, &params_len, &work_len) == POSENC_OK, "%s: sizes", c->name);
    CHECKF(params_len == L.total, "%s: params_len %zu, the layout counts %zu", c->name, params_len, L.total);
    if (params_len != L.total)
        return;
    float *p = malloc(L.total * sizeof *p), *work = malloc(work_len * sizeof *work);
    float *out = malloc(SEQ * c->vocab * sizeof *out), *fed = malloc(c->vocab * sizeof *fed);
    double *want = malloc(SEQ * c->vocab * sizeof *want);
    int32_t tok[SEQ];
    for (size_t t = 0; t < SEQ; t++)
        tok[t] = (int32_t)((t * 7 + 3) % c->vocab);
    fill_params(c, &L, p);
    ref_logits(want, c, &L, p, tok, SEQ);
    CHECKF(posenc_encoder_logits(out, SEQ * c->vocab, &cfg, p, L.total, tok, SEQ, NULL, NULL, 1, -1, NULL, 0, work,
                                 work_len) == POSENC_OK,
           "%s: logits", c->name);
    double e = max_rel(out, want, SEQ * c->vocab);
    CHECKF(e < 1e-5, "%s: logits against double: %g", c->name, e);

    /* the decoder: one prompt of 4, then a token at a time, each feed's logits the row of the whole pass */
    posenc_decoder *dec = NULL;
    CHECKF(posenc_decoder_create(&dec, &cfg, p, L.total, 0, -1) == POSENC_OK, "%s: decoder", c->name);
    double worst = 0;
    for (size_t t = 0; dec && t < SEQ;) {
        size_t n = t == 0 ? 4 : 1;
        CHECK(posenc_decoder_feed(dec, tok + t, NULL, n, fed, c->vocab) == POSENC_OK);
        t += n;
        worst = fmax(worst, max_rel(fed, want + (t - 1) * c->vocab, c->vocab));
    }
    CHECKF(worst < 1e-5, "%s: decoder feeds against double: %g", c->name, worst);
    posenc_decoder_free(dec);
    free(p), free(work), free(out), free(fed), free(want);
}

static void test_block_passes(void)
{
    static const block_case cases[] = {
        /* Llama: RMSNorm, SiLU-gated, GQA 4/2, no biases, own head */
        { "llama", 32, 4, 2, 0, 48, 2, 40, 0, POSENC_NORM_KIND_RMS, POSENC_MLP_GATED, POSENC_ACTIVATION_SILU,
          POSENC_ATTENTION_BIAS_NONE, 0, 0 },
        /* Qwen2: q/k/v biases, one key head (multi-query), tied head */
        { "qwen2", 32, 4, 1, 0, 40, 2, 37, 0, POSENC_NORM_KIND_RMS, POSENC_MLP_GATED, POSENC_ACTIVATION_SILU,
          POSENC_ATTENTION_BIAS_QKV, 0, 1 },
        /* Qwen3: q/k norm, head_dim 16 with d_model 32 and 4 heads (q rows of 64) */
        { "qwen3", 32, 4, 2, 16, 44, 2, 33, 0, POSENC_NORM_KIND_RMS, POSENC_MLP_GATED, POSENC_ACTIVATION_SILU,
          POSENC_ATTENTION_BIAS_NONE, 1, 0 },
        /* Mistral with a sliding window of 3 */
        { "window", 32, 4, 2, 0, 48, 2, 40, 3, POSENC_NORM_KIND_RMS, POSENC_MLP_GATED, POSENC_ACTIVATION_SILU,
          POSENC_ATTENTION_BIAS_NONE, 0, 0 },
        /* the parts mixed: LayerNorm with a gated GELU MLP, all four biases, GQA */
        { "mixed", 24, 6, 3, 0, 20, 1, 29, 0, POSENC_NORM_KIND_LAYER, POSENC_MLP_GATED, POSENC_ACTIVATION_GELU_TANH,
          POSENC_ATTENTION_BIAS_ALL, 0, 0 },
        /* RMSNorm with the plain SiLU MLP and head_dim below d_model / heads */
        { "plain", 32, 2, 2, 8, 36, 2, 31, 0, POSENC_NORM_KIND_RMS, POSENC_MLP_PLAIN, POSENC_ACTIVATION_SILU,
          POSENC_ATTENTION_BIAS_ALL, 1, 1 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_case(&cases[i]);
}

static void test_block_refusals(void)
{
    static const block_case llama = { "llama", 32, 4, 2, 0, 48, 2, 40, 0, POSENC_NORM_KIND_RMS, POSENC_MLP_GATED,
                                      POSENC_ACTIVATION_SILU, POSENC_ATTENTION_BIAS_NONE, 0, 0 };
    size_t pl, wl;
    posenc_encoder_config c = config_of(&llama);
    c.kv_heads = 3; /* 4 heads do not split into 3 groups */
    CHECK(posenc_encoder_sizes(&c, 4, &pl, &wl) == POSENC_ERR_INVALID_ARGUMENT);
    c = config_of(&llama);
    c.heads = 5, c.kv_heads = 5; /* 32 / 5: no head_dim, none given */
    CHECK(posenc_encoder_sizes(&c, 4, &pl, &wl) == POSENC_ERR_INVALID_ARGUMENT);
    c.head_dim = 8; /* given: 5 heads of 8 over d_model 32 */
    CHECK(posenc_encoder_sizes(&c, 4, &pl, &wl) == POSENC_OK);
    c = config_of(&llama), c.norm_kind = 2;
    CHECK(posenc_encoder_sizes(&c, 4, &pl, &wl) == POSENC_ERR_INVALID_ARGUMENT);
    c = config_of(&llama), c.mlp = 2;
    CHECK(posenc_encoder_sizes(&c, 4, &pl, &wl) == POSENC_ERR_INVALID_ARGUMENT);
    c = config_of(&llama), c.attention_bias = 3;
    CHECK(posenc_encoder_sizes(&c, 4, &pl, &wl) == POSENC_ERR_INVALID_ARGUMENT);
    c = config_of(&llama), c.qk_norm = 2;
    CHECK(posenc_encoder_sizes(&c, 4, &pl, &wl) == POSENC_ERR_INVALID_ARGUMENT);
    c = config_of(&llama), c.activation = 4;
    CHECK(posenc_encoder_sizes(&c, 4, &pl, &wl) == POSENC_ERR_INVALID_ARGUMENT);
    c = config_of(&llama), c.head_dim = 7; /* RoPE pairs features: an odd head refused */
    CHECK(posenc_encoder_sizes(&c, 4, &pl, &wl) == POSENC_ERR_INVALID_ARGUMENT);
    c = config_of(&llama), c.kv_heads = (size_t)1 << 40;
    CHECK(posenc_encoder_sizes(&c, 4, &pl, &wl) == POSENC_ERR_INVALID_ARGUMENT);
    /* a huge head_dim: the layout's products past size_t, refused and named */
    c = config_of(&llama), c.positional = POSENC_POSITIONAL_NONE, c.head_dim = 0x7fffffff, c.heads = 0x7fffffff,
    c.kv_heads = 1;
    CHECK(posenc_encoder_sizes(&c, 4, &pl, &wl) != POSENC_OK);
}

static void test_block_kernels(void)
{
    /* SiLU: x sigmoid(x) against double over a sample of [-90, 90], within 2 ulp
       of the result where exp(x) is in float's range (x >= -87.33), -0 below */
    enum { N = 4003 };
    static float xs[N], ys[N];
    for (size_t i = 0; i < N; i++)
        xs[i] = ys[i] = (float)(-90.0 + 180.0 * (double)i / (N - 1));
    xs[0] = ys[0] = -100.0f; /* past exp's range: x e^x below FLT_MIN, flushed to 0 */
    nn_activate(ys, N, POSENC_ACTIVATION_SILU);
    double worst = 0;
    for (size_t i = 0; i < N; i++) {
        double x = xs[i], want = x / (1.0 + exp(-x)), ulp = fmax(fabs(want) * FLT_EPSILON, FLT_MIN);
        if (x < -87.33) /* exp(x) flushed to 0: -0 for a value below 1e-35 in magnitude */
            CHECK(ys[i] == 0.0f && fabs(want) < 1e-35);
        else
            worst = fmax(worst, fabs(ys[i] - want) / ulp);
    }
    CHECKF(worst <= 2.0, "silu: %g ulp", worst);
    float edge[4] = { 0.0f, -0.0f, 1e-30f, -1e-30f };
    nn_activate(edge, 4, POSENC_ACTIVATION_SILU);
    CHECK(edge[0] == 0.0f && edge[1] == 0.0f && edge[2] == 0.5e-30f && edge[3] == -0.5e-30f);

    /* RMSNorm: rows of 37 (a tail) and 8, in place */
    float x[3 * 37], g[37];
    double want[3 * 37];
    for (size_t i = 0; i < 3 * 37; i++)
        x[i] = block_uniform(3.0f);
    for (size_t k = 0; k < 37; k++)
        g[k] = block_uniform(2.0f);
    for (size_t r = 0; r < 3; r++) {
        double xd[37];
        for (size_t k = 0; k < 37; k++)
            xd[k] = x[r * 37 + k];
        ref_norm(want + r * 37, xd, 37, g, POSENC_NORM_KIND_RMS, 1e-6);
    }
    nn_rms_norm(x, x, 3, 37, g, 1e-6);
    double e = 0;
    for (size_t i = 0; i < 3 * 37; i++)
        e = fmax(e, fabs(x[i] - want[i]) / fmax(fabs(want[i]), 1e-30));
    CHECKF(e <= FLT_EPSILON, "rms_norm: %g relative (one rounding in double: within an ulp)", e);
}

void test_block(void)
{
    test_block_kernels();
    test_block_passes();
    test_block_refusals();
}
