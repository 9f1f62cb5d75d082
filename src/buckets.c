/*
 * buckets.c: T5 and DeBERTa-v2 relative-position buckets (formulas and
 * sources in posenc.h). Both reproduce torch's float32 evaluation: float
 * division and multiplication in C float (FLT_EVAL_METHOD 0 on x86-64 and
 * wasm, -ffp-contract=off), each log as (float)log((double)x) with posenc's
 * own double log (src/fmath.h), so that native and wasm buckets agree.
 *
 * Both matrices are Toeplitz (the value depends on column - row only), so a
 * routine evaluates row 0 and column 0 (query_len + key_len - 1 values) and
 * copies every other row from the one above, shifted right by one.
 */
#include "posenc.h"

#include <math.h>
#include <string.h>

#include "bias_terms.h"
#include "checked.h"
#include "fmath.h"
#include "params.h"
#include "position_range.h"

/* out[i][j] = at(ctx, j - i): T5's and DeBERTa's buckets depend only on the
 * key - query difference, so row 0 and column 0 are computed and every other
 * row is the row above shifted right by one. */
static void fill_by_difference(int32_t *out, size_t query_len, size_t key_len,
                               int32_t (*at)(const void *ctx, int64_t diff), const void *ctx)
{
    for (size_t j = 0; j < key_len; j++)
        out[j] = at(ctx, (int64_t)j);
    for (size_t i = 1; i < query_len; i++) {
        int32_t *row = out + i * key_len;
        row[0] = at(ctx, -(int64_t)i);
        memcpy(row + 1, row - key_len, (key_len - 1) * sizeof *row);
    }
}

/* The last query position query_offset + query_len - 1 and the last key
 * key_len - 1 must be int32. query_len and key_len are the arguments at
 * positions q_index and q_index + 1, query_offset at offset_index. */
static int check_positions(size_t query_len, size_t key_len, int32_t query_offset, int q_index, int offset_index)
{
    int status;
    if ((status = param_check(POSENC_PARAM_QUERY_LEN, q_index, (double)query_len)) ||
        (status = param_check(POSENC_PARAM_KEY_LEN, q_index + 1, (double)key_len)) ||
        (status = param_check(POSENC_PARAM_QUERY_OFFSET, offset_index, query_offset)))
        return status;
    return check_last_position(query_len, query_offset, POSENC_PARAM_QUERY_OFFSET, offset_index,
                               "positions are int32: query_offset + query_len - 1 must be at most 2147483647");
}

/* ---------------------------------------------------------------- T5 */

/* The plan; bidirectional, num_buckets and max_distance are the arguments
 * at positions index, index + 1 and index + 2 (posenc_last_error). */
static int t5_plan_make(t5_plan *p, int bidirectional, size_t num_buckets, size_t max_distance, int index)
{
    int status;
    if (num_buckets == 0)
        num_buckets = (size_t)param_or_default(POSENC_PARAM_NUM_BUCKETS, 0.0);
    if (max_distance == 0)
        max_distance = (size_t)param_or_default(POSENC_PARAM_MAX_DISTANCE, 0.0);
    if ((status = param_check(POSENC_PARAM_BIDIRECTIONAL, index, bidirectional)) ||
        (status = param_check(POSENC_PARAM_NUM_BUCKETS, index + 1, (double)num_buckets)))
        return status;
    /* HF floors an odd bidirectional count and wastes a bucket: rejected */
    if (bidirectional && (num_buckets % 2 != 0 || num_buckets < 4))
        return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_NUM_BUCKETS, index + 1, "num_buckets",
                                 POSENC_RULE_EVEN, (double)num_buckets, 4.0, POSENC_POSITION_MAX, NULL,
                                 "half of them per direction when bidirectional, each half at least 2; Hugging "
                                 "Face floors an odd count and silently leaves a bucket unused");
    if ((status = param_check(POSENC_PARAM_MAX_DISTANCE, index + 2, (double)max_distance)))
        return status;
    p->bidirectional = bidirectional;
    p->num_buckets = (int32_t)num_buckets;
    p->nb = (int32_t)(bidirectional ? num_buckets / 2 : num_buckets);
    p->max_exact = p->nb / 2;
    if ((int64_t)max_distance <= p->max_exact) /* log(max_distance / max_exact) <= 0 */
        return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_MAX_DISTANCE, index + 2, "max_distance",
                                 POSENC_RULE_INTEGER, (double)max_distance, (double)p->max_exact + 1.0,
                                 POSENC_POSITION_MAX, NULL,
                                 "above num_buckets / 4 when bidirectional, num_buckets / 2 otherwise: the "
                                 "distances with a bucket each; log(max_distance / that) divides the log term "
                                 "and must be > 0");
    p->log_ratio = (float)fmath_log((double)max_distance / (double)p->max_exact);
    p->span = (float)(p->nb - p->max_exact);
    return POSENC_OK;
}

int t5_plan_init(t5_plan *p, int bidirectional, size_t num_buckets, size_t max_distance)
{
    return t5_plan_make(p, bidirectional, num_buckets, max_distance, 5); /* posenc_t5_buckets' positions */
}

