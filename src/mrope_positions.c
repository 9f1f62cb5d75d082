/*
 * mrope_positions.c: the [3][seq] M-RoPE positions of a sequence of text
 * spans and image / video grids, as Hugging Face's Qwen2-VL and Qwen2.5-VL
 * get_rope_index build them (formula and source in posenc.h).
 */
#include "posenc.h"

#include <math.h>
#include <stddef.h>

#include "checked.h"
#include "params.h"

#define POSITION_LIMIT 2147483648.0 /* 2^31: positions are int32 */

/* A span's grid after the patch merger: (t, h / m, w / m) tokens. */
typedef struct span_grid {
    size_t t, h, w, tokens;
} span_grid;

/* A side of a grid (spans, argument 4): its row, and a multiple of merge. */
static int check_side(int id, const char *name, size_t v, size_t merge)
{
    int status = param_check(id, 4, (double)v);
    if (status || v % merge == 0)
        return status;
    return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, id, 4, name, POSENC_RULE_MULTIPLE, (double)v, (double)merge,
                             POSENC_POSITION_MAX, "spatial_merge_size",
                             "the patch merger joins spatial_merge_size x spatial_merge_size patches");
}

static int grid_of(const posenc_mrope_span *s, size_t merge, span_grid *g)
{
    int status;
    if ((status = check_side(POSENC_PARAM_SPAN_T, "spans.t", s->t, 1)) ||
        (status = check_side(POSENC_PARAM_SPAN_H, "spans.h", s->h, merge)) ||
        (status = check_side(POSENC_PARAM_SPAN_W, "spans.w", s->w, merge)))
        return status;
    g->t = s->t, g->h = s->h / merge, g->w = s->w / merge;
    /* every token's position must fit int32 anyway: larger grids are invalid, not an overflow */
    if ((double)g->t * (double)g->h * (double)g->w >= POSITION_LIMIT)
        return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_NONE, 4, "spans", POSENC_RULE_RESULT,
                                 (double)g->t * (double)g->h * (double)g->w, POSENC_POSITION_MAX, POSENC_POSITION_MAX,
                                 NULL,
                                 "holds a grid of more than % tokens: t * (h / spatial_merge_size) * "
                                 "(w / spatial_merge_size)");
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

/* A span whose last position is past int32. */
static int fail_position(double last)
{
    return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_NONE, 4, "spans", POSENC_RULE_RESULT, last,
                             POSENC_POSITION_MAX, POSENC_POSITION_MAX, NULL,
                             "puts a position past int32: its last position, after those of the spans before it, "
                             "must be at most %");
}

/* The check of span i, walk's: records it as element i of spans. */
static int span_check(const posenc_mrope_span *s, size_t merge, double tokens_per_second, double next,
                      span_grid *g, double *top)
{
    int status;
    if (s->kind == POSENC_MROPE_TEXT) {
        if (s->t > (size_t)INT32_MAX)
            return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_SPAN_T, 4, "spans.t",
                                     POSENC_RULE_INTEGER, (double)s->t, 0.0, POSENC_POSITION_MAX, NULL,
                                     "for a text span (0 allowed)");
        if (next + (double)s->t > POSITION_LIMIT)
            return fail_position(next + (double)s->t - 1.0);
        return POSENC_OK;
    }
    if ((status = param_check(POSENC_PARAM_SPAN_KIND, 4, s->kind)) || (status = grid_of(s, merge, g)) ||
        (s->kind == POSENC_MROPE_VIDEO &&
         (status = param_check(POSENC_PARAM_SECONDS_PER_GRID, 4, s->seconds_per_grid))))
        return status;
    /* temporal offsets grow with ti (float32 rounding is monotone): the last is the largest */
    double last_t = temporal(s, g->t - 1, tokens_per_second);
    if (last_t < 0.0)
        return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_SECONDS_PER_GRID, 4,
                                 "spans.seconds_per_grid", POSENC_RULE_RESULT, s->seconds_per_grid,
                                 POSENC_POSITION_MAX, POSENC_POSITION_MAX, NULL,
                                 "puts the last frame past int32: (t - 1) * seconds_per_grid * tokens_per_second, "
                                 "in float32, must be at most %");
    *top = fmax(last_t, fmax((double)(g->h - 1), (double)(g->w - 1)));
    return next + *top >= POSITION_LIMIT ? fail_position(next + *top) : POSENC_OK;
}

