/* Fuzz target: posenc_encoder_sizes, configurations with sizes near overflow.
 * On success the sizes hold at least the embeddings and the activations (and
 * the learned table, the LM head and its hidden states); on error nothing is
 * written. */
#include "decode.h"
#include "posenc_encoder.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static double inv_freq[FUZZ_CAP];
    fuzz_in in = { data, size };
    posenc_encoder_config c;
    for (size_t k = 0; k < FUZZ_CAP; k++)
        inv_freq[k] = 1.0 / (double)(k + 1);
    take_encoder_config(&in, &c, inv_freq, 0);
    size_t seq = take_size(&in);
    int null = take_u8(&in) % 32;
    fuzz_buf sizes;
    buf_new(&sizes, 2, 2, sizeof(size_t));
    size_t *s = (size_t *)(void *)sizes.p;

    int status = posenc_encoder_sizes(null == 0 ? NULL : &c, seq, null == 1 ? NULL : s, null == 2 ? NULL : s + 1);
    check_status(status);
    FUZZ_ASSERT(null > 2 || status == POSENC_ERR_NULL_POINTER);
    if (status != POSENC_OK) {
        FUZZ_ASSERT(buf_unchanged(&sizes));
    } else {
        FUZZ_ASSERT(s[0] >= c.vocab_size * c.d_model && s[1] >= 2 * seq * c.d_model);
        /* a learned table never serves more rows than it has; an own LM head is a second [vocab][d] */
        FUZZ_ASSERT(c.positional != POSENC_POSITIONAL_LEARNED || (seq <= c.learned.max_length && s[0] >= (1 + c.learned.max_length) * c.d_model));
        FUZZ_ASSERT(c.lm_head != POSENC_LM_HEAD_OWN || s[0] >= 2 * c.vocab_size * c.d_model);
        FUZZ_ASSERT(c.lm_head == POSENC_LM_HEAD_NONE || s[1] >= 3 * seq * c.d_model);
    }
    buf_free(&sizes);
    return 0;
}