/* T5Attention._relative_position_bucket for one rel = key - query. */
int32_t t5_bucket(const t5_plan *p, int64_t rel)
{
    int32_t bucket = 0;
    int64_t n;
    if (p->bidirectional) {
        if (rel > 0)
            bucket = p->nb;
        n = rel < 0 ? -rel : rel;
    } else {
        n = rel < 0 ? -rel : 0;
    }
    if (n < p->max_exact)
        return bucket + (int32_t)n;
    /* n >= max_exact >= 1: the log's argument is >= 1, never log(0) */
    float x = (float)n / (float)p->max_exact;
    float v = (float)fmath_log((double)x) / p->log_ratio * p->span;
    /* min(max_exact + trunc(v), nb - 1), clamped before the cast (v can exceed int32) */
    if (!((double)v < (double)(p->nb - p->max_exact)))
        return bucket + p->nb - 1;
    return bucket + p->max_exact + (int32_t)v;
}

/* The bucket of key j - query i = diff, query row 0 sitting at query_offset. */
typedef struct t5_at_ctx {
    const t5_plan *plan;
    int32_t query_offset;
} t5_at_ctx;

static int32_t t5_at(const void *ctx, int64_t diff)
{
    const t5_at_ctx *c = ctx;
    return t5_bucket(c->plan, diff - c->query_offset);
}

int posenc_t5_buckets(int32_t *out, size_t out_len, size_t query_len, size_t key_len,
                      int bidirectional, size_t num_buckets, size_t max_distance,
                      int32_t query_offset)
{
    t5_plan plan;
    size_t need;
    int status;
    if (!out)
        return fail_null(1, "out");
    if ((status = t5_plan_make(&plan, bidirectional, num_buckets, max_distance, 5)) ||
        (status = check_positions(query_len, key_len, query_offset, 3, 8)))
        return status;
    if ((status = check_out_len(out_len, query_len, key_len, &need)) || need == 0)
        return status;

    t5_at_ctx at = { &plan, query_offset };
    fill_by_difference(out, query_len, key_len, t5_at, &at);
    return POSENC_OK;
}

int posenc_t5_bias(float *out, size_t out_len, const float *weights, size_t weights_len,
                   size_t heads, size_t query_len, size_t key_len, int bidirectional,
                   size_t num_buckets, size_t max_distance, int32_t query_offset)
{
    t5_plan plan;
    size_t need, plane, table;
    int status;
    if (!out)
        return fail_null(1, "out");
    if (!weights)
        return fail_null(3, "weights");
    if ((status = param_check(POSENC_PARAM_HEADS, 5, (double)heads)) ||
        (status = t5_plan_make(&plan, bidirectional, num_buckets, max_distance, 8)) ||
        (status = check_positions(query_len, key_len, query_offset, 6, 11)))
        return status;
    if (checked_mul((size_t)plan.num_buckets, heads, &table))
        return fail_size(5, "heads * num_buckets", heads, (size_t)plan.num_buckets);
    if (checked_mul(query_len, key_len, &plane) || checked_mul(plane, heads, &need))
        return fail_size(5, "heads * query_len * key_len", heads, saturated_mul(query_len, key_len));
    if (weights_len < table)
        return fail_length(4, "weights_len", weights_len, table);
    if (out_len < need)
        return fail_length(2, "out_len", out_len, need);
    if (need == 0)
        return POSENC_OK;
    /* weights are gathered while out is written */
    if (posenc_overlaps(out, posenc_bytes(need, sizeof *out), weights, posenc_bytes(table, sizeof *weights)))
        return fail_overlap(1, "out", "weights");

    /* row 0 and column 0 of every head plane, one bucket per relative position */
    for (size_t c = 0; c < key_len + query_len - 1; c++) {
        size_t cell = c < key_len ? c : (c - key_len + 1) * key_len; /* (0, c) or (r, 0) */
        int64_t rel = c < key_len ? (int64_t)c - query_offset
                                  : -((int64_t)query_offset + (int64_t)(c - key_len + 1));
        const float *w = weights + (size_t)t5_bucket(&plan, rel) * heads;
        for (size_t h = 0; h < heads; h++)
            out[h * plane + cell] = w[h];
    }
    for (size_t h = 0; h < heads; h++) {
        float *p = out + h * plane;
        for (size_t r = 1; r < query_len; r++)
            memcpy(p + r * key_len + 1, p + (r - 1) * key_len, (key_len - 1) * sizeof *p);
    }
    return POSENC_OK;
}

/* ---------------------------------------------------------------- DeBERTa-v2 */

typedef struct deberta_plan {
    int64_t mid;       /* bucket_size / 2 >= 1                              */
    float mid_f;       /* f32(mid)                                          */
    float mid_minus_1; /* f32(mid - 1)                                      */
    float log_ratio;   /* f32 log of f32((max_position - 1) / mid), > 0    */
} deberta_plan;

