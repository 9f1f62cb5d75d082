/* Fuzz target: posenc_deberta_buckets. On success each bucket has the sign of
 * q - k, equals q - k while |q - k| <= bucket_size / 2, the matrix is
 * Toeplitz, and every bucket is the one a scalar transcription of Hugging
 * Face's make_log_bucket_position gives (deberta_reference.h), cast to int. */
#include "deberta_reference.h"
#include "decode.h"
#include "posenc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = { data, size };
    size_t q = take_size(&in), k = take_size(&in), bucket_size = take_size(&in), max_position = take_size(&in);
    int null = take_null(&in);
    size_t need;
    int need_ok = mul2(q, k, &need);
    size_t out_len = take_len(&in, need, need_ok);
    int must_fail = fuzz_plan(&out_len, need, need_ok);
    fuzz_buf out;
    buf_new(&out, out_len, must_fail ? FUZZ_CAP : need, sizeof(int32_t));

    int status = posenc_deberta_buckets(null ? NULL : (int32_t *)(void *)out.p, out_len, q, k, bucket_size,
                                        max_position);
    check_status(status);
    FUZZ_ASSERT(!null || status == POSENC_ERR_NULL_POINTER);
    FUZZ_ASSERT(status != POSENC_OK || !must_fail);
    if (status != POSENC_OK) {
        FUZZ_ASSERT(buf_unchanged(&out));
    } else if (need > 0) {
        const int32_t *b = (const int32_t *)(const void *)out.p;
        int64_t sizes = (int64_t)(bucket_size ? bucket_size : 256), positions = (int64_t)(max_position ? max_position : 512);
        int64_t mid = sizes / 2;
        for (size_t r = 0; r < q; r++)
            for (size_t j = 0; j < k; j++) {
                int64_t rel = (int64_t)r - (int64_t)j, v = b[r * k + j];
                FUZZ_ASSERT((v > 0) == (rel > 0) && (v < 0) == (rel < 0));
                FUZZ_ASSERT(rel > mid || rel < -mid || v == rel);
                FUZZ_ASSERT(r == 0 || j == 0 || v == b[(r - 1) * k + j - 1]);
                FUZZ_ASSERT((double)v == (double)deberta_reference(rel, sizes, positions));
            }
    }
    buf_free(&out);
    return 0;
}
