/* Fuzz target: posenc_relative_positions. On success out[i][j] = j - i + shift exactly. */
#include "decode.h"
#include "posenc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = { data, size };
    size_t q = take_size(&in), k = take_size(&in), need;
    int32_t shift = take_i32(&in);
    int null = take_null(&in);
    int need_ok = mul2(q, k, &need);
    size_t out_len = take_len(&in, need, need_ok);
    int must_fail = fuzz_plan(&out_len, need, need_ok);
    fuzz_buf out;
    buf_new(&out, out_len, must_fail ? FUZZ_CAP : need, sizeof(int32_t));

    int status = posenc_relative_positions(null ? NULL : (int32_t *)(void *)out.p, out_len, q, k, shift);
    check_status(status);
    FUZZ_ASSERT(!null || status == POSENC_ERR_NULL_POINTER);
    FUZZ_ASSERT(status != POSENC_OK || !must_fail);
    if (status != POSENC_OK) {
        FUZZ_ASSERT(buf_unchanged(&out));
    } else if (need > 0) {
        const int32_t *v = (const int32_t *)(const void *)out.p;
        for (size_t i = 0; i < q; i++)
            for (size_t j = 0; j < k; j++)
                FUZZ_ASSERT((int64_t)v[i * k + j] == (int64_t)j - (int64_t)i + shift);
    }
    buf_free(&out);
    return 0;
}
