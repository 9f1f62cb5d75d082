/* alibi.c: ALiBi slopes and biases (formulas and sources in posenc.h). */
#include "posenc.h"

#include <math.h>

#include "bias_terms.h"
#include "checked.h"
#include "fmath.h"

#define DEFAULT_MAX_BIAS 8.0

static int check_max_bias(double *max_bias)
{
    if (*max_bias == 0.0)
        *max_bias = DEFAULT_MAX_BIAS;
    if (!(*max_bias > 0.0) || !isfinite(*max_bias))
        return POSENC_ERR_INVALID_ARGUMENT;
    return POSENC_OK;
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
        return POSENC_ERR_NULL_POINTER;
    if (heads == 0)
        return POSENC_ERR_INVALID_ARGUMENT;
    if ((status = check_max_bias(&max_bias)))
        return status;
    if (out_len < heads)
        return POSENC_ERR_BUFFER_TOO_SMALL;
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
        return POSENC_ERR_NULL_POINTER;
    if (heads == 0 || query_offset < 0 || (causal != 0 && causal != 1))
        return POSENC_ERR_INVALID_ARGUMENT;
    if ((status = check_max_bias(&max_bias)))
        return status;
    /* positions: the last query offset + query_len - 1 and the last key must be int32 */
    if ((query_len > 0 && query_len - 1 > (size_t)(POSENC_POSITION_MAX - query_offset)) ||
        (key_len > 0 && key_len - 1 > (size_t)POSENC_POSITION_MAX))
        return POSENC_ERR_INVALID_ARGUMENT;
    if (checked_mul3(heads, query_len, key_len, &need))
        return POSENC_ERR_SIZE_OVERFLOW;
    if (out_len < need)
        return POSENC_ERR_BUFFER_TOO_SMALL;
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
