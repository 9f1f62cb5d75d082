/* decode.c: the fuzz input decoder, buffers and checks (see decode.h). */
#include "decode.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "posenc_encoder.h"

#define COUNT(a) (sizeof(a) / sizeof(a)[0])
#define CANARY 0xA5

/* FUZZ_TRACE=1 prints every decoded parameter (to read a finding's input). */
static int tracing(void)
{
    static int on = -1;
    if (on < 0)
        on = getenv("FUZZ_TRACE") != NULL;
    return on;
}

#define TRACE(fmt, v) (tracing() ? (void)fprintf(stderr, "%s: " fmt "\n", __func__, v) : (void)0)

uint8_t take_u8(fuzz_in *in)
{
    if (in->size == 0)
        return 0;
    in->size--;
    return *in->data++;
}

static uint64_t take_bits(fuzz_in *in, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v = v << 8 | take_u8(in);
    return v;
}

static size_t decode_size(fuzz_in *in)
{
    /* the products of sizes overflow here: 2^32 * 2^32, (2^63 + 1) * 2, ... */
    static const size_t edges[] = {
        0, 1, 2, 3, 4, 5, 8, 1023, 1024, 1025, 65535, 65536, 65537,
        (size_t)INT32_MAX - 1, (size_t)INT32_MAX, (size_t)INT32_MAX + 1, (size_t)INT32_MAX + 2,
        (size_t)UINT32_MAX, (size_t)UINT32_MAX + 1, (size_t)UINT32_MAX + 2,
        SIZE_MAX / 3, SIZE_MAX / 2, SIZE_MAX / 2 + 1, SIZE_MAX / 2 + 2, SIZE_MAX - 1, SIZE_MAX,
    };
    uint8_t sel = take_u8(in);
    if (sel < 144)
        return sel % 24;
    if (sel < 176)
        return (size_t)take_bits(in, 2) % 4096;
    if (sel < 240)
        return edges[sel % COUNT(edges)];
    return (size_t)take_bits(in, 8);
}

size_t take_size(fuzz_in *in)
{
    size_t v = decode_size(in);
    TRACE("%zu", v);
    return v;
}

void take_encoder_config(fuzz_in *in, posenc_encoder_config *c, const double *inv_freq, int small)
{
    memset(c, 0, sizeof *c);
    c->heads = small ? 1 + take_u8(in) % 4 : take_size(in);
    c->d_model = small ? c->heads * (take_u8(in) % 5) : take_size(in);
    c->vocab_size = small ? take_u8(in) % 17 : take_size(in);
    c->d_ff = small ? take_u8(in) % 17 : take_size(in);
    c->layers = small ? take_u8(in) % 3 : take_size(in);
    c->languages = small ? take_u8(in) % 3 : take_size(in);
    c->positional = take_enum(in, 6);
    c->norm = take_enum(in, 2);
    c->activation = take_enum(in, 3);
    c->final_norm = take_enum(in, 2);
    c->embed_scale = take_u8(in) % 2 ? 0.0 : take_double(in); /* 0: the default */
    c->norm_eps = take_u8(in) % 2 ? 0.0 : take_double(in);
    c->sinusoidal.base = take_u8(in) % 2 ? 0.0 : take_double(in);
    c->sinusoidal.layout = take_enum(in, 4);
    c->rope.layout = take_enum(in, 2);
    c->rope.rotary_dim = take_u8(in) % 2 ? 0 : take_size(in) % (2 * FUZZ_CAP + 2);
    c->rope.precision = take_enum(in, 2);
    c->rope.attention_factor = take_u8(in) % 2 ? 0.0 : take_double(in);
    c->alibi.max_bias = take_u8(in) % 2 ? 0.0 : take_double(in);
    c->t5.num_buckets = take_u8(in) % 2 ? 0 : small ? take_u8(in) % 40 : take_size(in);
    c->t5.max_distance = take_u8(in) % 2 ? 0 : small ? take_u8(in) % 200 : take_size(in);
    c->t5.unidirectional = take_enum(in, 2);
    size_t rotary = c->rope.rotary_dim ? c->rope.rotary_dim : c->heads ? c->d_model / c->heads : 0;
    c->rope.inv_freq = take_u8(in) % 16 && rotary / 2 <= FUZZ_CAP ? inv_freq : NULL;
    c->learned.max_length = small ? take_u8(in) % 12 : take_size(in);
    c->lm_head = take_enum(in, 3);
}