/* make_log_bucket_position for one rel = query - key, as the float torch returns. */
static float deberta_value(const deberta_plan *p, int64_t rel)
{
    int64_t a = (rel < p->mid && rel > -p->mid) ? p->mid - 1 : (rel < 0 ? -rel : rel);
    if (a <= p->mid)
        return (float)rel; /* relative_pos.type_as(log_pos) */
    /* a > mid >= 1: the log's argument is >= 1 */
    float x = (float)a / p->mid_f;
    float log_pos = ceilf((float)fmath_log((double)x) / p->log_ratio * p->mid_minus_1) + p->mid_f;
    return rel < 0 ? -log_pos : log_pos;
}

/* The value as int32 (torch's .to(long)); validated inputs never saturate. */
static int32_t deberta_bucket(const deberta_plan *p, int64_t rel)
{
    float v = deberta_value(p, rel);
    if (!(v < 2147483648.0f))
        return INT32_MAX;
    if (!(v >= -2147483648.0f))
        return INT32_MIN;
    return (int32_t)v;
}

/* DeBERTa buckets query - key, the opposite sign of the difference. */
static int32_t deberta_at(const void *ctx, int64_t diff)
{
    return deberta_bucket(ctx, -diff);
}

/* The plan; bucket_size and max_position are the arguments at positions
 * index and index + 1 (posenc_last_error). */
static int deberta_plan_init(deberta_plan *p, size_t bucket_size, size_t max_position, int index)
{
    if (bucket_size == 0)
        bucket_size = (size_t)param_or_default(POSENC_PARAM_BUCKET_SIZE, 0.0);
    if (max_position == 0)
        max_position = (size_t)param_or_default(POSENC_PARAM_MAX_POSITION_DEBERTA, 0.0);
    if (!row_ok(&posenc_param_rows[POSENC_PARAM_BUCKET_SIZE], (double)bucket_size))
        return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_BUCKET_SIZE, index, "bucket_size",
                                 POSENC_RULE_INTEGER, (double)bucket_size, 2.0, POSENC_POSITION_MAX, NULL,
                                 "Hugging Face's position buckets <= 0 mean no bucketing: the plain q - k, the "
                                 "negation of the relative positions k - q");
    p->mid = (int64_t)(bucket_size / 2);
    p->mid_f = (float)p->mid;
    p->mid_minus_1 = (float)(p->mid - 1);
    /* torch.tensor((max_position - 1) / mid): a double quotient rounded to float32 */
    p->log_ratio = (float)fmath_log((double)(float)((double)(max_position - 1) / (double)p->mid));
    /* positive when that float is above 1: (max_position - 1) / mid > 1 + 2^-24 (a
     * quotient at or below it rounds to 1.0f), max_position >= mid + 2 + floor(mid / 2^24) */
    if (!(p->log_ratio > 0.0f))
        return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_MAX_POSITION_DEBERTA, index + 1,
                                 "max_position", POSENC_RULE_INTEGER, (double)max_position,
                                 (double)(p->mid + 2 + (p->mid >> 24)), POSENC_POSITION_MAX, NULL,
                                 "log(f32((max_position - 1) / (bucket_size / 2))), the log term's denominator, "
                                 "must be > 0 in float32");
    /* small values fail the log term above, which states their bound */
    return param_check(POSENC_PARAM_MAX_POSITION_DEBERTA, index + 1, (double)max_position);
}

int posenc_deberta_bucket(float *out, int32_t rel, size_t bucket_size, size_t max_position)
{
    deberta_plan plan;
    int status;
    if (!out)
        return fail_null(1, "out");
    if ((status = deberta_plan_init(&plan, bucket_size, max_position, 3)))
        return status;
    *out = deberta_value(&plan, rel);
    return POSENC_OK;
}

int posenc_deberta_buckets(int32_t *out, size_t out_len, size_t query_len, size_t key_len,
                           size_t bucket_size, size_t max_position)
{
    deberta_plan plan;
    size_t need;
    int status;
    if (!out)
        return fail_null(1, "out");
    if ((status = deberta_plan_init(&plan, bucket_size, max_position, 5)) ||
        (status = param_check(POSENC_PARAM_QUERY_LEN, 3, (double)query_len)) ||
        (status = param_check(POSENC_PARAM_KEY_LEN, 4, (double)key_len)))
        return status;
    /* |bucket| grows with |rel|: the extremes q - 1 and -(k - 1) bound it */
    /* the record's lo and hi: the bucket past int32 (why's %) */
    float far;
    if (query_len > 0 && !((far = deberta_value(&plan, (int64_t)query_len - 1)) < 2147483648.0f))
        return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_QUERY_LEN, 3, "query_len",
                                 POSENC_RULE_RESULT, (double)query_len, far, far, NULL,
                                 "gives a bucket past int32: the bucket of rel = query_len - 1 is %");
    if (key_len > 0 && !((far = deberta_value(&plan, 1 - (int64_t)key_len)) >= -2147483648.0f))
        return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_KEY_LEN, 4, "key_len",
                                 POSENC_RULE_RESULT, (double)key_len, far, far, NULL,
                                 "gives a bucket past int32: the bucket of rel = 1 - key_len is %");
    if ((status = check_out_len(out_len, query_len, key_len, &need)) || need == 0)
        return status;

    fill_by_difference(out, query_len, key_len, deberta_at, &plan);
    return POSENC_OK;
}
