/* Fuzz target: posenc_sinusoidal. On success every value is finite, |v| <= 1,
 * each sine/cosine pair has sin^2 + cos^2 = 1 (within float rounding), and
 * (up to 512 values a call) each value at |position| <= 2^24 is within the
 * 2^-23 contract of its formula evaluated here in long double (the layouts'
 * formulas: include/posenc.h). */
#include <math.h>

#include "decode.h"
#include "posenc.h"

/* Sine columns and the distance to each one's cosine, by layout (posenc.h). */
static void pairs(size_t d, int layout, size_t *n_pairs, size_t *sin_step, size_t *cos_at)
{
    if (layout == POSENC_LAYOUT_INTERLEAVED) {
        *n_pairs = d / 2, *sin_step = 2, *cos_at = 1;
    } else if (layout == POSENC_LAYOUT_CONCATENATED) {
        *n_pairs = d / 2, *sin_step = 1, *cos_at = d - d / 2;
    } else {
        *n_pairs = d / 2, *sin_step = 1, *cos_at = d / 2;
    }
}

/* PE(p, column) in long double: the frequency and the sine or cosine of each layout. */
static long double reference(long double p, size_t column, size_t d, long double b, int layout)
{
    size_t h = d / 2, i;
    int is_sin;
    long double w;
    if (layout == POSENC_LAYOUT_INTERLEAVED) {
        i = column / 2, is_sin = column % 2 == 0;
        w = powl(b, -2.0L * (long double)i / (long double)d);
    } else if (layout == POSENC_LAYOUT_CONCATENATED) {
        size_t sines = d - h;
        is_sin = column < sines, i = is_sin ? column : column - sines;
        w = powl(b, -2.0L * (long double)i / (long double)d);
    } else {
        if (column >= 2 * h)
            return 0.0L; /* the odd d's zero column */
        is_sin = column < h, i = is_sin ? column : column - h;
        w = powl(b, -(long double)i / (long double)(h > 1 ? h - 1 : 1));
    }
    return is_sin ? sinl(p * w) : cosl(p * w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = { data, size };
    size_t length = take_size(&in), d = take_size(&in), need;
    double base = take_double(&in);
    int32_t offset = take_i32(&in);
    int layout = take_enum(&in, 4), null = take_null(&in);
    int need_ok = mul2(length, d, &need);
    size_t out_len = take_len(&in, need, need_ok);
    int must_fail = fuzz_plan(&out_len, need, need_ok);
    fuzz_buf out;
    buf_new(&out, out_len, must_fail ? FUZZ_CAP : need, sizeof(float));

    int status = posenc_sinusoidal(null ? NULL : (float *)(void *)out.p, out_len, length, d, base,
                                   offset, layout);
    check_status(status);
    FUZZ_ASSERT(!null || status == POSENC_ERR_NULL_POINTER);
    FUZZ_ASSERT(status != POSENC_OK || !must_fail);
    if (status != POSENC_OK) {
        FUZZ_ASSERT(buf_unchanged(&out));
    } else {
        const float *v = (const float *)(const void *)out.p;
        size_t n_pairs, sin_step, cos_at;
        pairs(d, layout, &n_pairs, &sin_step, &cos_at);
        for (size_t i = 0; i < need; i++)
            FUZZ_ASSERT(isfinite(v[i]) && fabsf(v[i]) <= 1.0f);
        for (size_t r = 0; r < length; r++)
            for (size_t k = 0; k < n_pairs; k++) {
                double s = v[r * d + k * sin_step], c = v[r * d + k * sin_step + cos_at];
                FUZZ_ASSERT(fabs(s * s + c * c - 1.0) <= 0x1p-21);
            }
        /* the formula: the contract is 2^-23 of the double formula, whose own angle p w is within
         * 2^-52 |p w| <= 2^-28 of exact at |p| <= 2^24 */
        long double b = base == 0.0 ? 10000.0L : (long double)base;
        size_t step = need > 512 ? need / 512 : 1;
        for (size_t x = 0; x < need; x += step) {
            size_t row = x / d; /* the row's index: integer division on purpose */
            long double p = (long double)offset + (long double)row;
            if (fabsl(p) > 0x1p24L)
                continue;
            FUZZ_ASSERT(fabsl((long double)v[x] - reference(p, x % d, d, b, layout)) <= 0x1p-23L + 0x1p-27L);
        }
    }
    buf_free(&out);
    return 0;
}
