/* Fuzz target: posenc_rope_frequencies, every scaling type with every field
 * decoded (defaults, out-of-range values, NaN, LongRoPE factor lists of any
 * length), factor lists or the attention factor that may lie inside
 * inv_freq. On success the frequencies and the attention factor are in the
 * ranges posenc_rope_cache accepts; on error nothing is written. */
#include <math.h>
#include <string.h>

#include "decode.h"
#include "posenc.h"
#include "rope_calls.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = { data, size };
    size_t rotary_dim = take_size(&in), seq_len = take_size(&in);
    double base = take_double(&in);
    int no_scaling = take_u8(&in) % 8 == 0, null = take_null(&in), null_attention = take_null(&in);
    posenc_rope_scaling s;
    memset(&s, 0, sizeof s);
    s.type = take_enum(&in, 6);
    s.no_truncate = take_enum(&in, 2);
    double *fields[] = { &s.factor, &s.original_max_position_embeddings, &s.max_position_embeddings,
                         &s.attention_factor, &s.beta_fast, &s.beta_slow, &s.mscale, &s.mscale_all_dim,
                         &s.low_freq_factor, &s.high_freq_factor };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        *fields[i] = take_u8(&in) % 2 ? take_double(&in) : 0.0; /* 0: the default */
    /* the factor lists hold factors_len doubles each (an honest caller) */
    s.factors_len = take_u8(&in) % 2 ? rotary_dim / 2 % (FUZZ_CAP + 1) : take_small(&in);
    fuzz_buf factors[2];
    for (int f = 0; f < 2; f++) {
        buf_new(&factors[f], s.factors_len, s.factors_len, sizeof(double));
        double *v = (double *)(void *)factors[f].p;
        for (size_t k = 0; k < s.factors_len; k++)
            v[k] = take_u8(&in) % 4 ? (double)(1 + take_u8(&in)) / 16.0 : take_double(&in);
        buf_snapshot(&factors[f]);
    }
    int null_short = take_null(&in), null_long = take_null(&in);

    size_t need = rotary_dim / 2;
    size_t n = take_len(&in, need, 1);
    int must_fail = fuzz_plan(&n, need, 1);
    fuzz_buf inv_freq, attention;
    buf_new(&inv_freq, n, must_fail ? FUZZ_CAP : need, sizeof(double));
    buf_new(&attention, 1, 1, sizeof(double));
    /* the factor lists (read while inv_freq is written, by LongRoPE) or the
     * attention factor (a second output) inside inv_freq: refused */
    int short_in = 0, long_in = 0, attention_in = 0;
    s.short_factor = null_short ? NULL : fuzz_alias(&in, &inv_freq, factors[0].p, s.factors_len, sizeof(double), &short_in);
    s.long_factor = null_long ? NULL : fuzz_alias(&in, &inv_freq, factors[1].p, s.factors_len, sizeof(double), &long_in);
    double *attention_out = fuzz_alias(&in, &inv_freq, attention.p, 1, sizeof(double), &attention_in);
    int longrope = !no_scaling && s.type == POSENC_ROPE_LONGROPE;
    int overlap = attention_in || (longrope && (short_in || long_in));

    posenc_rope rope = rope_given(rotary_dim, 0, NULL, 0, 0);
    rope.base = base, rope.seq_len = seq_len;
    if (!no_scaling)
        rope.scaling = s;
    int status = posenc_rope_frequencies(null ? NULL : (double *)(void *)inv_freq.p, n, &rope, NULL,
                                         null_attention ? NULL : attention_out);
    check_status(status);
    FUZZ_ASSERT(!(null || null_attention) || status == POSENC_ERR_NULL_POINTER);
    FUZZ_ASSERT(status != POSENC_OK || (!must_fail && !overlap));
    FUZZ_ASSERT(buf_unchanged(&factors[0]) && buf_unchanged(&factors[1]));
    if (status != POSENC_OK) {
        FUZZ_ASSERT(buf_unchanged(&inv_freq) && buf_unchanged(&attention));
    } else {
        const double *f = (const double *)(const void *)inv_freq.p;
        double a = *attention_out;
        /* what posenc_rope_cache and posenc_rope_apply accept */
        FUZZ_ASSERT(a > 0.0 && a <= POSENC_ROPE_ATTENTION_MAX);
        for (size_t k = 0; k < need; k++)
            FUZZ_ASSERT(f[k] >= 0.0 && f[k] <= POSENC_ROPE_FREQUENCY_MAX);
    }
    for (int i = 0; i < 2; i++)
        buf_free(&factors[i]);
    buf_free(&inv_freq);
    buf_free(&attention);
    return 0;
}
