/* rope_permute.c: the half <-> interleaved permutation of q/k projection rows (posenc.h). */
#include "posenc.h"

#include "checked.h"

int posenc_rope_permute_weights(float *out, size_t out_len, const float *w, size_t w_len, size_t heads,
                                size_t head_dim, size_t rotary_dim, size_t in_features, int from, int to)
{
    size_t rows, need;
    if (!out || !w)
        return POSENC_ERR_NULL_POINTER;
    if (heads == 0 || in_features == 0 || rotary_dim < 2 || rotary_dim % 2 || rotary_dim > head_dim ||
        (from != POSENC_ROPE_HALF && from != POSENC_ROPE_INTERLEAVED) ||
        (to != POSENC_ROPE_HALF && to != POSENC_ROPE_INTERLEAVED))
        return POSENC_ERR_INVALID_ARGUMENT;
    if (checked_mul(heads, head_dim, &rows) || checked_mul(rows, in_features, &need))
        return POSENC_ERR_SIZE_OVERFLOW;
    if (w_len < need || out_len < need)
        return POSENC_ERR_BUFFER_TOO_SMALL;
    if (posenc_overlaps(out, posenc_bytes(need, sizeof *out), w, posenc_bytes(need, sizeof *w)))
        return POSENC_ERR_INVALID_ARGUMENT; /* a permutation cannot run in place */

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
