/* rope_permute.c: the half <-> interleaved permutation of q/k projection rows (posenc.h). */
#include "posenc.h"

#include "checked.h"
#include "params.h"

int posenc_rope_permute_weights(float *out, size_t out_len, const float *w, size_t w_len, size_t heads,
                                size_t head_dim, size_t rotary_dim, size_t in_features, int from, int to)
{
    size_t rows, need;
    int status;
    if (!out)
        return fail_null(1, "out");
    if (!w)
        return fail_null(3, "w");
    if ((status = param_check(POSENC_PARAM_HEADS, 5, (double)heads)) ||
        (status = param_check(POSENC_PARAM_HEAD_DIM, 6, (double)head_dim)) ||
        (status = param_check(POSENC_PARAM_ROTARY_DIM, 7, (double)rotary_dim)) ||
        (status = param_check(POSENC_PARAM_IN_FEATURES, 8, (double)in_features)) ||
        (status = param_check(POSENC_PARAM_FROM, 9, from)) || (status = param_check(POSENC_PARAM_TO, 10, to)))
        return status;
    if (rotary_dim > head_dim)
        return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_ROTARY_DIM, 7, "rotary_dim",
                                 POSENC_RULE_EVEN, (double)rotary_dim, 2.0, (double)head_dim, "head_dim", NULL);
    if (checked_mul(heads, head_dim, &rows) || checked_mul(rows, in_features, &need))
        return fail_size(5, "heads * head_dim * in_features", heads, head_dim);
    if (w_len < need)
        return fail_length(4, "w_len", w_len, need);
    if (out_len < need)
        return fail_length(2, "out_len", out_len, need);
    if (posenc_overlaps(out, posenc_bytes(need, sizeof *out), w, posenc_bytes(need, sizeof *w)))
        return fail_overlap(1, "out", "w"); /* a permutation cannot run in place */

    size_t half = rotary_dim / 2;
    for (size_t h = 0; h < heads; h++)
        for (size_t j = 0; j < head_dim; j++) {
            /* the source row of destination row j of this head */
            size_t src = j;
            if (j < rotary_dim && from != to)
                src = to == POSENC_ROPE_HALF ? 2 * (j % half) + j / half  /* j = t*half + i <- 2i + t */
                                             : (j % 2) * half + j / 2;    /* j = 2i + t <- t*half + i */
            const float *from_row = w + (h * head_dim + src) * in_features;
            float *to_row = out + (h * head_dim + j) * in_features;
            for (size_t i = 0; i < in_features; i++)
                to_row[i] = from_row[i];
        }
    return POSENC_OK;
}