void take_query_scale(fuzz_in *in, posenc_encoder_config *c)
{
    c->query_scale.type = take_enum(in, 3);
    c->query_scale.floor_scale = take_u8(in) % 2 ? 0.0 : take_double(in);
    c->query_scale.attn_scale = take_u8(in) % 2 ? 0.0 : take_double(in);
    c->query_scale.beta = take_double(in);
    c->query_scale.original_max_position = take_u8(in) % 2 ? (double)(1 + take_u8(in) % 8) : take_double(in);
}

size_t take_small(fuzz_in *in)
{
    return take_size(in) % (FUZZ_CAP + 1);
}

static int32_t decode_i32(fuzz_in *in)
{
    static const int32_t edges[] = {
        INT32_MIN, INT32_MIN + 1, INT32_MIN + 2, -65536, -1024, -2, -1, 0, 1, 2, 1023, 1024, 65535,
        INT32_MAX - 1024, INT32_MAX - 2, INT32_MAX - 1, INT32_MAX,
    };
    uint8_t sel = take_u8(in);
    if (sel < 128)
        return (int32_t)(sel % 40) - 8;
    if (sel < 224)
        return edges[sel % COUNT(edges)];
    return (int32_t)(uint32_t)take_bits(in, 4);
}

int32_t take_i32(fuzz_in *in)
{
    int32_t v = decode_i32(in);
    TRACE("%d", (int)v);
    return v;
}

static int decode_enum(fuzz_in *in, int n_valid)
{
    static const int edges[] = { -1, INT_MIN, INT_MAX, 255, -2 };
    uint8_t sel = take_u8(in);
    if (sel < 232)
        return sel % n_valid;
    if (sel < 240)
        return n_valid;
    return edges[sel % COUNT(edges)];
}

int take_enum(fuzz_in *in, int n_valid)
{
    int v = decode_enum(in, n_valid);
    TRACE("%d", v);
    return v;
}

