/* Fuzz target: posenc_add_sinusoidal. On success each x' differs from
 * float(x * scale) by at most 1 (a table value), plus rounding; on error x is
 * unchanged. */
#include <math.h>

#include "decode.h"
#include "posenc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = { data, size };
    size_t batch = take_size(&in), seq = take_size(&in), d = take_size(&in), need;
    int order = take_enum(&in, 2), layout = take_enum(&in, 4), null = take_null(&in);
    float scale = take_float(&in);
    double base = take_double(&in);
    int32_t offset = take_i32(&in);
    int need_ok = mul3(batch, seq, d, &need);
    size_t x_len = take_len(&in, need, need_ok);
    int must_fail = fuzz_plan(&x_len, need, need_ok);
    fuzz_buf x;
    buf_new_values(&x, x_len, must_fail ? FUZZ_CAP : need, &in);

    int status = posenc_add_sinusoidal(null ? NULL : (float *)(void *)x.p, x_len, batch, seq, d, order,
                                       scale, base, offset, layout);
    check_status(status);
    FUZZ_ASSERT(!null || status == POSENC_ERR_NULL_POINTER);
    FUZZ_ASSERT(status != POSENC_OK || !must_fail);
    if (status != POSENC_OK) {
        FUZZ_ASSERT(buf_unchanged(&x));
    } else {
        const float *now = (const float *)(const void *)x.p, *was = (const float *)(const void *)x.before;
        for (size_t i = 0; i < need; i++) {
            float scaled = was[i] * scale;
            if (isfinite(scaled))
                FUZZ_ASSERT(fabsf(now[i] - scaled) <= 1.0f + fabsf(scaled) * 0x1p-22f);
        }
    }
    buf_free(&x);
    return 0;
}
