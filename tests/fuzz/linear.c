/* Fuzz target: posenc_linear. On success every output (the first 256 checked)
 * is the dot product plus bias within float rounding; on error out is
 * unchanged; x, weight and bias never change. */
#include <math.h>

#include "decode.h"
#include "posenc_encoder.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = { data, size };
    size_t rows = take_size(&in), n_in = take_size(&in), n_out = take_size(&in), need, in_need, w_need, work;
    int null = take_u8(&in) % 64, biased = take_u8(&in) % 2 && n_out <= FUZZ_CAP;
    int need_ok = mul2(rows, n_out, &need), in_ok = mul2(rows, n_in, &in_need), w_ok = mul2(n_out, n_in, &w_need);
    size_t out_len = take_len(&in, need, need_ok), x_len = take_len(&in, in_need, in_ok);
    size_t weight_len = take_len(&in, w_need, w_ok);
    /* keep one execution's multiply-adds small: a bigger call is made to fail */
    if (need_ok && in_ok && w_ok && mul2(need, n_in, &work) && work > ((size_t)1 << 20) && need > 0)
        out_len = out_len < need ? out_len : need - 1;
    int must_fail = fuzz_plan(&out_len, need, need_ok) | fuzz_plan(&x_len, in_need, in_ok) |
                    fuzz_plan(&weight_len, w_need, w_ok);
    fuzz_buf x, w, bias, out;
    buf_new_values(&x, x_len, must_fail ? FUZZ_CAP : in_need, &in);
    buf_new_values(&w, weight_len, must_fail ? FUZZ_CAP : w_need, &in);
    buf_new_values(&bias, biased ? n_out : 0, n_out, &in);
    buf_new(&out, out_len, must_fail ? FUZZ_CAP : need, sizeof(float));
    const float *xp = (const float *)(void *)x.p, *wp = (const float *)(void *)w.p;
    const float *bp = biased ? (const float *)(void *)bias.p : NULL;
    float *op = (float *)(void *)out.p;

    int status = posenc_linear(null == 0 ? NULL : op, out_len, null == 1 ? NULL : xp, x_len, rows, n_in,
                               null == 2 ? NULL : wp, weight_len, n_out, bp);
    check_status(status);
    FUZZ_ASSERT(null > 2 || status == POSENC_ERR_NULL_POINTER);
    FUZZ_ASSERT(status != POSENC_OK || !must_fail);
    FUZZ_ASSERT(buf_unchanged(&x) && buf_unchanged(&w) && buf_unchanged(&bias));
    if (status != POSENC_OK) {
        FUZZ_ASSERT(buf_unchanged(&out));
    } else {
        for (size_t i = 0; i < need && i < 256; i++) {
            size_t r = i / n_out, o = i % n_out;
            double exact = bp ? bp[o] : 0.0, magnitude = bp ? fabs(bp[o]) : 0.0;
            for (size_t k = 0; k < n_in; k++) {
                exact += (double)xp[r * n_in + k] * wp[o * n_in + k];
                magnitude += fabs((double)xp[r * n_in + k] * wp[o * n_in + k]);
            }
            FUZZ_ASSERT(fabs(op[i] - exact) <= magnitude * 0x1p-23 * (double)(n_in + 2) + 1e-30);
        }
    }
    buf_free(&x);
    buf_free(&w);
    buf_free(&bias);
    buf_free(&out);
    return 0;
}
