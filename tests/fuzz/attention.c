/* Fuzz target: posenc_attention, with bias, key mask, causal mask, returned
 * probabilities or a work buffer. On success every probability row is a
 * distribution (or zeros when every key is masked) and outputs are finite;
 * on error out and probs are unchanged; q, k, v, bias, mask never change. */
#include <math.h>

#include "decode.h"
#include "posenc_encoder.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = { data, size };
    size_t seq = take_size(&in), heads = take_size(&in), head_dim = take_size(&in);
    int causal = take_enum(&in, 2), null = take_u8(&in) % 64;
    int with_bias = take_u8(&in) % 2, with_probs = take_u8(&in) % 2, masked = take_u8(&in) % 2 && seq <= FUZZ_CAP;
    size_t need = 0, plane = 0, planes = 0, work = 0;
    int need_ok = mul3(seq, heads, head_dim, &need), plane_ok = mul2(seq, seq, &plane) && mul2(plane, heads, &planes);
    size_t out_len = take_len(&in, need, need_ok), qkv_len = take_len(&in, need, need_ok);
    /* keep one execution's work small: a bigger call is made to fail */
    if (need_ok && plane_ok && mul2(planes, head_dim, &work) && work > ((size_t)1 << 20) && need > 0)
        out_len = out_len < need ? out_len : need - 1;
    int must_fail = fuzz_plan(&out_len, need, need_ok) | fuzz_plan(&qkv_len, need, need_ok);
    must_fail |= plane_ok == 0;
    size_t bias_len = with_bias ? take_len(&in, planes, plane_ok) : 0;
    size_t probs_len = with_probs ? take_len(&in, planes, plane_ok) : 0;
    size_t work_len = with_probs ? take_size(&in) % 4 : take_len(&in, plane, plane_ok);
    if (with_bias)
        must_fail |= fuzz_plan(&bias_len, planes, plane_ok);
    if (with_probs)
        must_fail |= fuzz_plan(&probs_len, planes, plane_ok);
    else
        must_fail |= fuzz_plan(&work_len, plane, plane_ok);
    size_t limit = must_fail ? FUZZ_CAP : need;
    fuzz_buf q, k, v, bias, mask, probs, scratch, out;
    buf_new_values(&q, qkv_len, limit, &in);
    buf_new_values(&k, qkv_len, limit, &in);
    buf_new_values(&v, qkv_len, limit, &in);
    buf_new_values(&bias, bias_len, must_fail ? FUZZ_CAP : planes, &in);
    buf_new(&mask, masked ? seq : 0, seq, sizeof(int32_t));
    int32_t *m = (int32_t *)(void *)mask.p;
    for (size_t s = 0; s < mask.alloc; s++)
        m[s] = take_u8(&in) % 4 ? 1 : 0;
    buf_snapshot(&mask);
    buf_new(&probs, probs_len, must_fail ? FUZZ_CAP : planes, sizeof(float));
    buf_new(&scratch, work_len, with_probs ? 4 : must_fail ? FUZZ_CAP : plane, sizeof(float));
    buf_new(&out, out_len, limit, sizeof(float));
    float *o = (float *)(void *)out.p, *p = with_probs ? (float *)(void *)probs.p : NULL;

    /* the mask inside out, or inside the scores' buffer (probs, else work) */
    int aliased = 0;
    const int32_t *mk = masked ? m : NULL;
    if (masked)
        mk = fuzz_alias(&in, take_u8(&in) % 2 ? &out : with_probs ? &probs : &scratch, m, seq, sizeof(int32_t), &aliased);
    int status = posenc_attention(null == 0 ? NULL : o, out_len, null == 1 ? NULL : (const float *)(void *)q.p,
                                  (const float *)(void *)k.p, (const float *)(void *)v.p, qkv_len, seq, heads,
                                  head_dim, with_bias ? (const float *)(void *)bias.p : NULL, bias_len,
                                  mk, causal, p, probs_len, (float *)(void *)scratch.p, work_len);
    check_status(status);
    FUZZ_ASSERT(null > 1 || status == POSENC_ERR_NULL_POINTER);
    FUZZ_ASSERT(status != POSENC_OK || (!must_fail && !aliased));
    FUZZ_ASSERT(buf_unchanged(&q) && buf_unchanged(&k) && buf_unchanged(&v) && buf_unchanged(&bias) &&
                buf_unchanged(&mask));
    if (status != POSENC_OK) {
        FUZZ_ASSERT(buf_unchanged(&out) && buf_unchanged(&probs) && buf_unchanged(&scratch));
    } else if (need > 0) {
        for (size_t i = 0; i < need; i++)
            FUZZ_ASSERT(isfinite(o[i]));
        for (size_t row = 0; p && row < heads * seq; row++) {
            double sum = 0;
            for (size_t j = 0; j < seq; j++) {
                FUZZ_ASSERT(p[row * seq + j] >= 0.0f && p[row * seq + j] <= 1.0f);
                sum += p[row * seq + j];
            }
            FUZZ_ASSERT(sum == 0.0 || fabs(sum - 1.0) <= 1e-5 * (double)seq);
        }
    }
    buf_free(&q);
    buf_free(&k);
    buf_free(&v);
    buf_free(&bias);
    buf_free(&mask);
    buf_free(&probs);
    buf_free(&scratch);
    buf_free(&out);
    return 0;
}
