/* Fuzz target: posenc_rope_axes_apply, positions [n_axes][seq] or
 * [n_axes][batch][seq] (or any length), sections that split the pairs or not.
 * On success the features >= rotary_dim are untouched, the values finite, each
 * head's norm scaled by at most max(A, 1), and, with every axis at the same
 * positions, x equals posenc_rope_apply_ordered's bit for bit (either order);
 * on error x is unchanged. Overlap cases put positions, sections or inv_freq
 * inside x: refused. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "posenc.h"
#include "rope_calls.h"

/* Sections: a valid split of half among n_axes (most of the time), or decoded sizes. */
static void take_sections(fuzz_in *in, size_t *sections, size_t n_axes, size_t half)
{
    size_t left = half;
    int valid = take_u8(in) % 4 != 0;
    for (size_t a = 0; a < n_axes; a++) {
        if (!valid) {
            sections[a] = take_size(in);
            continue;
        }
        sections[a] = a + 1 == n_axes ? left : (left ? take_u8(in) % (left + 1) : 0);
        left -= sections[a];
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = { data, size };
    size_t batch = take_size(&in), seq = take_size(&in), heads = take_size(&in), head_dim = take_size(&in);
    size_t rotary_dim = take_size(&in) % (2 * FUZZ_CAP + 2); /* inv_freq holds rotary_dim / 2 doubles */
    size_t n_axes = take_u8(&in) % 6, sections[8] = { 0 };
    int layout = take_enum(&in, 2), precision = take_enum(&in, 2), null = take_u8(&in) % 64, equal = take_u8(&in) % 2;
    int order = take_enum(&in, 2), arrangement = take_enum(&in, 2); /* sectioned or interleaved (Qwen3-VL) */
    double attention = take_u8(&in) % 2 ? 1.0 : take_double(&in);
    size_t half = rotary_dim / 2, need, rows = 0;
    take_sections(&in, sections, n_axes, half);
    int need_ok = mul3(batch, seq, heads, &need) && mul2(need, head_dim, &need);
    int rows_ok = mul2(batch, seq, &rows);

    fuzz_buf freq, positions;
    buf_new(&freq, half, half, sizeof(double));
    double *f = (double *)(void *)freq.p;
    for (size_t k = 0; k < half; k++)
        f[k] = take_u8(&in) % 4 ? pow(10000.0, -(double)(2 * k) / (double)rotary_dim) : take_double(&in);
    buf_snapshot(&freq);
    size_t per_axis = 0, positions_len = 0; /* [n_axes][seq], [n_axes][batch][seq], or any length */
    switch (take_u8(&in) % 3) {
    case 0: per_axis = seq; break;
    case 1: per_axis = rows_ok ? rows : SIZE_MAX; break;
    default: per_axis = take_size(&in); break;
    }
    int len_ok = mul2(n_axes ? n_axes : 1, per_axis, &positions_len);
    if (!len_ok)
        positions_len = SIZE_MAX;
    buf_new(&positions, positions_len, FUZZ_CAP, sizeof(int32_t));
    int32_t *pos = (int32_t *)(void *)positions.p;
    for (size_t r = 0; r < positions.alloc; r++)
        pos[r] = equal && per_axis && r >= per_axis ? pos[r % per_axis] : take_i32(&in);
    buf_snapshot(&positions);
    int must_fail_positions = positions_len > FUZZ_CAP;

    size_t x_len = take_len(&in, need, need_ok);
    int must_fail = fuzz_plan(&x_len, need, need_ok) || must_fail_positions;
    fuzz_buf x;
    buf_new_values(&x, x_len, must_fail ? FUZZ_CAP : need, &in);
    /* the inputs read while x is written, copied into x */
    int overlap = 0;
    const double *f_in = fuzz_alias(&in, &x, f, half, sizeof(double), &overlap);
    const int32_t *pos_in = fuzz_alias(&in, &x, pos, positions.alloc, sizeof(int32_t), &overlap);

    /* rotary_dim 0 selects head_dim, whose frequencies the call computes */
    posenc_rope rope = rope_given(rotary_dim, layout, rotary_dim ? f_in : NULL, attention, precision);
    posenc_rope_axes axes = rope_axes_of(n_axes, sections, arrangement);
    int status = posenc_rope_axes_apply(null == 0 ? NULL : (float *)(void *)x.p, x_len, batch, seq, heads, head_dim,
                                        order, null == 2 ? NULL : pos_in, positions_len, null == 3 ? NULL : &axes,
                                        null == 1 ? NULL : &rope);
    size_t rotated = rotary_dim ? rotary_dim : head_dim;
    attention = rotary_dim && attention != 0.0 ? attention : 1.0; /* 0 selects 1; computed: A = 1 */
    check_status(status);
    FUZZ_ASSERT(null > 3 || status == POSENC_ERR_NULL_POINTER || (null == 2 && positions_len == 0));
    FUZZ_ASSERT(status != POSENC_OK || (!must_fail && !overlap));
    FUZZ_ASSERT(buf_unchanged(&freq) && buf_unchanged(&positions));
    if (status != POSENC_OK) {
        FUZZ_ASSERT(buf_unchanged(&x));
    } else if (need > 0) {
        const float *now = (const float *)(const void *)x.p, *was = (const float *)(const void *)x.before;
        double growth = attention > 1.0 ? attention : 1.0;
        for (size_t v = 0; v < need / head_dim; v++) {
            const float *a = now + v * head_dim, *b = was + v * head_dim;
            double norm_now = 0, norm_was = 0;
            for (size_t i = 0; i < head_dim; i++) {
                if (i >= rotated)
                    FUZZ_ASSERT(a[i] == b[i]);
                norm_now += (double)a[i] * a[i];
                norm_was += (double)b[i] * b[i];
            }
            if (attention <= 0x1p40) {
                FUZZ_ASSERT(isfinite(norm_now));
                FUZZ_ASSERT(sqrt(norm_now) <= growth * sqrt(norm_was) * (1 + 0x1p-20) + 0x1p-100);
            }
        }
        if (equal && per_axis) { /* every axis at axis 0's positions: plain RoPE */
            float *plain = malloc(need * sizeof *plain);
            memcpy(plain, was, need * sizeof *plain);
            FUZZ_ASSERT(posenc_rope_apply(plain, need, batch, seq, heads, head_dim, order, 0, pos, per_axis, &rope) ==
                        POSENC_OK);
            FUZZ_ASSERT(memcmp(plain, now, need * sizeof *plain) == 0);
            free(plain);
        }
    }
    buf_free(&freq);
    buf_free(&positions);
    buf_free(&x);
    return 0;
}
