/* Fuzz target: posenc_alibi_bias. On success: -inf exactly above the causal
 * diagonal, elsewhere finite and <= 0, 0 on the diagonal, and along each row
 * the bias never increases with the distance |i - j|. */
#include <math.h>

#include "decode.h"
#include "posenc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = { data, size };
    size_t heads = take_size(&in), q = take_size(&in), k = take_size(&in), need;
    int32_t query_offset = take_i32(&in);
    int causal = take_enum(&in, 2), null = take_null(&in);
    double max_bias = take_double(&in);
    int need_ok = mul3(heads, q, k, &need);
    size_t out_len = take_len(&in, need, need_ok);
    int must_fail = fuzz_plan(&out_len, need, need_ok);
    fuzz_buf out;
    buf_new(&out, out_len, must_fail ? FUZZ_CAP : need, sizeof(float));

    int status = posenc_alibi_bias(null ? NULL : (float *)(void *)out.p, out_len, heads, q, k, query_offset,
                                   causal, max_bias);
    check_status(status);
    FUZZ_ASSERT(!null || status == POSENC_ERR_NULL_POINTER);
    FUZZ_ASSERT(status != POSENC_OK || !must_fail);
    if (status != POSENC_OK) {
        FUZZ_ASSERT(buf_unchanged(&out));
    } else if (need > 0) {
        const float *v = (const float *)(const void *)out.p;
        for (size_t h = 0; h < heads; h++)
            for (size_t r = 0; r < q; r++) {
                const float *row = v + (h * q + r) * k;
                int64_t i = (int64_t)query_offset + (int64_t)r;
                for (size_t j = 0; j < k; j++) {
                    int64_t d = i - (int64_t)j;
                    if (causal && d < 0) {
                        FUZZ_ASSERT(row[j] == -INFINITY);
                        continue;
                    }
                    FUZZ_ASSERT(isfinite(row[j]) && row[j] <= 0.0f);
                    FUZZ_ASSERT(d != 0 || (row[j] == 0.0f && !signbit(row[j])));
                    /* closer keys: j + 1 when j < i, j - 1 when j > i */
                    if (d > 0 && j + 1 < k)
                        FUZZ_ASSERT(row[j] <= row[j + 1]);
                    if (d < 0)
                        FUZZ_ASSERT(row[j] <= row[j - 1]);
                }
            }
    }
    buf_free(&out);
    return 0;
}