static double bits_double(uint64_t b)
{
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

static double decode_double(fuzz_in *in)
{
    static const double edges[] = {
        0.0, -0.0, 1.0, -1.0, 2.0, 0.5, 0.25, 1.5, 3.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 1000.0,
        4096.0, 8192.0, 10000.0, 500000.0, 1e-3, 1e-300, 1e300, 0x1p31, 0x1p32, 0x1p53, 0x1p64,
        0x1p96, 0x1p97, 0x1p128, 0x1p993, 1.0 + DBL_EPSILON, 1.0 - DBL_EPSILON / 2, DBL_MAX,
        -DBL_MAX, DBL_MIN, 4.9406564584124654e-324, NAN, -NAN, INFINITY, -INFINITY, -10000.0,
    };
    uint8_t sel = take_u8(in);
    if (sel < 160)
        return edges[sel % COUNT(edges)];
    if (sel < 224) {
        double num = take_u8(in);
        return num / (double)(1 + take_u8(in) % 16);
    }
    return bits_double(take_bits(in, 8));
}

double take_double(fuzz_in *in)
{
    double v = decode_double(in);
    TRACE("%.17g", v);
    return v;
}

static float decode_float(fuzz_in *in)
{
    static const float edges[] = {
        0.0f, -0.0f, 1.0f, -1.0f, 2.0f, 0.5f, 8.0f, 22.627417f, 1e-30f, 1e30f, FLT_MAX, -FLT_MAX,
        FLT_MIN, 1.4e-45f, NAN, INFINITY, -INFINITY,
    };
    uint8_t sel = take_u8(in);
    if (sel < 160)
        return edges[sel % COUNT(edges)];
    if (sel < 224)
        return (float)take_u8(in) / 16.0f - 8.0f;
    uint32_t b = (uint32_t)take_bits(in, 4);
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

float take_float(fuzz_in *in)
{
    float v = decode_float(in);
    TRACE("%.9g", (double)v);
    return v;
}

float take_value(fuzz_in *in)
{
    return (float)(int16_t)take_bits(in, 2) / 64.0f;
}

int take_null(fuzz_in *in)
{
    return take_u8(in) % 32 == 31;
}

static size_t decode_len(fuzz_in *in, size_t need, int need_ok)
{
    switch (take_u8(in) % 8) {
    case 0:
    case 1:
        return need_ok ? need : SIZE_MAX;
    case 2:
        return need_ok && need > 0 ? need - 1 : 0;
    case 3:
        return need_ok ? need + take_u8(in) % 4 : SIZE_MAX;
    case 4:
        return need / 2;
    case 5:
        return SIZE_MAX;
    case 6:
        return 0;
    default:
        return take_size(in);
    }
}

size_t take_len(fuzz_in *in, size_t need, int need_ok)
{
    size_t v = decode_len(in, need, need_ok);
    TRACE("%zu", v);
    return v;
}

int fuzz_plan(size_t *len, size_t need, int need_ok)
{
    if (need_ok && need > FUZZ_CAP && *len >= need)
        *len = need - 1;
    return !need_ok || *len < need;
}

void buf_new(fuzz_buf *b, size_t len, size_t limit, size_t elem)
{
    b->len = len;
    b->alloc = len < limit ? len : limit;
    if (b->alloc > FUZZ_CAP)
        b->alloc = FUZZ_CAP;
    b->elem = elem;
    /* malloc(0) under ASan: a valid pointer to zero accessible bytes */
    b->p = malloc(b->alloc * elem);
    b->before = malloc(b->alloc * elem);
    if ((!b->p || !b->before) && b->alloc > 0)
        abort();
    memset(b->p, CANARY, b->alloc * elem);
    buf_snapshot(b);
}

void buf_new_values(fuzz_buf *b, size_t len, size_t limit, fuzz_in *in)
{
    buf_new(b, len, limit, sizeof(float));
    float *v = (float *)(void *)b->p;
    for (size_t i = 0; i < b->alloc; i++)
        v[i] = take_value(in);
    buf_snapshot(b);
}

void *fuzz_alias(fuzz_in *in, fuzz_buf *host, void *src, size_t n, size_t elem, int *aliased)
{
    size_t room = host->alloc * host->elem, bytes = n * elem;
    if (take_u8(in) % 8 != 0 || !src || n == 0 || n > room / elem)
        return src;
    unsigned char *copy = host->p + (room - bytes) / elem * elem; /* malloc aligns host->p */
    memcpy(copy, src, bytes);
    buf_snapshot(host);
    *aliased = 1;
    return copy;
}

void buf_snapshot(fuzz_buf *b)
{
    if (b->alloc > 0)
        memcpy(b->before, b->p, b->alloc * b->elem);
}

int buf_unchanged(const fuzz_buf *b)
{
    return b->alloc == 0 || memcmp(b->before, b->p, b->alloc * b->elem) == 0;
}

void buf_free(fuzz_buf *b)
{
    free(b->p);
    free(b->before);
    b->p = b->before = NULL;
}

int same_bits(float a, float b)
{
    uint32_t x, y;
    memcpy(&x, &a, sizeof x);
    memcpy(&y, &b, sizeof y);
    return x == y;
}

int mul2(size_t a, size_t b, size_t *need)
{
    return !__builtin_mul_overflow(a, b, need);
}

int mul3(size_t a, size_t b, size_t c, size_t *need)
{
    size_t ab;
    if (a == 0 || b == 0 || c == 0) { /* the true product, whatever a * b alone would do */
        *need = 0;
        return 1;
    }
    return !__builtin_mul_overflow(a, b, &ab) && !__builtin_mul_overflow(ab, c, need);
}

void check_status(int status)
{
    FUZZ_ASSERT(status == POSENC_OK || status == POSENC_ERR_NULL_POINTER ||
                status == POSENC_ERR_INVALID_ARGUMENT || status == POSENC_ERR_SIZE_OVERFLOW ||
                status == POSENC_ERR_BUFFER_TOO_SMALL || status == POSENC_ERR_OUT_OF_MEMORY);
    FUZZ_ASSERT(strcmp(posenc_strerror(status), "unknown status") != 0);
}

void fuzz_fail(const char *file, int line, const char *what)
{
    fprintf(stderr, "%s:%d: invariant violated: %s\n", file, line, what);
    abort();
}
