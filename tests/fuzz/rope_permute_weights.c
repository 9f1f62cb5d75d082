/* Fuzz target: posenc_rope_permute_weights, with w and out that may overlap.
 * On success each out row is the w row the permutation names (posenc.h's
 * formulas, evaluated here) and w is unchanged; on error out is unchanged. */
#include <string.h>

#include "decode.h"
#include "posenc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = { data, size };
    size_t heads = take_size(&in), head_dim = take_size(&in), rotary_dim = take_size(&in);
    size_t in_features = take_size(&in), need;
    int from = take_enum(&in, 2), to = take_enum(&in, 2), null = take_u8(&in) % 64;
    int overlap = take_u8(&in) % 16 == 0;
    int need_ok = mul3(heads, head_dim, in_features, &need);
    size_t out_len = take_len(&in, need, need_ok), w_len = take_len(&in, need, need_ok);
    int must_fail = fuzz_plan(&out_len, need, need_ok) | fuzz_plan(&w_len, need, need_ok);
    size_t limit = must_fail ? FUZZ_CAP : need;
    /* overlap: out starts `shift` < need elements into w, in one allocation */
    size_t shift = need > 0 ? take_u8(&in) % need : 0;
    overlap = overlap && need > 0 && w_len <= FUZZ_CAP / 2 && out_len <= FUZZ_CAP / 2;
    fuzz_buf w, out;
    size_t block = shift + out_len > w_len ? shift + out_len : w_len;
    buf_new_values(&w, overlap ? block : w_len, overlap ? FUZZ_CAP : limit, &in);
    buf_new(&out, overlap ? 0 : out_len, limit, sizeof(float));
    float *wp = (float *)(void *)w.p, *op = overlap ? wp + shift : (float *)(void *)out.p;

    int status = posenc_rope_permute_weights(null == 0 ? NULL : op, out_len, null == 1 ? NULL : wp, w_len, heads,
                                             head_dim, rotary_dim, in_features, from, to);
    check_status(status);
    FUZZ_ASSERT(null > 1 || status == POSENC_ERR_NULL_POINTER);
    FUZZ_ASSERT(status != POSENC_OK || (!must_fail && !overlap));
    if (status != POSENC_OK) {
        FUZZ_ASSERT(buf_unchanged(&w) && buf_unchanged(&out));
    } else {
        FUZZ_ASSERT(buf_unchanged(&w));
        size_t half = rotary_dim / 2;
        for (size_t h = 0; h < heads; h++)
            for (size_t j = 0; j < head_dim; j++) {
                size_t src = j;
                if (j < rotary_dim && from == POSENC_ROPE_INTERLEAVED && to == POSENC_ROPE_HALF)
                    src = 2 * (j % half) + j / half; /* out[t * half + i] = w[2i + t] */
                else if (j < rotary_dim && from == POSENC_ROPE_HALF && to == POSENC_ROPE_INTERLEAVED)
                    src = (j % 2) * half + j / 2; /* out[2i + t] = w[t * half + i] */
                FUZZ_ASSERT(memcmp(op + (h * head_dim + j) * in_features, wp + (h * head_dim + src) * in_features,
                                   in_features * sizeof(float)) == 0);
            }
    }
    buf_free(&w);
    buf_free(&out);
    return 0;
}
