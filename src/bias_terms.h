/*
 * bias_terms.h: one term of the ALiBi and T5 biases (src/alibi.c,
 * src/buckets.c; formulas and sources in posenc.h), for a caller that pairs
 * its own positions (the encoder's explicit position ids) rather than the
 * rows and columns of posenc_alibi_bias and posenc_t5_bias.
 */
#ifndef POSENC_BIAS_TERMS_H
#define POSENC_BIAS_TERMS_H

#include <stddef.h>
#include <stdint.h>

/* ALiBi's slope of head h of heads (ofirpress get_slopes), max_bias > 0 resolved. */
double alibi_slope(size_t h, size_t heads, double max_bias);

/* T5's bucketing (T5Attention._relative_position_bucket), checked once. */
typedef struct t5_plan {
    int bidirectional;
    int32_t num_buckets; /* the total, defaults resolved                 */
    int32_t nb;          /* buckets per direction                        */
    int32_t max_exact;   /* nb / 2: below it, one bucket per distance    */
    float log_ratio;     /* f32(log(max_distance / max_exact)), > 0      */
    float span;          /* f32(nb - max_exact)                          */
} t5_plan;

/* The plan of (bidirectional, num_buckets, max_distance), 0s the defaults;
 * a status (the arguments posenc_t5_buckets checks). */
int t5_plan_init(t5_plan *p, int bidirectional, size_t num_buckets, size_t max_distance);

/* The bucket of rel = key position - query position. */
int32_t t5_bucket(const t5_plan *p, int64_t rel);

#endif
