/* Fuzz target: posenc_mean_pool. On success out[k] is exactly the double mean
 * over the kept rows, rounded once (zeros when no row is kept); on error out
 * is unchanged. */
#include "decode.h"
#include "posenc_encoder.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = { data, size };
    size_t seq = take_size(&in), d = take_size(&in), need;
    int null = take_u8(&in) % 64, masked = take_u8(&in) % 2 && seq <= FUZZ_CAP;
    int need_ok = mul2(seq, d, &need);
    size_t x_len = take_len(&in, need, need_ok), out_len = take_len(&in, d, 1);
    int must_fail = fuzz_plan(&x_len, need, need_ok) | fuzz_plan(&out_len, d, 1);
    fuzz_buf x, out, mask;
    buf_new_values(&x, x_len, must_fail ? FUZZ_CAP : need, &in);
    buf_new(&out, out_len, must_fail ? FUZZ_CAP : d, sizeof(float));
    buf_new(&mask, masked ? seq : 0, seq, sizeof(int32_t));
    int32_t *m = (int32_t *)(void *)mask.p;
    for (size_t s = 0; s < mask.alloc; s++)
        m[s] = take_u8(&in) % 4 ? 1 : take_i32(&in);
    buf_snapshot(&mask);
    const float *xp = (const float *)(void *)x.p;
    float *op = (float *)(void *)out.p;

    int aliased = 0; /* the mask inside out */
    const int32_t *mp = masked ? fuzz_alias(&in, &out, m, seq, sizeof(int32_t), &aliased) : NULL;
    int status = posenc_mean_pool(null == 0 ? NULL : op, out_len, null == 1 ? NULL : xp, x_len, seq, d, mp);
    check_status(status);
    FUZZ_ASSERT(null > 1 || status == POSENC_ERR_NULL_POINTER);
    FUZZ_ASSERT(status != POSENC_OK || (!must_fail && !aliased));
    FUZZ_ASSERT(buf_unchanged(&x) && buf_unchanged(&mask));
    if (status != POSENC_OK) {
        FUZZ_ASSERT(buf_unchanged(&out));
    } else {
        size_t kept = 0;
        for (size_t s = 0; s < seq; s++)
            kept += !masked || m[s];
        for (size_t k = 0; k < d; k++) {
            double sum = 0.0;
            for (size_t s = 0; s < seq; s++)
                if (!masked || m[s])
                    sum += xp[s * d + k];
            FUZZ_ASSERT(same_bits(op[k], kept ? (float)(sum / (double)kept) : 0.0f));
        }
    }
    buf_free(&x);
    buf_free(&out);
    buf_free(&mask);
    return 0;
}
