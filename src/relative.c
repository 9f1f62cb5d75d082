/* relative.c: the relative-position matrix j - i + shift (the JAX/Flax seed). */
#include "posenc.h"

#include "checked.h"
#include "params.h"

int posenc_relative_positions(int32_t *out, size_t out_len, size_t query_len, size_t key_len,
                              int32_t shift)
{
    size_t need;
    int status;
    if (!out)
        return fail_null(1, "out");
    if ((status = check_out_len(out_len, query_len, key_len, &need)) ||
        (status = param_check(POSENC_PARAM_QUERY_LEN, 3, (double)query_len)) ||
        (status = param_check(POSENC_PARAM_KEY_LEN, 4, (double)key_len)) || need == 0)
        return status;
    /* extremes: j = key_len - 1, i = 0 and j = 0, i = query_len - 1; both must be int32 */
    int64_t hi = (int64_t)(key_len - 1) + shift, lo = shift - (int64_t)(query_len - 1);
    if (hi > INT32_MAX || lo < INT32_MIN)
        return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_SHIFT, 5, "shift", POSENC_RULE_INTEGER,
                                 shift, (double)INT32_MIN + (double)(query_len - 1),
                                 (double)INT32_MAX - (double)(key_len - 1), NULL,
                                 "every entry j - i + shift must be an int32");
    for (size_t i = 0; i < query_len; i++) {
        int32_t first = (int32_t)(shift - (int64_t)i);
        int32_t *row = out + i * key_len;
        for (size_t j = 0; j < key_len; j++)
            row[j] = first + (int32_t)j;
    }
    return POSENC_OK;
}
