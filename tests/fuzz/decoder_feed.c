/* Fuzz target: posenc_decoder_sizes and posenc_decoder_feed on small
 * configurations of every positional scheme, query scale and LM head, with
 * a cache that already holds `length` tokens (fed honestly first) and
 * buffers sized around what posenc_decoder_sizes asks for. On error the
 * logits, the cache and the work are unchanged; params and tokens never
 * change. On success the cache changed only in the new rows
 * [length, length + count) of each layer's K and V, and (the formula check)
 * the logits are the last row of posenc_encoder_logits(causal = 1) on the
 * whole sequence, the same floats for the schemes whose tables have no
 * angle recurrence (none, learned, ALiBi, T5). Tokens placed inside the
 * logits, the cache or the work (read after those are written) must be
 * refused. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "posenc_encoder.h"

/* The full pass on the whole sequence: 1 and its row end - 1 in *row, or 0. */
static int full_row(const posenc_encoder_config *c, const float *params, size_t params_len, const int32_t *tokens,
                    size_t seq, int32_t language, float *row)
{
    size_t pl, wl, n;
    if (posenc_encoder_sizes(c, seq, &pl, &wl) != POSENC_OK || !mul2(seq, c->vocab_size, &n) || wl > FUZZ_CAP ||
        n > FUZZ_CAP)
        return 0;
    float *work = malloc((wl ? wl : 1) * sizeof(float)), *out = malloc((n ? n : 1) * sizeof(float));
    int ok = work && out &&
             posenc_encoder_logits(out, n, c, params, params_len, tokens, seq, NULL, 1, language, NULL, 0, work, wl) ==
                 POSENC_OK;
    for (size_t v = 0; ok && v < c->vocab_size; v++)
        row[v] = out[(seq - 1) * c->vocab_size + v];
    free(work);
    free(out);
    return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static double inv_freq[FUZZ_CAP];
    fuzz_in in = { data, size };
    posenc_encoder_config c;
    for (size_t k = 0; k < FUZZ_CAP; k++)
        inv_freq[k] = 1.0 / (double)(k + 1);
    take_encoder_config(&in, &c, inv_freq, 1);
    take_query_scale(&in, &c);
    size_t max_length = take_u8(&in) % 8 ? take_u8(&in) % 12 : take_size(&in);
    size_t length = take_u8(&in) % 8 ? take_u8(&in) % 12 : take_size(&in);
    size_t count = take_u8(&in) % 8 ? take_u8(&in) % 6 : take_size(&in);
    int32_t language = take_u8(&in) % 4 ? (int32_t)(take_u8(&in) % 4) - 1 : take_i32(&in);
    int null = (take_u8(&in) + 60) % 64; /* a short input (zeros) passes every pointer */
    size_t cache_need = 0, work_need = 0, params_need = 0, unused = 0, seq = 0;
    int sized = posenc_decoder_sizes(&c, max_length, count, &cache_need, &work_need) == POSENC_OK &&
                posenc_encoder_sizes(&c, 0, &params_need, &unused) == POSENC_OK;
    size_t logits_len = take_len(&in, c.vocab_size, 1), params_len = take_len(&in, params_need, sized);
    size_t cache_len = take_len(&in, cache_need, sized), work_len = take_len(&in, work_need, sized);
    int must_fail = fuzz_plan(&logits_len, c.vocab_size, 1) | fuzz_plan(&params_len, params_need, sized) |
                    fuzz_plan(&cache_len, cache_need, sized) | fuzz_plan(&work_len, work_need, sized);
    int seq_ok = !__builtin_add_overflow(length, count, &seq) && seq <= FUZZ_CAP;
    must_fail |= !sized || !seq_ok || length > max_length || (sized && count > max_length - length);

    /* the whole sequence: `length` tokens already cached, then the `count` fed */
    fuzz_buf tokens, params, logits, cache, work;
    buf_new(&tokens, seq_ok ? seq : 0, FUZZ_CAP, sizeof(int32_t));
    int32_t *t = (int32_t *)(void *)tokens.p;
    for (size_t s = 0; s < tokens.alloc; s++)
        t[s] = take_u8(&in) % 16 ? (int32_t)(take_u8(&in) % (c.vocab_size ? c.vocab_size : 1)) : take_i32(&in);
    buf_snapshot(&tokens);
    buf_new(&params, params_len, must_fail ? FUZZ_CAP : params_need, sizeof(float));
    float *w = (float *)(void *)params.p;
    for (size_t i = 0; i < params.alloc; i++)
        w[i] = take_value(&in) / 256.0f;
    buf_snapshot(&params);
    buf_new(&logits, logits_len, must_fail ? FUZZ_CAP : c.vocab_size, sizeof(float));
    buf_new_values(&cache, cache_len, must_fail ? FUZZ_CAP : cache_need, &in);
    buf_new(&work, work_len, must_fail ? FUZZ_CAP : work_need, sizeof(float));

    /* the tokens before: fed honestly, when the cache is whole */
    int prefix_ok = length == 0;
    size_t pw = 0, pc = 0;
    if (!prefix_ok && seq_ok && cache.alloc >= cache_need && length <= max_length && params.alloc >= params_need &&
        posenc_decoder_sizes(&c, max_length, length, &pc, &pw) == POSENC_OK && pw <= FUZZ_CAP) {
        float *prefix_work = malloc((pw ? pw : 1) * sizeof(float)), *prefix_logits = malloc((c.vocab_size + 1) * sizeof(float));
        prefix_ok = prefix_work && prefix_logits &&
                    posenc_decoder_feed(prefix_logits, c.vocab_size, &c, w, params_need, (float *)(void *)cache.p,
                                        cache_need, max_length, 0, t, length, language, prefix_work, pw) == POSENC_OK;
        free(prefix_work);
        free(prefix_logits);
        buf_snapshot(&cache);
    }

    /* an overlap case: the new ids in the logits, the cache or the work */
    int aliased = 0, where = take_u8(&in) % 3;
    fuzz_buf *host = where == 0 ? &logits : where == 1 ? &cache : &work;
    const int32_t *ids = seq_ok ? t + length : t;
    if (seq_ok)
        ids = fuzz_alias(&in, host, t + length, count, sizeof(int32_t), &aliased);
    float *o = (float *)(void *)logits.p, *kv = (float *)(void *)cache.p;
    int status = posenc_decoder_feed(null == 0 ? NULL : o, logits_len, &c, null == 1 ? NULL : w, params_len, null == 4 ? NULL : kv,
                                     cache_len, max_length, length, null == 2 ? NULL : ids, count, language,
                                     null == 3 ? NULL : (float *)(void *)work.p, work_len);
    check_status(status);
    FUZZ_ASSERT(null > 3 || status == POSENC_ERR_NULL_POINTER);
    FUZZ_ASSERT(null != 4 || !sized || cache_need == 0 || status != POSENC_OK);
    FUZZ_ASSERT(status != POSENC_OK || (!must_fail && !aliased));
    FUZZ_ASSERT(buf_unchanged(&tokens) && buf_unchanged(&params));
    if (status != POSENC_OK) {
        FUZZ_ASSERT(buf_unchanged(&logits) && buf_unchanged(&cache) && buf_unchanged(&work));
    } else {
        /* only rows [length, length + count) of each layer's K and V were written */
        size_t d = c.d_model, row = d * sizeof(float);
        for (size_t plane = 0; plane < 2 * c.layers; plane++) {
            const unsigned char *now = cache.p + plane * max_length * row, *was = cache.before + plane * max_length * row;
            FUZZ_ASSERT(memcmp(now, was, length * row) == 0);
            FUZZ_ASSERT(memcmp(now + seq * row, was + seq * row, (max_length - seq) * row) == 0);
        }
        static float want[16];
        int exact = c.positional != POSENC_POSITIONAL_ROPE && c.positional != POSENC_POSITIONAL_SINUSOIDAL;
        if (exact && prefix_ok && c.vocab_size <= 16 && full_row(&c, w, params_need, t, seq, language, want)) {
            int finite = 1;
            for (size_t v = 0; v < c.vocab_size; v++)
                finite &= isfinite(want[v]) && isfinite(o[v]);
            for (size_t v = 0; finite && v < c.vocab_size; v++)
                FUZZ_ASSERT(o[v] == want[v]);
        }
    }
    buf_free(&tokens);
    buf_free(&params);
    buf_free(&logits);
    buf_free(&cache);
    buf_free(&work);
    return 0;
}
