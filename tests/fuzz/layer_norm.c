/* Fuzz target: posenc_layer_norm, in place or apart, with and without gamma
 * and beta. On success each row of (out - beta) / gamma has mean ~0 and
 * values bounded by sqrt(d_model); on error out is unchanged. */
#include <math.h>

#include "decode.h"
#include "posenc_encoder.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = { data, size };
    size_t rows = take_size(&in), d = take_size(&in), need;
    double eps = take_double(&in);
    int null = take_u8(&in) % 64, in_place = take_u8(&in) % 4 == 0, affine = take_u8(&in) % 2 && d <= FUZZ_CAP;
    int need_ok = mul2(rows, d, &need);
    size_t x_len = take_len(&in, need, need_ok), out_len = in_place ? x_len : take_len(&in, need, need_ok);
    int must_fail = fuzz_plan(&x_len, need, need_ok) | fuzz_plan(&out_len, need, need_ok);
    if (in_place)
        out_len = x_len;
    size_t limit = must_fail ? FUZZ_CAP : need;
    fuzz_buf x, out, gamma, beta;
    buf_new_values(&x, x_len, limit, &in);
    buf_new(&out, in_place ? 0 : out_len, limit, sizeof(float));
    buf_new_values(&gamma, affine ? d : 0, d, &in);
    buf_new_values(&beta, affine ? d : 0, d, &in);
    float *xp = (float *)(void *)x.p, *op = in_place ? xp : (float *)(void *)out.p;
    const float *g = affine ? (const float *)(void *)gamma.p : NULL, *b = affine ? (const float *)(void *)beta.p : NULL;

    int status = posenc_layer_norm(null == 0 ? NULL : op, out_len, null == 1 ? NULL : xp, x_len, rows, d, g, b, eps);
    check_status(status);
    FUZZ_ASSERT(null > 1 || status == POSENC_ERR_NULL_POINTER);
    FUZZ_ASSERT(status != POSENC_OK || !must_fail);
    FUZZ_ASSERT(buf_unchanged(&gamma) && buf_unchanged(&beta));
    if (status != POSENC_OK) {
        FUZZ_ASSERT(buf_unchanged(&x) && buf_unchanged(&out));
    } else {
        double bound = sqrt((double)d) * (1 + 1e-3);
        for (size_t r = 0; r < rows; r++) {
            double mean = 0;
            for (size_t k = 0; k < d; k++) {
                float v = op[r * d + k];
                FUZZ_ASSERT(isfinite(v));
                double z = affine ? (g[k] != 0.0f ? ((double)v - b[k]) / g[k] : 0.0) : v;
                FUZZ_ASSERT(!affine || g[k] != 0.0f || fabs((double)v - b[k]) <= fabs(b[k]) * 1e-6);
                FUZZ_ASSERT(fabs(z) <= bound + 1e-3);
                mean += z;
            }
            FUZZ_ASSERT(affine || fabs(mean / (double)d) <= 1e-3);
        }
    }
    buf_free(&x);
    buf_free(&out);
    buf_free(&gamma);
    buf_free(&beta);
    return 0;
}
