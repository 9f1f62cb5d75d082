/* Fuzz target: posenc_embed. On success out[s][k] = table[tokens[s]][k] * scale
 * exactly (one float product); on error out is unchanged; inputs never change. */
#include "decode.h"
#include "posenc_encoder.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = { data, size };
    size_t seq = take_size(&in), vocab = take_size(&in), d = take_size(&in), need, rows;
    float scale = take_float(&in);
    int null = take_u8(&in) % 64;
    int need_ok = mul2(seq, d, &need), rows_ok = mul2(vocab, d, &rows);
    size_t out_len = take_len(&in, need, need_ok), table_len = take_len(&in, rows, rows_ok);
    int must_fail = fuzz_plan(&out_len, need, need_ok) | fuzz_plan(&table_len, rows, rows_ok);
    /* tokens: seq ids (an honest caller), mostly valid; more than FUZZ_CAP: the call must fail */
    fuzz_buf tokens, table, out;
    buf_new(&tokens, seq, FUZZ_CAP, sizeof(int32_t));
    must_fail |= seq > FUZZ_CAP;
    int32_t *t = (int32_t *)(void *)tokens.p;
    for (size_t s = 0; s < tokens.alloc; s++)
        t[s] = take_u8(&in) % 8 ? (int32_t)(take_u8(&in) % (vocab ? (vocab < 256 ? vocab : 256) : 1)) : take_i32(&in);
    buf_snapshot(&tokens);
    buf_new_values(&table, table_len, must_fail ? FUZZ_CAP : rows, &in);
    buf_new(&out, out_len, must_fail ? FUZZ_CAP : need, sizeof(float));
    const float *tab = (const float *)(void *)table.p;
    float *o = (float *)(void *)out.p;

    int aliased = 0; /* the ids inside out: read after out is written */
    const int32_t *ids = fuzz_alias(&in, &out, t, seq, sizeof(int32_t), &aliased);
    int status = posenc_embed(null == 0 ? NULL : o, out_len, null == 1 ? NULL : ids, seq, null == 2 ? NULL : tab,
                              table_len, vocab, d, scale);
    check_status(status);
    FUZZ_ASSERT(null > 2 || (null == 1 && seq == 0) || status == POSENC_ERR_NULL_POINTER);
    FUZZ_ASSERT(status != POSENC_OK || (!must_fail && !aliased));
    FUZZ_ASSERT(buf_unchanged(&tokens) && buf_unchanged(&table));
    if (status != POSENC_OK) {
        FUZZ_ASSERT(buf_unchanged(&out));
    } else {
        for (size_t s = 0; s < seq; s++)
            for (size_t k = 0; k < d; k++)
                FUZZ_ASSERT(same_bits(o[s * d + k], tab[(size_t)t[s] * d + k] * scale));
    }
    buf_free(&tokens);
    buf_free(&table);
    buf_free(&out);
    return 0;
}
