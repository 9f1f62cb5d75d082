/* Fuzz target: posenc_sinusoidal_2d. On success every value is finite,
 * |v| <= 1, each sine/cosine pair (per axis) has sin^2 + cos^2 = 1, the cls
 * row is zeros and patch (0, 0) is exactly [0 | 1 | 0 | 1]. */
#include <math.h>

#include "decode.h"
#include "posenc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = { data, size };
    size_t height = take_size(&in), width = take_size(&in), d = take_size(&in), cells = 0, rows = 0, need = 0;
    double base = take_u8(&in) % 2 ? 0.0 : take_double(&in);
    int cls = take_enum(&in, 2);
    double base_size = take_u8(&in) % 2 ? 0.0 : take_double(&in);
    double interp = take_u8(&in) % 2 ? 0.0 : take_double(&in);
    int null = take_null(&in);
    int need_ok = mul2(height, width, &cells) && !__builtin_add_overflow(cells, (size_t)(cls == 1), &rows) &&
                  mul2(rows, d, &need);
    size_t out_len = take_len(&in, need_ok ? need : 0, need_ok);
    int must_fail = fuzz_plan(&out_len, need, need_ok);
    fuzz_buf out;
    buf_new(&out, out_len, must_fail ? FUZZ_CAP : need, sizeof(float));

    int status = posenc_sinusoidal_2d(null ? NULL : (float *)(void *)out.p, out_len, height, width, d, base, cls,
                                      base_size, interp);
    check_status(status);
    FUZZ_ASSERT(!null || status == POSENC_ERR_NULL_POINTER);
    FUZZ_ASSERT(status != POSENC_OK || (!must_fail && d % 4 == 0 && (cls == 0 || cls == 1)));
    if (status != POSENC_OK) {
        FUZZ_ASSERT(buf_unchanged(&out));
    } else if (need > 0) {
        const float *v = (const float *)(const void *)out.p;
        size_t q = d / 4;
        for (size_t i = 0; i < need; i++)
            FUZZ_ASSERT(isfinite(v[i]) && fabsf(v[i]) <= 1.0f);
        for (size_t k = 0; k < d && cls; k++)
            FUZZ_ASSERT(v[k] == 0.0f);
        const float *grid = v + (cls ? d : 0);
        for (size_t r = 0; r < cells; r++)
            for (size_t k = 0; k < q; k++)
                for (size_t axis = 0; axis < 2; axis++) {
                    double s = grid[r * d + axis * 2 * q + k], c = grid[r * d + axis * 2 * q + q + k];
                    FUZZ_ASSERT(fabs(s * s + c * c - 1.0) <= 0x1p-21);
                    FUZZ_ASSERT(r > 0 || (s == 0.0 && c == 1.0));
                }
    }
    buf_free(&out);
    return 0;
}
