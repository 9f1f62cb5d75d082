/* Fuzz target: posenc_t5_bias, with weights that may lie inside out. On
 * success out[h][r][j] is exactly weights[bucket][h] for the bucket
 * posenc_t5_buckets gives, and weights is unchanged; on error nothing is
 * written. */
#include "decode.h"
#include "posenc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = { data, size };
    size_t heads = take_size(&in), q = take_size(&in), k = take_size(&in);
    size_t num_buckets = take_size(&in), max_distance = take_size(&in);
    int bidirectional = take_enum(&in, 2), null = take_u8(&in) % 64;
    int32_t query_offset = take_i32(&in);
    size_t need, table, plane = 0;
    int need_ok = mul3(heads, q, k, &need) && mul2(q, k, &plane);
    int table_ok = mul2(num_buckets ? num_buckets : 32, heads, &table);
    size_t out_len = take_len(&in, need, need_ok), weights_len = take_len(&in, table, table_ok);
    int must_fail = fuzz_plan(&out_len, need, need_ok) | fuzz_plan(&weights_len, table, table_ok);
    fuzz_buf weights, out;
    buf_new_values(&weights, weights_len, must_fail ? FUZZ_CAP : table, &in);
    buf_new(&out, out_len, must_fail ? FUZZ_CAP : need, sizeof(float));
    float *w = (float *)(void *)weights.p, *o = (float *)(void *)out.p;
    /* weights inside out, gathered while out is written: refused */
    int overlap = 0;
    const float *wp = fuzz_alias(&in, &out, w, weights.alloc, sizeof(float), &overlap);

    int status = posenc_t5_bias(null == 0 ? NULL : o, out_len, null == 1 ? NULL : wp, weights_len, heads, q, k,
                                bidirectional, num_buckets, max_distance, query_offset);
    check_status(status);
    FUZZ_ASSERT(null > 1 || status == POSENC_ERR_NULL_POINTER);
    FUZZ_ASSERT(status != POSENC_OK || (!must_fail && !overlap));
    FUZZ_ASSERT(buf_unchanged(&weights));
    if (status != POSENC_OK) {
        FUZZ_ASSERT(buf_unchanged(&out));
    } else if (need > 0) {
        fuzz_buf buckets;
        buf_new(&buckets, plane, plane, sizeof(int32_t));
        const int32_t *b = (const int32_t *)(void *)buckets.p;
        FUZZ_ASSERT(posenc_t5_buckets((int32_t *)(void *)buckets.p, plane, q, k, bidirectional, num_buckets,
                                      max_distance, query_offset) == POSENC_OK);
        for (size_t h = 0; h < heads; h++)
            for (size_t c = 0; c < plane; c++)
                FUZZ_ASSERT(same_bits(o[h * plane + c], w[(size_t)b[c] * heads + h]));
        buf_free(&buckets);
    }
    buf_free(&weights);
    buf_free(&out);
    return 0;
}
