/* Fuzz target: posenc_t5_buckets. On success every bucket is in
 * [0, num_buckets) and the matrix is Toeplitz (a bucket depends on j - r only). */
#include "decode.h"
#include "posenc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = { data, size };
    size_t q = take_size(&in), k = take_size(&in), num_buckets = take_size(&in), max_distance = take_size(&in);
    int bidirectional = take_enum(&in, 2), null = take_null(&in);
    int32_t query_offset = take_i32(&in);
    size_t need;
    int need_ok = mul2(q, k, &need);
    size_t out_len = take_len(&in, need, need_ok);
    int must_fail = fuzz_plan(&out_len, need, need_ok);
    fuzz_buf out;
    buf_new(&out, out_len, must_fail ? FUZZ_CAP : need, sizeof(int32_t));

    int status = posenc_t5_buckets(null ? NULL : (int32_t *)(void *)out.p, out_len, q, k, bidirectional,
                                   num_buckets, max_distance, query_offset);
    check_status(status);
    FUZZ_ASSERT(!null || status == POSENC_ERR_NULL_POINTER);
    FUZZ_ASSERT(status != POSENC_OK || !must_fail);
    if (status != POSENC_OK) {
        FUZZ_ASSERT(buf_unchanged(&out));
    } else if (need > 0) {
        const int32_t *b = (const int32_t *)(const void *)out.p;
        int64_t total = num_buckets ? (int64_t)num_buckets : 32;
        for (size_t r = 0; r < q; r++)
            for (size_t j = 0; j < k; j++) {
                FUZZ_ASSERT(b[r * k + j] >= 0 && b[r * k + j] < total);
                FUZZ_ASSERT(r == 0 || j == 0 || b[r * k + j] == b[(r - 1) * k + j - 1]);
            }
    }
    buf_free(&out);
    return 0;
}
