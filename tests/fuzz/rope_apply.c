/* Fuzz target: posenc_rope_apply (either axis order), positions by offset,
 * per row or per batch and row, positions or inv_freq that may lie inside x;
 * rotary_dim 0 (head_dim, frequencies computed from the default base). On success the features >= rotary_dim of
 * every head are untouched, the values finite and each head's norm scaled by
 * at most max(A, 1); on error x is unchanged. */
#include <math.h>

#include "decode.h"
#include "posenc.h"
#include "rope_calls.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = { data, size };
    size_t batch = take_size(&in), seq = take_size(&in), heads = take_size(&in), head_dim = take_size(&in);
    size_t rotary_dim = take_size(&in) % (2 * FUZZ_CAP + 2); /* inv_freq holds rotary_dim / 2 doubles */
    int layout = take_enum(&in, 2), precision = take_enum(&in, 2), null = take_u8(&in) % 64;
    double attention = take_double(&in);
    int32_t offset = take_i32(&in);
    size_t half = rotary_dim / 2, need, rows = 0;
    int need_ok = mul3(batch, seq, heads, &need) && mul2(need, head_dim, &need);
    int rows_ok = mul2(batch, seq, &rows);

    fuzz_buf freq, positions;
    buf_new(&freq, half, half, sizeof(double));
    double *f = (double *)(void *)freq.p;
    for (size_t k = 0; k < half; k++)
        f[k] = take_u8(&in) % 4 ? pow(10000.0, -(double)(2 * k) / (double)rotary_dim) : take_double(&in);
    buf_snapshot(&freq);
    /* positions: none, one per row, one per batch and row, or any length */
    size_t positions_len = 0;
    switch (take_u8(&in) % 4) {
    case 1: positions_len = seq; break;
    case 2: positions_len = rows_ok ? rows : SIZE_MAX; break;
    case 3: positions_len = take_size(&in); break;
    default: break;
    }
    int listed = positions_len > 0 || take_u8(&in) % 2;
    /* more than FUZZ_CAP positions: the call must fail before reading them */
    buf_new(&positions, positions_len, FUZZ_CAP, sizeof(int32_t));
    for (size_t r = 0; r < positions.alloc; r++)
        ((int32_t *)(void *)positions.p)[r] = take_i32(&in);
    buf_snapshot(&positions);
    int must_fail_positions = positions_len > FUZZ_CAP;

    size_t x_len = take_len(&in, need, need_ok);
    int must_fail = fuzz_plan(&x_len, need, need_ok) || must_fail_positions;
    fuzz_buf x;
    buf_new_values(&x, x_len, must_fail ? FUZZ_CAP : need, &in);
    /* positions or inv_freq inside x, read while x is rotated: refused */
    int overlap = 0;
    const int32_t *pos = listed ? fuzz_alias(&in, &x, positions.p, positions.alloc, sizeof(int32_t), &overlap) : NULL;
    const double *inv_freq = fuzz_alias(&in, &x, f, half, sizeof(double), &overlap);

    /* the BSHD order, or any order */
    int ordered = take_u8(&in) % 2, order = ordered ? take_enum(&in, 2) : POSENC_ROPE_ORDER_BSHD;
    float *xp = null == 0 ? NULL : (float *)(void *)x.p;
    /* rotary_dim 0 selects head_dim, whose frequencies the call computes (an
       honest caller gives rotary_dim / 2 of its own) */
    posenc_rope rope = rope_given(rotary_dim, layout, rotary_dim ? inv_freq : NULL, attention, precision);
    int status = posenc_rope_apply(xp, x_len, batch, seq, heads, head_dim, order, offset, pos, positions_len,
                                   null == 1 ? NULL : &rope);
    check_status(status);
    FUZZ_ASSERT(null > 1 || status == POSENC_ERR_NULL_POINTER);
    int bad_order = order != POSENC_ROPE_ORDER_BSHD && order != POSENC_ROPE_ORDER_BHSD;
    size_t rotated = rotary_dim ? rotary_dim : head_dim;
    attention = rotary_dim && attention != 0.0 ? attention : 1.0; /* 0 selects 1; computed: A = 1 */
    FUZZ_ASSERT(status != POSENC_OK || (!must_fail && !overlap && !bad_order));
    FUZZ_ASSERT(buf_unchanged(&freq) && buf_unchanged(&positions));
    if (status != POSENC_OK) {
        FUZZ_ASSERT(buf_unchanged(&x));
    } else {
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
    }
    buf_free(&freq);
    buf_free(&positions);
    buf_free(&x);
    return 0;
}
