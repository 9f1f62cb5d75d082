/* Fuzz target: posenc_softmax, with -inf (masked) entries, NaN and +inf. On
 * success each row is a distribution (entries in [0, 1], sum 1) or, when it
 * held only -inf, zeros; on error x is unchanged. */
#include <math.h>

#include "decode.h"
#include "posenc_encoder.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = { data, size };
    size_t rows = take_size(&in), cols = take_size(&in), need;
    int null = take_null(&in);
    int need_ok = mul2(rows, cols, &need);
    size_t x_len = take_len(&in, need, need_ok);
    int must_fail = fuzz_plan(&x_len, need, need_ok);
    fuzz_buf x;
    buf_new(&x, x_len, must_fail ? FUZZ_CAP : need, sizeof(float));
    float *v = (float *)(void *)x.p;
    for (size_t i = 0; i < x.alloc; i++)
        v[i] = take_u8(&in) % 8 ? take_value(&in) * 4 : take_float(&in); /* scores past 88.7 overflow a naive exp */
    buf_snapshot(&x);

    int status = posenc_softmax(null ? NULL : v, x_len, rows, cols);
    check_status(status);
    FUZZ_ASSERT(!null || status == POSENC_ERR_NULL_POINTER);
    FUZZ_ASSERT(status != POSENC_OK || !must_fail);
    if (status != POSENC_OK) {
        FUZZ_ASSERT(buf_unchanged(&x));
    } else {
        const float *was = (const float *)(const void *)x.before;
        for (size_t r = 0; r < rows && need > 0; r++) {
            double sum = 0;
            int all_masked = 1;
            for (size_t c = 0; c < cols; c++) {
                float p = v[r * cols + c];
                FUZZ_ASSERT(p >= 0.0f && p <= 1.0f);
                FUZZ_ASSERT(was[r * cols + c] != -INFINITY || p == 0.0f);
                all_masked &= was[r * cols + c] == -INFINITY;
                sum += p;
            }
            FUZZ_ASSERT(all_masked ? sum == 0.0 : fabs(sum - 1.0) <= 1e-5 * (double)cols + 1e-6);
        }
    }
    buf_free(&x);
    return 0;
}