/* Span i brings the tokens so far, at, past what size_t counts. */
static int fail_tokens(size_t at, size_t tokens, size_t i)
{
    return param_element(param_fail_detail(POSENC_ERR_SIZE_OVERFLOW, POSENC_PARAM_NONE, 4, "spans",
                                           POSENC_RULE_RESULT, (double)at + (double)tokens, 0.0, (double)SIZE_MAX,
                                           NULL, "brings the token count of the spans past SIZE_MAX"),
                         i);
}

/* Walks the spans once: checks them and, when out is not NULL, writes. *seq = tokens. */
static int walk(int32_t *out, size_t seq, const posenc_mrope_span *spans, size_t n_spans, size_t merge,
                double tokens_per_second, size_t *tokens)
{
    double next = 0.0; /* HF's st_idx: the largest position so far + 1 */
    size_t at = 0, end = 0;
    for (size_t i = 0; i < n_spans; i++) {
        const posenc_mrope_span *s = &spans[i];
        span_grid g = { 0, 0, 0, 0 };
        double top = 0.0;
        int status = span_check(s, merge, tokens_per_second, next, &g, &top);
        if (status)
            return param_element(status, i);
        if (s->kind == POSENC_MROPE_TEXT) {
            for (size_t j = 0; out && j < s->t; j++)
                out[at + j] = out[seq + at + j] = out[2 * seq + at + j] = (int32_t)(next + (double)j);
            if (__builtin_add_overflow(at, s->t, &end))
                return fail_tokens(at, s->t, i);
            at = end;
            next += (double)s->t;
            continue;
        }
        for (size_t ti = 0; out && ti < g.t; ti++) {
            int32_t pt = (int32_t)(next + temporal(s, ti, tokens_per_second));
            for (size_t hi = 0; hi < g.h; hi++)
                for (size_t wi = 0; wi < g.w; wi++, at++) {
                    out[at] = pt;
                    out[seq + at] = (int32_t)(next + (double)hi);
                    out[2 * seq + at] = (int32_t)(next + (double)wi);
                }
        }
        if (!out && __builtin_add_overflow(at, g.tokens, &end))
            return fail_tokens(at, g.tokens, i);
        at = out ? at : end;
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
    if (!out)
        return fail_null(1, "out");
    if (!spans && n_spans)
        return fail_null(4, "spans");
    if (spatial_merge_size == 0)
        spatial_merge_size = (size_t)param_or_default(POSENC_PARAM_SPATIAL_MERGE_SIZE, 0.0);
    if ((status = param_check(POSENC_PARAM_SPATIAL_MERGE_SIZE, 6, (double)spatial_merge_size)) ||
        (status = param_check(POSENC_PARAM_TOKENS_PER_SECOND, 7, tokens_per_second)))
        return status;
    /* first pass: check everything and count, writing nothing */
    if ((status = walk(NULL, 0, spans, n_spans, spatial_merge_size, tokens_per_second, &tokens)))
        return status;
    if (tokens != seq)
        return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_SEQ, 3, "seq", POSENC_RULE_RESULT,
                                 (double)seq, (double)tokens, (double)tokens, NULL,
                                 "must be the tokens of the spans, %");
    if (__builtin_mul_overflow(seq, (size_t)3, &need))
        return fail_size(3, "seq * 3", seq, 3);
    if (out_len < need)
        return fail_length(2, "out_len", out_len, need);
    /* the spans are read while out is written */
    if (posenc_overlaps(out, posenc_bytes(need, sizeof *out), spans, posenc_bytes(n_spans, sizeof *spans)))
        return fail_overlap(1, "out", "spans");
    return walk(out, seq, spans, n_spans, spatial_merge_size, tokens_per_second, &tokens);
}
