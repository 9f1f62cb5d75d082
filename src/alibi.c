/* alibi.c: ALiBi slopes and biases (formulas and sources in posenc.h). */
#include "posenc.h"

#include <math.h>

#include "bias_terms.h"
#include "checked.h"
#include "fmath.h"
#include "params.h"
#include "position_range.h"

/* max_bias, 0 the default, checked against its row (at argument position index). */
static int check_max_bias(double *max_bias, int index)
{
    *max_bias = param_or_default(POSENC_PARAM_MAX_BIAS, *max_bias);
    return param_check(POSENC_PARAM_MAX_BIAS, index, *max_bias);
}

/* Slope of head h (ofirpress get_slopes): the p slopes of the largest power of
 * two p <= heads, then the odd-numbered slopes of 2p. Exponents in double. */
double alibi_slope(size_t h, size_t heads, double max_bias)
{
    size_t p = 1;
    while (p <= heads / 2)
        p *= 2;
    if (h < p)
        return fmath_pow(2.0, -max_bias * (double)(h + 1) / (double)p);
    return fmath_pow(2.0, -max_bias * (double)(2 * (h - p) + 1) / (2.0 * (double)p));
}

int posenc_alibi_slopes(double *out, size_t out_len, size_t heads, double max_bias)
{
    int status;
    if (!out)
        return fail_null(1, "out");
    if ((status = param_check(POSENC_PARAM_HEADS, 3, (double)heads)) || (status = check_max_bias(&max_bias, 4)))
        return status;
    if (out_len < heads)
        return fail_length(2, "out_len", out_len, heads);
    for (size_t h = 0; h < heads; h++)
        out[h] = alibi_slope(h, heads, max_bias);
    return POSENC_OK;
}

int posenc_alibi_bias(float *out, size_t out_len, size_t heads, size_t query_len, size_t key_len,
                      int32_t query_offset, int causal, double max_bias)
{
    size_t need;
    int status;
    if (!out)
        return fail_null(1, "out");
    /* positions: the last query offset + query_len - 1 and the last key key_len - 1 must be int32 */
    if ((status = param_check(POSENC_PARAM_HEADS, 3, (double)heads)) ||
        (status = param_check(POSENC_PARAM_QUERY_LEN, 4, (double)query_len)) ||
        (status = param_check(POSENC_PARAM_KEY_LEN, 5, (double)key_len)) ||
        (status = param_check(POSENC_PARAM_QUERY_OFFSET, 6, query_offset)) ||
        (status = check_last_position(query_len, query_offset, POSENC_PARAM_QUERY_OFFSET, 6,
                                      "positions are int32: query_offset + query_len - 1 must be at most "
                                      "2147483647")) ||
        (status = param_check(POSENC_PARAM_CAUSAL, 7, causal)) || (status = check_max_bias(&max_bias, 8)))
        return status;
    if (checked_mul3(heads, query_len, key_len, &need))
        return fail_size(3, "heads * query_len * key_len", heads, saturated_mul(query_len, key_len));
    if (out_len < need)
        return fail_length(2, "out_len", out_len, need);
    if (need == 0) /* nothing to write: no loop over the (maybe huge) other dimensions */
        return POSENC_OK;

    for (size_t h = 0; h < heads; h++) {
        double m = alibi_slope(h, heads, max_bias);
        for (size_t r = 0; r < query_len; r++) {
            int64_t i = (int64_t)query_offset + (int64_t)r;
            float *row = out + (h * query_len + r) * key_len;
            for (size_t j = 0; j < key_len; j++) {
                int64_t d = i - (int64_t)j;
                if (d < 0 && causal)
                    row[j] = -INFINITY;
                else if (d == 0)
                    row[j] = 0.0f; /* +0: -m * 0 would be -0 */
                else
                    row[j] = (float)(-m * (double)(d < 0 ? -d : d));
            }
        }
    }
    return POSENC_OK;
}
