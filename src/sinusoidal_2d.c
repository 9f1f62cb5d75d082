/*
 * sinusoidal_2d.c: the 2-D sine-cosine table of ViTs, MAE and DiT (formula,
 * sources and layout in posenc.h).
 *
 * A row is [x part | y part], and the x part of patch (y, x) does not depend
 * on y (nor the y part on x): each half is computed once per column (per row)
 * of the grid with the exact recurrence, then copied. The work is
 * (height + width) * d_model / 2 values instead of height * width * d_model.
 */
#include "posenc.h"

#include <math.h>
#include <string.h>

#include "checked.h"
#include "fmath.h"
#include "params.h"
#include "trig.h"

/* w_k = base^(-k / q) on one axis whose coordinate is scaled by `scale`:
 * the frequency per grid step is scale * w_k. */
typedef struct axis_freq {
    double log_base, q, scale;
} axis_freq;

static double axis_freq_at(const void *ctx, size_t k)
{
    const axis_freq *f = ctx;
    return f->scale * fmath_exp(-(double)k * f->log_base / f->q);
}

/* diffusers get_2d_sincos_pos_embed: pos = arange(n) / (n / base_size) / interpolation_scale. */
static double axis_scale(size_t n, double base_size, double interpolation_scale)
{
    double s = base_size > 0.0 ? base_size / (double)n : 1.0;
    return s / interpolation_scale;
}

/* d_model against its row, with the reason for its multiple (at argument position index). */
static int check_d_model(size_t d_model, int index)
{
    if (row_ok(&posenc_param_rows[POSENC_PARAM_D_MODEL_2D], (double)d_model))
        return POSENC_OK;
    return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_D_MODEL_2D, index, "d_model",
                             POSENC_RULE_MULTIPLE, (double)d_model, 4.0, POSENC_POSITION_MAX, NULL,
                             "a sine and a cosine for each of the two axes");
}

int posenc_sinusoidal_2d(float *out, size_t out_len, size_t height, size_t width, size_t d_model,
                         double base, int cls_token, double base_size, double interpolation_scale)
{
    size_t cells, rows, need;
    int status;
    if (!out)
        return fail_null(1, "out");
    base = param_or_default(POSENC_PARAM_BASE, base);
    interpolation_scale = param_or_default(POSENC_PARAM_INTERPOLATION_SCALE, interpolation_scale);
    if ((status = param_check(POSENC_PARAM_HEIGHT, 3, (double)height)) ||
        (status = param_check(POSENC_PARAM_WIDTH, 4, (double)width)) ||
        (status = check_d_model(d_model, 5)) || (status = param_check(POSENC_PARAM_BASE, 6, base)) ||
        (status = param_check(POSENC_PARAM_CLS_TOKEN, 7, cls_token)) ||
        (base_size != 0.0 && (status = param_check(POSENC_PARAM_BASE_SIZE, 8, base_size))) ||
        (status = param_check(POSENC_PARAM_INTERPOLATION_SCALE, 9, interpolation_scale)))
        return status;
    if (checked_mul(height, width, &cells) || __builtin_add_overflow(cells, (size_t)cls_token, &rows) ||
        checked_mul(rows, d_model, &need))
        return fail_size(3, "(height * width + cls_token) * d_model", saturated_mul(height, width), d_model);
    if (out_len < need)
        return fail_length(2, "out_len", out_len, need);
    if (need == 0)
        return POSENC_OK;

    double scale_x = 1.0, scale_y = 1.0;
    if (cells > 0) {
        scale_x = axis_scale(width, base_size, interpolation_scale);
        scale_y = axis_scale(height, base_size, interpolation_scale);
        /* the largest angle is the last coordinate times w_0 = 1 */
        if (!isfinite((double)(width - 1) * scale_x) || !isfinite((double)(height - 1) * scale_y))
            return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_INTERPOLATION_SCALE, 9,
                                     "interpolation_scale", POSENC_RULE_RESULT, interpolation_scale, 0.0, 0.0, NULL,
                                     base_size != 0.0 ? "makes the coordinates overflow: (width - 1) * base_size / "
                                                        "width / interpolation_scale, or height's, is not finite"
                                                      : "makes the coordinates overflow: (width - 1) / "
                                                        "interpolation_scale, or height's, is not finite");
    }

    /* MAE prepends the cls token's row of zeros */
    if (cls_token)
        memset(out, 0, d_model * sizeof *out);
    if (cells == 0)
        return POSENC_OK;
    float *grid = out + (cls_token ? d_model : 0);
    size_t q = d_model / 4, half = d_model / 2;
    double log_base = fmath_log(base);

    /* x part of the first grid row: patches (0, x), [sin(x w) | cos(x w)] */
    axis_freq fx = { log_base, (double)q, scale_x };
    trig_target tx = { grid, grid + q, d_model, 1, 0, 1, 0, 1.0f, 1.0 };
    trig_rows rx = { width, 0.0, 1, NULL };
    trig_fill(&tx, axis_freq_at, &fx, q, q, &rx);

    /* y part of the first grid column: patches (y, 0), [sin(y w) | cos(y w)] */
    axis_freq fy = { log_base, (double)q, scale_y };
    trig_target ty = { grid + half, grid + half + q, width * d_model, 1, 0, 1, 0, 1.0f, 1.0 };
    trig_rows ry = { height, 0.0, 1, NULL };
    trig_fill(&ty, axis_freq_at, &fy, q, q, &ry);

    /* every other patch copies its x part from (0, x) and its y part from (y, 0) */
    for (size_t y = 0; y < height; y++) {
        float *row = grid + y * width * d_model;
        for (size_t x = 0; x < width; x++, row += d_model) {
            if (y > 0)
                memcpy(row, grid + x * d_model, half * sizeof *row);
            if (x > 0)
                memcpy(row + half, grid + y * width * d_model + half, half * sizeof *row);
        }
    }
    return POSENC_OK;
}
