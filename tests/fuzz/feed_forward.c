/* Fuzz target: posenc_feed_forward, in place or apart, every activation. On
 * success the outputs are finite (bounded inputs); on error out (and x when in
 * place) and the work buffer are unchanged; params never change. */
#include <math.h>

#include "decode.h"
#include "posenc_encoder.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = { data, size };
    size_t rows = take_size(&in), d = take_size(&in), d_ff = take_size(&in), need, hidden, block = 0, t;
    int activation = take_enum(&in, 3), null = take_u8(&in) % 64, in_place = take_u8(&in) % 4 == 0;
    int need_ok = mul2(rows, d, &need), hidden_ok = mul2(rows, d_ff, &hidden);
    /* 2 d_ff d + d_ff + d */
    int block_ok = mul3(2, d_ff, d, &t) && !__builtin_add_overflow(t, d_ff, &block) &&
                   !__builtin_add_overflow(block, d, &block);
    size_t x_len = take_len(&in, need, need_ok), out_len = in_place ? x_len : take_len(&in, need, need_ok);
    size_t params_len = take_len(&in, block, block_ok), work_len = take_len(&in, hidden, hidden_ok);
    /* keep one execution's multiply-adds small: a bigger call is made to fail */
    if (need_ok && hidden_ok && mul2(hidden, d, &t) && t > ((size_t)1 << 20) && need > 0)
        x_len = x_len < need ? x_len : need - 1;
    int must_fail = fuzz_plan(&x_len, need, need_ok) | fuzz_plan(&params_len, block, block_ok) |
                    fuzz_plan(&work_len, hidden, hidden_ok) | (in_place ? 0 : fuzz_plan(&out_len, need, need_ok));
    if (in_place)
        out_len = x_len;
    fuzz_buf x, out, params, work;
    buf_new_values(&x, x_len, must_fail ? FUZZ_CAP : need, &in);
    buf_new(&out, in_place ? 0 : out_len, must_fail ? FUZZ_CAP : need, sizeof(float));
    buf_new_values(&params, params_len, must_fail ? FUZZ_CAP : block, &in);
    buf_new(&work, work_len, must_fail ? FUZZ_CAP : hidden, sizeof(float));
    float *xp = (float *)(void *)x.p, *op = in_place ? xp : (float *)(void *)out.p;

    int status = posenc_feed_forward(null == 0 ? NULL : op, out_len, null == 1 ? NULL : xp, x_len, rows, d, d_ff,
                                     null == 2 ? NULL : (const float *)(void *)params.p, params_len, activation,
                                     (float *)(void *)work.p, work_len);
    check_status(status);
    FUZZ_ASSERT(null > 2 || status == POSENC_ERR_NULL_POINTER);
    FUZZ_ASSERT(status != POSENC_OK || !must_fail);
    FUZZ_ASSERT(buf_unchanged(&params));
    if (status != POSENC_OK) {
        FUZZ_ASSERT(buf_unchanged(&x) && buf_unchanged(&out) && buf_unchanged(&work));
    } else {
        for (size_t i = 0; i < need; i++)
            FUZZ_ASSERT(isfinite(op[i]));
    }
    buf_free(&x);
    buf_free(&out);
    buf_free(&params);
    buf_free(&work);
    return 0;
}
