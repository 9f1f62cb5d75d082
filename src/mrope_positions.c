/*
 * mrope_positions.c: the [3][seq] M-RoPE positions of a sequence of text
 * spans and image / video grids, as Hugging Face's Qwen2-VL and Qwen2.5-VL
 * get_rope_index build them (formula and source in posenc.h).
 */
#include "posenc.h"

#include <math.h>
#include <stddef.h>

#include "checked.h"


#define POSITION_LIMIT 2147483648.0 /* 2^31: positions are int32 */

/* A span's grid after the patch merger: (t, h / m, w / m) tokens. */
typedef struct span_grid {
    size_t t, h, w, tokens;
} span_grid;

static int grid_of(const posenc_mrope_span *s, size_t merge, span_grid *g)
{
    if (s->t == 0 || s->h == 0 || s->w == 0 || s->h % merge || s->w % merge)
        return POSENC_ERR_INVALID_ARGUMENT;
    g->t = s->t, g->h = s->h / merge, g->w = s->w / merge;
    /* every token's position must fit int32 anyway: larger grids are invalid, not an overflow */
    if (g->t > (size_t)INT32_MAX || g->h > (size_t)INT32_MAX || g->w > (size_t)INT32_MAX ||
        (double)g->t * (double)g->h * (double)g->w >= POSITION_LIMIT)
        return POSENC_ERR_INVALID_ARGUMENT;
    g->tokens = g->t * g->h * g->w;
    return POSENC_OK;
}

/*
 * The temporal offset of frame ti: ti (Qwen2-VL), or Qwen2.5-VL's
 * long(ti * second_per_grid_t * tokens_per_second) in float32, as torch
 * evaluates it (an image has second_per_grid_t = 0). -1 when it is not a
 * valid int32 offset.
 */
static double temporal(const posenc_mrope_span *s, size_t ti, double tokens_per_second)
{
    if (tokens_per_second == 0.0)
        return (double)ti;
    if (s->kind == POSENC_MROPE_IMAGE)
        return 0.0;
    float v = (float)ti * (float)s->seconds_per_grid;
    v = v * (float)tokens_per_second;
    return v < (float)POSITION_LIMIT ? trunc((double)v) : -1.0;
}

/* Walks the spans once: checks them and, when out is not NULL, writes. *seq = tokens. */
static int walk(int32_t *out, size_t seq, const posenc_mrope_span *spans, size_t n_spans, size_t merge,
                double tokens_per_second, size_t *tokens)
{
    double next = 0.0; /* HF's st_idx: the largest position so far + 1 */
    size_t at = 0;
    for (size_t i = 0; i < n_spans; i++) {
        const posenc_mrope_span *s = &spans[i];
        if (s->kind == POSENC_MROPE_TEXT) {
            if (s->t > (size_t)INT32_MAX || next + (double)s->t > POSITION_LIMIT)
                return POSENC_ERR_INVALID_ARGUMENT;
            for (size_t j = 0; out && j < s->t; j++)
                out[at + j] = out[seq + at + j] = out[2 * seq + at + j] = (int32_t)(next + (double)j);
            if (__builtin_add_overflow(at, s->t, &at))
                return POSENC_ERR_SIZE_OVERFLOW;
            next += (double)s->t;
            continue;
        }
        span_grid g;
        if ((s->kind != POSENC_MROPE_IMAGE && s->kind != POSENC_MROPE_VIDEO) || grid_of(s, merge, &g) ||
            (s->kind == POSENC_MROPE_VIDEO && !(isfinite(s->seconds_per_grid) && s->seconds_per_grid >= 0.0)))
            return POSENC_ERR_INVALID_ARGUMENT;
        /* temporal offsets grow with ti (float32 rounding is monotone): the last is the largest */
        double last_t = temporal(s, g.t - 1, tokens_per_second);
        double top = fmax(last_t, fmax((double)(g.h - 1), (double)(g.w - 1)));
        if (last_t < 0.0 || next + top >= POSITION_LIMIT)
            return POSENC_ERR_INVALID_ARGUMENT;
        for (size_t ti = 0; out && ti < g.t; ti++) {
            int32_t pt = (int32_t)(next + temporal(s, ti, tokens_per_second));
            for (size_t hi = 0; hi < g.h; hi++)
                for (size_t wi = 0; wi < g.w; wi++, at++) {
                    out[at] = pt;
                    out[seq + at] = (int32_t)(next + (double)hi);
                    out[2 * seq + at] = (int32_t)(next + (double)wi);
                }
        }
        if (!out && __builtin_add_overflow(at, g.tokens, &at))
            return POSENC_ERR_SIZE_OVERFLOW;
        next += top + 1.0;
    }
    *tokens = at;
    return POSENC_OK;
}

int posenc_mrope_positions(int32_t *out, size_t out_len, size_t seq, const posenc_mrope_span *spans,
                           size_t n_spans, size_t spatial_merge_size, double tokens_per_second)
{
    size_t tokens, need;
    int status;
    if (!out || (!spans && n_spans))
        return POSENC_ERR_NULL_POINTER;
    if (spatial_merge_size == 0)
        spatial_merge_size = 2;
    if (!(isfinite(tokens_per_second) && tokens_per_second >= 0.0))
        return POSENC_ERR_INVALID_ARGUMENT;
    /* first pass: check everything and count, writing nothing */
    if ((status = walk(NULL, 0, spans, n_spans, spatial_merge_size, tokens_per_second, &tokens)))
        return status;
    if (tokens != seq)
        return POSENC_ERR_INVALID_ARGUMENT;
    if (__builtin_mul_overflow(seq, (size_t)3, &need))
        return POSENC_ERR_SIZE_OVERFLOW;
    if (out_len < need)
        return POSENC_ERR_BUFFER_TOO_SMALL;
    /* the spans are read while out is written */
    if (posenc_overlaps(out, posenc_bytes(need, sizeof *out), spans, posenc_bytes(n_spans, sizeof *spans)))
        return POSENC_ERR_INVALID_ARGUMENT;
    return walk(out, seq, spans, n_spans, spatial_merge_size, tokens_per_second, &tokens);
}
