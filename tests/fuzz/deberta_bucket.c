/* Fuzz target: posenc_deberta_bucket. On success the bucket is an integer
 * value with the sign of rel, equals rel while |rel| <= bucket_size / 2, does
 * not decrease from rel to rel + 1, and is the float a scalar transcription of
 * Hugging Face's make_log_bucket_position gives (deberta_reference.h). On error
 * nothing is written. */
#include <math.h>

#include "deberta_reference.h"
#include "decode.h"
#include "posenc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = { data, size };
    int32_t rel = take_i32(&in);
    size_t bucket_size = take_size(&in), max_position = take_size(&in);
    int null = take_null(&in);
    fuzz_buf out;
    buf_new(&out, 1, 1, sizeof(float));

    int status = posenc_deberta_bucket(null ? NULL : (float *)(void *)out.p, rel, bucket_size, max_position);
    check_status(status);
    FUZZ_ASSERT(!null || status == POSENC_ERR_NULL_POINTER);
    if (status != POSENC_OK) {
        FUZZ_ASSERT(buf_unchanged(&out));
    } else {
        float v = *(const float *)(const void *)out.p, next = 0;
        int64_t mid = (int64_t)(bucket_size ? bucket_size : 256) / 2;
        FUZZ_ASSERT(v == floorf(v) && (v > 0) == (rel > 0) && (v < 0) == (rel < 0));
        FUZZ_ASSERT(rel > mid || rel < -mid || v == (float)rel);
        FUZZ_ASSERT(same_bits(v, deberta_reference(rel, bucket_size ? (int64_t)bucket_size : 256,
                                                   max_position ? (int64_t)max_position : 512)));
        if (rel < INT32_MAX) {
            FUZZ_ASSERT(posenc_deberta_bucket(&next, rel + 1, bucket_size, max_position) == POSENC_OK);
            FUZZ_ASSERT(next >= v);
        }
    }
    buf_free(&out);
    return 0;
}
