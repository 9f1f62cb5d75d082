/* Fuzz target: posenc_sinusoidal_frequencies. On success the frequencies are
 * finite, in [0, 1], w_0 = 1, and non-increasing. */
#include <math.h>

#include "decode.h"
#include "posenc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = { data, size };
    size_t d = take_size(&in);
    double base = take_double(&in);
    int layout = take_enum(&in, 4), null = take_null(&in);
    /* one per sine column: ceil(d/2) or floor(d/2); an unknown layout writes nothing */
    int known = layout >= 0 && layout < 4;
    size_t need = layout == POSENC_LAYOUT_INTERLEAVED || layout == POSENC_LAYOUT_CONCATENATED ? d - d / 2
                                                                                              : d / 2;
    size_t out_len = take_len(&in, need, 1);
    int must_fail = fuzz_plan(&out_len, need, 1) || !known;
    fuzz_buf out;
    buf_new(&out, out_len, must_fail ? FUZZ_CAP : need, sizeof(double));

    int status = posenc_sinusoidal_frequencies(null ? NULL : (double *)(void *)out.p, out_len, d, base, layout);
    check_status(status);
    FUZZ_ASSERT(!null || status == POSENC_ERR_NULL_POINTER);
    FUZZ_ASSERT(status != POSENC_OK || !must_fail);
    if (status != POSENC_OK) {
        FUZZ_ASSERT(buf_unchanged(&out));
    } else {
        const double *w = (const double *)(const void *)out.p;
        FUZZ_ASSERT(need == 0 || w[0] == 1.0);
        for (size_t i = 0; i < need; i++)
            FUZZ_ASSERT(isfinite(w[i]) && w[i] >= 0.0 && w[i] <= 1.0 && (i == 0 || w[i] <= w[i - 1]));
    }
    buf_free(&out);
    return 0;
}
