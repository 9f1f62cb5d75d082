/*
 * nn_attend.c: the attention of one head (formulas in nn_attend.h), a block
 * of NN_ATTEND_ROWS queries at a time: their scores against the keys the
 * block reads (q k^T through nn_linear), a softmax per row over the keys that
 * row reads, then p v through nn_mix. The block's scores stay in L1 (4 rows
 * of at most a few thousand floats) instead of a whole seq x seq plane
 * making a round trip through memory, and a causal block stops at its last
 * query's position: about half the work of the full square.
 */
#include "nn_attend.h"

#include <math.h>

#include "nn_kernels.h"
#include "nn_math.h"
#include "simd.h"

/*
 * row[j] = row[j] * scale (+ b[j]), -INFINITY where mask[j] == 0, for j < n
 * (the same two float operations per score); returns the row's maximum as
 * nn_row_max finds it (the largest, lanes then in order: exact, so any order
 * gives it).
 */
static float score_row(float *row, size_t n, float scale, const float *b, const int32_t *mask)
{
    size_t n4 = n & ~(size_t)3, j;
    f32x4 s = f32x4_splat(scale), m4 = f32x4_splat(-INFINITY), none = m4;
    for (j = 0; j < n4; j += 4) {
        f32x4 v = f32x4_mul(f32x4_load(row + j), s);
        if (b)
            v = f32x4_add(v, f32x4_load(b + j));
        if (mask)
            v = f32x4_select(u32x4_eqz(u32x4_load(mask + j)), none, v);
        f32x4_store(row + j, v);
        m4 = f32x4_select(f32x4_gt(v, m4), v, m4);
    }
    float lanes[4], m = -INFINITY;
    f32x4_store(lanes, m4);
    for (int l = 0; l < 4; l++)
        m = lanes[l] > m ? lanes[l] : m;
    for (; j < n; j++) {
        float v = b ? row[j] * scale + b[j] : row[j] * scale;
        row[j] = mask && !mask[j] ? -INFINITY : v;
        m = row[j] > m ? row[j] : m;
    }
    return m;
}

/* The keys the query at position i reads: j <= i when causal, else all. */
static size_t keys_read(const nn_head *a, size_t i)
{
    return a->causal && i + 1 < a->keys ? i + 1 : a->keys;
}

void nn_attend_head(const nn_head *a)
{
    double sums[NN_ATTEND_ROWS];
    for (size_t r0 = 0, nr; r0 < a->rows; r0 += nr) {
        nr = a->rows - r0;
        if (nr > NN_ATTEND_ROWS)
            nr = NN_ATTEND_ROWS;
        size_t last = a->first + r0 + nr - 1; /* the block's last query position */
        size_t span = keys_read(a, last); /* the keys the block reads */
        float *p = a->probs ? a->probs + r0 * a->probs_stride : a->scratch;
        size_t ps = a->probs ? a->probs_stride : a->keys;
        nn_linear(p, ps, a->q + r0 * a->q_stride, a->q_stride, nr, a->k, a->kv_stride, span, a->head_dim, NULL);
        for (size_t r = 0; r < nr; r++) {
            size_t i = a->first + r0 + r, n = keys_read(a, i);
            float *row = p + r * ps;
            const float *b = a->bias ? a->bias + (ptrdiff_t)i * a->bias_step : NULL;
            /* a window: the keys before it masked, the rest scored as they are */
            size_t lo = a->window && i + 1 > a->window ? i + 1 - a->window : 0;
            lo = lo < n ? lo : n;
            for (size_t j = 0; j < lo; j++)
                row[j] = -INFINITY;
            float m = score_row(row + lo, n - lo, a->scale, b ? b + lo : NULL, a->key_mask ? a->key_mask + lo : NULL);
            sums[r] = nn_softmax_exp(row, n, m);
        }
        for (size_t r = 0; r < nr; r++) { /* the block's rows, then their scales: the rows' chains overlap */
            size_t n = keys_read(a, a->first + r0 + r);
            float *row = p + r * ps;
            nn_softmax_scale(row, n, sums[r]);
            /* p v reads the block's span; the probabilities run to keys */
            for (size_t j = n, end = a->probs ? a->keys : span; j < end; j++)
                row[j] = 0.0f;
        }
        nn_mix(a->out + r0 * a->out_stride, a->out_stride, p, ps, nr, a->v, a->kv_stride, span, a->head_dim);
    }
}
