/* Fuzz target: the decoder state (posenc_decoder_create, _feed, _sample,
 * _generate, _reset) on small configurations of every positional scheme,
 * query scale and LM head: a prefix fed, then a feed of any count, then a
 * choice of the next token or a generation with any settings. A call that
 * fails leaves the sequence as it was (its length and logits); params and
 * tokens never change. On success the logits are the last row of
 * posenc_encoder_logits(causal = 1) on the whole sequence, the same floats
 * for the schemes whose tables have no angle recurrence (none, learned,
 * ALiBi, T5). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "posenc_encoder.h"

/* The full pass on the whole sequence: 1 and its row seq - 1 in *row, or 0. */
static int full_row(const posenc_encoder_config *c, const float *params, size_t params_len, const int32_t *tokens,
                    size_t seq, int32_t language, float *row)
{
    size_t pl, wl, n;
    if (posenc_encoder_sizes(c, seq, &pl, &wl) != POSENC_OK || !mul2(seq, c->vocab_size, &n) || wl > FUZZ_CAP ||
        n > FUZZ_CAP)
        return 0;
    float *work = malloc((wl ? wl : 1) * sizeof(float)), *out = malloc((n ? n : 1) * sizeof(float));
    int ok = work && out &&
             posenc_encoder_logits(out, n, c, params, params_len, tokens, seq, NULL, NULL, 1, language, NULL, 0, work, wl) ==
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
    size_t length = take_u8(&in) % 12, count = take_u8(&in) % 8 ? take_u8(&in) % 6 : take_size(&in);
    int32_t language = take_u8(&in) % 4 ? (int32_t)(take_u8(&in) % 4) - 1 : take_i32(&in);
    size_t params_need = 0, unused = 0;
    int sized = posenc_encoder_sizes(&c, 0, &params_need, &unused) == POSENC_OK && params_need <= FUZZ_CAP;
    size_t params_len = take_len(&in, params_need, sized);
    if (!sized || params_len > FUZZ_CAP)
        params_len = 0;

    fuzz_buf tokens, params;
    buf_new(&tokens, 24, 24, sizeof(int32_t));
    int32_t *t = (int32_t *)(void *)tokens.p;
    for (size_t s = 0; s < tokens.alloc; s++)
        t[s] = take_u8(&in) % 16 ? (int32_t)(take_u8(&in) % (c.vocab_size ? c.vocab_size : 1)) : take_i32(&in);
    buf_snapshot(&tokens);
    buf_new(&params, params_len, params_len, sizeof(float));
    float *w = (float *)(void *)params.p;
    for (size_t i = 0; i < params.alloc; i++)
        w[i] = take_value(&in) / 256.0f;
    buf_snapshot(&params);

    posenc_decoder *d = NULL;
    int status = posenc_decoder_create(&d, &c, params_len ? w : NULL, params_len, max_length, language);
    check_status(status);
    FUZZ_ASSERT((status == POSENC_OK) == (d != NULL));
    if (d) {
        size_t prefix = length; /* below 12 */
        /* the prefix at explicit positions, sometimes: small, or any int32 (negative ones refused) */
        int positioned = take_u8(&in) % 4 == 0;
        static int32_t pos[24];
        for (size_t i = 0; i < 24; i++)
            pos[i] = take_u8(&in) % 8 ? (int32_t)(take_u8(&in) % 40) : take_i32(&in);
        int prefix_ok = prefix == 0 || posenc_decoder_feed(d, t, positioned ? pos : NULL, prefix, NULL, 0) == POSENC_OK;
        size_t before_len = posenc_decoder_length(d);
        static float before[32], logits[32];
        const float *now = posenc_decoder_logits(d);
        int had = now != NULL && c.vocab_size <= 32;
        if (had)
            memcpy(before, now, c.vocab_size * sizeof *now);
        /* a count past the buffer only when it is past the room too (refused before any token is read) */
        size_t cap = max_length ? max_length
                     : c.positional == POSENC_POSITIONAL_LEARNED ? c.learned.max_length
                                                                 : (size_t)POSENC_POSITION_MAX + 1;
        size_t room = cap - posenc_decoder_length(d);
        size_t n = count <= 24 - prefix ? count : 0;
        status = posenc_decoder_feed(d, t + prefix, NULL, n || count > room ? count : 24 - prefix, logits, c.vocab_size);
        if (!n && count <= room)
            n = 24 - prefix;
        check_status(status);
        if (status != POSENC_OK) {
            FUZZ_ASSERT(posenc_decoder_length(d) == before_len);
            if (had)
                FUZZ_ASSERT(memcmp(posenc_decoder_logits(d), before, c.vocab_size * sizeof *before) == 0);
        } else {
            size_t seq = posenc_decoder_length(d);
            FUZZ_ASSERT(seq == before_len + n);
            static float want[32];
            int exact = c.positional != POSENC_POSITIONAL_ROPE && c.positional != POSENC_POSITIONAL_SINUSOIDAL &&
                        !positioned;
            if (exact && prefix_ok && prefix + n == seq && c.vocab_size <= 32 &&
                full_row(&c, w, params_len, t, seq, language, want)) {
                int finite = 1;
                for (size_t v = 0; v < c.vocab_size; v++)
                    finite &= isfinite(want[v]) && isfinite(logits[v]);
                for (size_t v = 0; finite && v < c.vocab_size; v++)
                    FUZZ_ASSERT(logits[v] == want[v]);
            }
        }
        /* a choice, or a generation, with any settings */
        posenc_sampling s = { take_u8(&in) % 2 ? 0.0 : take_double(&in), take_u8(&in) % 4 ? take_u8(&in) % 5 : take_size(&in),
                              take_u8(&in) % 2 ? 0.0 : take_double(&in) };
        uint64_t rng = take_size(&in);
        int32_t token = -7;
        size_t written = 99;
        if (take_u8(&in) % 2) {
            status = posenc_decoder_sample(d, take_u8(&in) % 4 ? &s : NULL, take_u8(&in) % 8 ? &rng : NULL, &token);
            check_status(status);
            FUZZ_ASSERT(status != POSENC_OK || (token >= 0 && (size_t)token < c.vocab_size));
            FUZZ_ASSERT(status == POSENC_OK || token == -7);
        } else {
            if (take_u8(&in) % 2)
                FUZZ_ASSERT(posenc_decoder_reset(d) == POSENC_OK && posenc_decoder_length(d) == 0);
            size_t before_gen = posenc_decoder_length(d), out_len = take_u8(&in) % 7;
            int32_t out[6];
            status = posenc_decoder_generate(d, t, 1 + take_u8(&in) % 4, &s, &rng, t + 20, take_u8(&in) % 4, out,
                                             out_len, &written);
            check_status(status);
            FUZZ_ASSERT(written <= out_len);
            for (size_t i = 0; i < written; i++)
                FUZZ_ASSERT(out[i] >= 0 && (size_t)out[i] < c.vocab_size);
            FUZZ_ASSERT(status == POSENC_OK || written > 0 || posenc_decoder_length(d) == before_gen ||
                        status != POSENC_ERR_BUFFER_TOO_SMALL);
        }
        posenc_decoder_free(d);
    }
    FUZZ_ASSERT(buf_unchanged(&tokens) && buf_unchanged(&params));
    buf_free(&tokens);
    buf_free(&params);
    return 0;
}
