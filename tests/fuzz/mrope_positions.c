/* Fuzz target: posenc_mrope_positions, spans of every kind (invalid kinds,
 * empty and huge grids, grids not divisible by the merge size, wide temporal
 * spacings), any seq. On success the text positions count up by one on all
 * three axes, every position is >= 0, and a span starts past every position
 * before it; the spans are never written; on error nothing is written.
 * Overlap cases put the spans inside out: refused. */
#include <math.h>

#include "decode.h"
#include "posenc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = { data, size };
    size_t n_spans = take_u8(&in) % 9, merge = take_u8(&in) % 4;
    double tps = take_u8(&in) % 2 ? (double)(take_u8(&in) % 30) : take_double(&in);
    int null = take_u8(&in) % 64;
    fuzz_buf spans;
    buf_new(&spans, n_spans, n_spans, sizeof(posenc_mrope_span));
    posenc_mrope_span *s = (posenc_mrope_span *)(void *)spans.p;
    size_t seq = 0;
    int seq_ok = 1;
    for (size_t i = 0; i < n_spans; i++) {
        s[i].kind = take_enum(&in, 3);
        int small = take_u8(&in) % 8 != 0;
        s[i].t = small ? take_u8(&in) % 5 : take_size(&in);
        s[i].h = small ? (size_t)2 * (size_t)(take_u8(&in) % 5) : take_size(&in);
        s[i].w = small ? (size_t)2 * (size_t)(take_u8(&in) % 5) : take_size(&in);
        s[i].seconds_per_grid = take_u8(&in) % 2 ? (double)(take_u8(&in) % 4) / 2.0 : take_double(&in);
        size_t m = merge ? merge : 2, tokens = s[i].t;
        if (s[i].kind != POSENC_MROPE_TEXT)
            seq_ok = seq_ok && mul3(s[i].t, s[i].h / m, s[i].w / m, &tokens);
        seq_ok = seq_ok && !__builtin_add_overflow(seq, tokens, &seq);
    }
    buf_snapshot(&spans);
    if (take_u8(&in) % 8 == 0 || !seq_ok) /* sometimes a wrong seq */
        seq = take_size(&in);
    size_t need;
    int need_ok = mul2(seq, 3, &need);
    size_t out_len = take_len(&in, need, need_ok);
    int must_fail = fuzz_plan(&out_len, need, need_ok);
    fuzz_buf out;
    buf_new(&out, out_len, must_fail ? FUZZ_CAP : need, sizeof(int32_t));
    int overlap = 0; /* the spans, read while out is written, copied into out */
    const posenc_mrope_span *spans_in = fuzz_alias(&in, &out, s, n_spans, sizeof(posenc_mrope_span), &overlap);

    int status = posenc_mrope_positions(null == 0 ? NULL : (int32_t *)(void *)out.p, out_len, seq,
                                        null == 1 ? NULL : spans_in, n_spans, merge, tps);
    check_status(status);
    FUZZ_ASSERT(null > 1 || status == POSENC_ERR_NULL_POINTER || (null == 1 && n_spans == 0));
    FUZZ_ASSERT(status != POSENC_OK || (!must_fail && !overlap));
    FUZZ_ASSERT(buf_unchanged(&spans));
    if (status != POSENC_OK) {
        FUZZ_ASSERT(buf_unchanged(&out));
    } else {
        const int32_t *p = (const int32_t *)(const void *)out.p;
        size_t at = 0, m = merge ? merge : 2;
        int64_t top = -1; /* the largest position before the span */
        for (size_t i = 0; i < n_spans; i++) {
            size_t tokens = s[i].kind == POSENC_MROPE_TEXT ? s[i].t : s[i].t * (s[i].h / m) * (s[i].w / m);
            int64_t span_top = top;
            for (size_t j = 0; j < tokens; j++, at++)
                for (int a = 0; a < 3; a++) {
                    int32_t v = p[(size_t)a * seq + at];
                    FUZZ_ASSERT(v > top);
                    if (s[i].kind == POSENC_MROPE_TEXT)
                        FUZZ_ASSERT(v == top + 1 + (int64_t)j);
                    span_top = v > span_top ? v : span_top;
                }
            top = span_top;
        }
        FUZZ_ASSERT(at == seq);
    }
    buf_free(&spans);
    buf_free(&out);
    return 0;
}
