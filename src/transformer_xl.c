/* transformer_xl.c: Transformer-XL's relative sinusoid (formula and source in posenc.h). */
#include "posenc.h"

#include <string.h>

#include "checked.h"
#include "fmath.h"
#include "params.h"
#include "trig.h"

/* mem_transformer.py PositionalEmbedding: inv_freq = 1 / 10000^(arange(0, d, 2) / d) */
static double xl_freq(const void *ctx, size_t k)
{
    double d = (double)*(const size_t *)ctx;
    return 1.0 / fmath_pow(10000.0, (double)(2 * k) / d);
}

int posenc_transformer_xl_embedding(float *out, size_t out_len, size_t key_len, size_t d_model,
                                    int32_t clamp_length)
{
    size_t need;
    int status;
    if (!out)
        return fail_null(1, "out");
    /* odd d_model: the reference's [sin | cos] is 2 * ceil(d/2) wide, not d;
       the last position key_len - 1 must be an int32 */
    if ((status = param_check(POSENC_PARAM_KEY_LEN, 3, (double)key_len)))
        return status;
    if (!row_ok(&posenc_param_rows[POSENC_PARAM_D_MODEL_EVEN], (double)d_model))
        return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_D_MODEL_EVEN, 4, "d_model", POSENC_RULE_EVEN,
                                 (double)d_model, 2.0, POSENC_POSITION_MAX, NULL,
                                 "Transformer-XL's frequencies number ceil(d_model / 2): the [sin | cos] row of "
                                 "an odd d_model is one column wider than d_model");
    if (clamp_length < 0)
        return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_CLAMP_LENGTH, 5, "clamp_length",
                                 POSENC_RULE_INTEGER, clamp_length, 0.0, POSENC_POSITION_MAX, NULL,
                                 "pass 0 for no clamping, what a negative clamp length means in Transformer-XL");
    if (checked_mul(key_len, d_model, &need))
        return fail_size(3, "key_len * d_model", key_len, d_model);
    if (out_len < need)
        return fail_length(2, "out_len", out_len, need);
    if (need == 0)
        return POSENC_OK;

    size_t half = d_model / 2, top = key_len - 1;
    /* rows above the clamp all sit at position clamp_length: computed once, copied */
    size_t flat = clamp_length > 0 && top > (size_t)clamp_length ? top - (size_t)clamp_length : 0;
    float *run = out + flat * d_model;
    trig_target t = { run, run + half, d_model, 1, 0, 1, 0, 1.0f, 1.0 };
    trig_rows rows = { key_len - flat, (double)(top - flat), -1, NULL };
    trig_fill(&t, xl_freq, &d_model, half, half, &rows);
    for (size_t r = 0; r < flat; r++)
        memcpy(out + r * d_model, run, d_model * sizeof *out);
    return POSENC_OK;
}
