/* Fuzz target: posenc_alibi_slopes. On success every slope is finite, in
 * [0, 1], and the first p slopes (p the largest power of two <= heads)
 * decrease. */
#include <math.h>

#include "decode.h"
#include "posenc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = { data, size };
    size_t heads = take_size(&in);
    double max_bias = take_double(&in);
    int null = take_null(&in);
    size_t out_len = take_len(&in, heads, 1);
    int must_fail = fuzz_plan(&out_len, heads, 1);
    fuzz_buf out;
    buf_new(&out, out_len, must_fail ? FUZZ_CAP : heads, sizeof(double));

    int status = posenc_alibi_slopes(null ? NULL : (double *)(void *)out.p, out_len, heads, max_bias);
    check_status(status);
    FUZZ_ASSERT(!null || status == POSENC_ERR_NULL_POINTER);
    FUZZ_ASSERT(status != POSENC_OK || !must_fail);
    if (status != POSENC_OK) {
        FUZZ_ASSERT(buf_unchanged(&out));
    } else {
        const double *m = (const double *)(const void *)out.p;
        size_t p = 1;
        while (p <= heads / 2)
            p *= 2;
        for (size_t h = 0; h < heads; h++)
            FUZZ_ASSERT(isfinite(m[h]) && m[h] >= 0.0 && m[h] <= 1.0 && (h == 0 || h >= p || m[h] <= m[h - 1]));
    }
    buf_free(&out);
    return 0;
}
