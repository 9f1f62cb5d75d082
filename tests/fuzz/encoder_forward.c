/* Fuzz target: posenc_encoder_forward and posenc_encoder_logits on small
 * configurations of every positional scheme (learned positions included),
 * norm placement, activation and LM head, with buffers sized around what
 * posenc_encoder_sizes asks for. On success the output is finite (for
 * moderate scales); on error out, attention and work are unchanged; params,
 * tokens and the mask never change. Tokens or the mask placed inside out,
 * work or attention (read after those are written) must be refused. */
#include <math.h>

#include "decode.h"
#include "posenc_encoder.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static double inv_freq[FUZZ_CAP];
    fuzz_in in = { data, size };
    posenc_encoder_config c;
    for (size_t k = 0; k < FUZZ_CAP; k++)
        inv_freq[k] = 1.0 / (double)(k + 1);
    take_encoder_config(&in, &c, inv_freq, 1);
    size_t seq = take_u8(&in) % 8 ? take_u8(&in) % 9 : take_size(&in);
    int causal = take_enum(&in, 2), null = take_u8(&in) % 64, masked = take_u8(&in) % 2 && seq <= FUZZ_CAP;
    int32_t language = take_u8(&in) % 4 ? (int32_t)(take_u8(&in) % 4) - 1 : take_i32(&in);
    int with_attention = take_u8(&in) % 2, logits = take_u8(&in) % 2;
    size_t params_need = 0, work_need = 0, att_need = 0, act = 0;
    int sized = posenc_encoder_sizes(&c, seq, &params_need, &work_need) == POSENC_OK;
    /* out: [seq][d_model], or [seq][vocab_size] for the logits */
    int act_ok = mul2(seq, logits ? c.vocab_size : c.d_model, &act);
    int att_ok = mul3(c.layers, c.heads, seq, &att_need) && mul2(att_need, seq, &att_need);
    size_t out_len = take_len(&in, act, act_ok), params_len = take_len(&in, params_need, sized);
    size_t work_len = take_len(&in, work_need, sized), att_len = with_attention ? take_len(&in, att_need, att_ok) : 0;
    int must_fail = fuzz_plan(&out_len, act, act_ok) | fuzz_plan(&params_len, params_need, sized) |
                    fuzz_plan(&work_len, work_need, sized);
    must_fail |= sized == 0 || (logits && c.lm_head == POSENC_LM_HEAD_NONE);
    if (with_attention)
        must_fail |= fuzz_plan(&att_len, att_need, att_ok);
    fuzz_buf tokens, mask, positions, params, out, attention, work;
    buf_new(&tokens, seq, FUZZ_CAP, sizeof(int32_t));
    must_fail |= seq > FUZZ_CAP;
    int32_t *t = (int32_t *)(void *)tokens.p;
    for (size_t s = 0; s < tokens.alloc; s++)
        t[s] = take_u8(&in) % 16 ? (int32_t)(take_u8(&in) % (c.vocab_size ? c.vocab_size : 1)) : take_i32(&in);
    buf_snapshot(&tokens);
    buf_new(&mask, masked ? seq : 0, seq, sizeof(int32_t));
    for (size_t s = 0; s < mask.alloc; s++)
        ((int32_t *)(void *)mask.p)[s] = take_u8(&in) % 4 != 0;
    buf_snapshot(&mask);
    /* explicit positions, sometimes: small, or any int32 (negative ones refused) */
    int positioned = take_u8(&in) % 3 == 0;
    buf_new(&positions, positioned ? seq : 0, seq, sizeof(int32_t));
    int32_t *pos = (int32_t *)(void *)positions.p;
    for (size_t s = 0; s < positions.alloc; s++) {
        pos[s] = take_u8(&in) % 8 ? (int32_t)(take_u8(&in) % 64) : take_i32(&in);
        must_fail |= pos[s] < 0 ||
                     (c.positional == POSENC_POSITIONAL_LEARNED && (size_t)pos[s] >= c.learned.max_length);
    }
    buf_snapshot(&positions);
    buf_new(&params, params_len, must_fail ? FUZZ_CAP : params_need, sizeof(float));
    float *w = (float *)(void *)params.p;
    for (size_t i = 0; i < params.alloc; i++)
        w[i] = take_value(&in) / 256.0f;
    buf_snapshot(&params);
    buf_new(&out, out_len, must_fail ? FUZZ_CAP : act, sizeof(float));
    buf_new(&attention, att_len, must_fail ? FUZZ_CAP : att_need, sizeof(float));
    buf_new(&work, work_len, must_fail ? FUZZ_CAP : work_need, sizeof(float));
    float *o = (float *)(void *)out.p;
    /* an overlap case: the ids in out, work or attention, or the mask in work */
    int aliased = 0, where = take_u8(&in) % 4;
    fuzz_buf *host = where == 0 ? &out : where == 1 || where == 3 ? &work : &attention;
    const int32_t *ids = t, *key_mask = masked ? (const int32_t *)(void *)mask.p : NULL;
    if (where == 3 && masked)
        key_mask = fuzz_alias(&in, host, mask.p, seq, sizeof(int32_t), &aliased);
    else if (where != 3 && (where != 2 || with_attention))
        ids = fuzz_alias(&in, host, t, seq, sizeof(int32_t), &aliased);

    int (*entry)(float *, size_t, const posenc_encoder_config *, const float *, size_t, const int32_t *, size_t,
                 const int32_t *, const int32_t *, int, int32_t, float *, size_t, float *, size_t) =
        logits ? posenc_encoder_logits : posenc_encoder_forward;
    int status = entry(null == 0 ? NULL : o, out_len, &c, null == 1 ? NULL : w, params_len, null == 2 ? NULL : ids,
                       seq, positioned ? pos : NULL, key_mask, causal, language,
                       with_attention ? (float *)(void *)attention.p : NULL, att_len,
                       null == 3 ? NULL : (float *)(void *)work.p, work_len);
    check_status(status);
    FUZZ_ASSERT(null > 3 || (null == 2 && seq == 0) || status == POSENC_ERR_NULL_POINTER);
    FUZZ_ASSERT(status != POSENC_OK || (!must_fail && !aliased));
    FUZZ_ASSERT(buf_unchanged(&tokens) && buf_unchanged(&mask) && buf_unchanged(&positions) && buf_unchanged(&params));
    if (status != POSENC_OK) {
        FUZZ_ASSERT(buf_unchanged(&out) && buf_unchanged(&attention) && buf_unchanged(&work));
    } else if ((c.embed_scale == 0.0 || fabs(c.embed_scale) <= 64.0) &&
               (c.rope.attention_factor == 0.0 || c.rope.attention_factor <= 4.0) &&
               (c.sinusoidal.base == 0.0 || c.sinusoidal.base < 1e300)) {
        for (size_t i = 0; i < act; i++)
            FUZZ_ASSERT(isfinite(o[i]));
    }
    buf_free(&tokens);
    buf_free(&mask);
    buf_free(&positions);
    buf_free(&params);
    buf_free(&out);
    buf_free(&attention);
    buf_free(&work);
    return 0;
}
