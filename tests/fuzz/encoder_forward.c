/* Fuzz target: posenc_encoder_forward on small configurations of every
 * positional scheme, norm placement and activation, with buffers sized around
 * what posenc_encoder_sizes asks for. On success the output is finite (for
 * moderate scales); on error out, attention and work are unchanged; params,
 * tokens and the mask never change. */
#include <math.h>

#include "decode.h"
#include "posenc.h"

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
    int with_attention = take_u8(&in) % 2;
    size_t params_need = 0, work_need = 0, att_need = 0, act = 0;
    int sized = posenc_encoder_sizes(&c, seq, &params_need, &work_need) == POSENC_OK;
    int act_ok = mul2(seq, c.d_model, &act);
    int att_ok = mul3(c.layers, c.heads, seq, &att_need) && mul2(att_need, seq, &att_need);
    size_t out_len = take_len(&in, act, act_ok), params_len = take_len(&in, params_need, sized);
    size_t work_len = take_len(&in, work_need, sized), att_len = with_attention ? take_len(&in, att_need, att_ok) : 0;
    int must_fail = fuzz_plan(&out_len, act, act_ok) | fuzz_plan(&params_len, params_need, sized) |
                    fuzz_plan(&work_len, work_need, sized);
    must_fail |= sized == 0;
    if (with_attention)
        must_fail |= fuzz_plan(&att_len, att_need, att_ok);
    fuzz_buf tokens, mask, params, out, attention, work;
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
    buf_new(&params, params_len, must_fail ? FUZZ_CAP : params_need, sizeof(float));
    float *w = (float *)(void *)params.p;
    for (size_t i = 0; i < params.alloc; i++)
        w[i] = take_value(&in) / 256.0f;
    buf_snapshot(&params);
    buf_new(&out, out_len, must_fail ? FUZZ_CAP : act, sizeof(float));
    buf_new(&attention, att_len, must_fail ? FUZZ_CAP : att_need, sizeof(float));
    buf_new(&work, work_len, must_fail ? FUZZ_CAP : work_need, sizeof(float));
    float *o = (float *)(void *)out.p;

    int status = posenc_encoder_forward(null == 0 ? NULL : o, out_len, &c, null == 1 ? NULL : w, params_len,
                                        null == 2 ? NULL : t, seq, masked ? (const int32_t *)(void *)mask.p : NULL,
                                        causal, language, with_attention ? (float *)(void *)attention.p : NULL,
                                        att_len, null == 3 ? NULL : (float *)(void *)work.p, work_len);
    check_status(status);
    FUZZ_ASSERT(null > 3 || (null == 2 && seq == 0) || status == POSENC_ERR_NULL_POINTER);
    FUZZ_ASSERT(status != POSENC_OK || !must_fail);
    FUZZ_ASSERT(buf_unchanged(&tokens) && buf_unchanged(&mask) && buf_unchanged(&params));
    if (status != POSENC_OK) {
        FUZZ_ASSERT(buf_unchanged(&out) && buf_unchanged(&attention) && buf_unchanged(&work));
    } else if ((c.embed_scale == 0.0 || fabs(c.embed_scale) <= 64.0) &&
               (c.rope_attention_factor == 0.0 || c.rope_attention_factor <= 4.0) &&
               (c.sinusoidal_base == 0.0 || c.sinusoidal_base < 1e300)) {
        for (size_t i = 0; i < act; i++)
            FUZZ_ASSERT(isfinite(o[i]));
    }
    buf_free(&tokens);
    buf_free(&mask);
    buf_free(&params);
    buf_free(&out);
    buf_free(&attention);
    buf_free(&work);
    return 0;
}
