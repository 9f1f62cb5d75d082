/* Fuzz target: posenc_t5_buckets. On success every bucket is in
 * [0, num_buckets), the matrix is Toeplitz (a bucket depends on j - r only),
 * and every bucket is the one a scalar transcription of Hugging Face's
 * T5Attention._relative_position_bucket gives (written here, below). */
#include <math.h>

#include "decode.h"
#include "posenc.h"

/*
 * The bucket of rel = key - query, as transformers' modeling_t5.py computes it in
 * torch: relative_position.float() / max_exact, torch.log (float32; here the
 * double log rounded to float), / math.log(max_distance / max_exact) (a double
 * rounded to float by the float32 tensor op), * (num_buckets - max_exact),
 * .to(long) (truncation), min(., num_buckets - 1).
 */
static int64_t t5_reference(int64_t rel, int bidirectional, int64_t num_buckets, int64_t max_distance)
{
    int64_t nb = num_buckets, base = 0, n;
    if (bidirectional) {
        nb /= 2;
        base = rel > 0 ? nb : 0;
        n = rel < 0 ? -rel : rel;
    } else {
        n = rel < 0 ? -rel : 0;
    }
    int64_t max_exact = nb / 2;
    if (n < max_exact)
        return base + n;
    float x = (float)n / (float)max_exact;
    float lg = (float)log((double)x);
    float den = (float)log((double)max_distance / (double)max_exact);
    float v = lg / den * (float)(nb - max_exact);
    int64_t large = max_exact + (int64_t)v;
    return base + (large < nb - 1 ? large : nb - 1);
}

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
        int64_t distance = max_distance ? (int64_t)max_distance : 128;
        for (size_t r = 0; r < q; r++)
            for (size_t j = 0; j < k; j++) {
                int64_t rel = (int64_t)j - ((int64_t)query_offset + (int64_t)r);
                FUZZ_ASSERT(b[r * k + j] >= 0 && b[r * k + j] < total);
                FUZZ_ASSERT(r == 0 || j == 0 || b[r * k + j] == b[(r - 1) * k + j - 1]);
                FUZZ_ASSERT(b[r * k + j] == t5_reference(rel, bidirectional, total, distance));
            }
    }
    buf_free(&out);
    return 0;
}
