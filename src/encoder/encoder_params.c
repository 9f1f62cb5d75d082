/* encoder_params.c: the rows of the encoder's parameter table (posenc_encoder.h). */
#include "encoder_params.h"

static const param_row rows[POSENC_ENCODER_PARAM_END - POSENC_PARAM_COUNT] = {
    POSENC_ENCODER_PARAMETERS(PARAM_ROW_)
};

const param_row *encoder_param_row(int id)
{
    return id < POSENC_PARAM_COUNT ? &posenc_param_rows[id] : &rows[id - POSENC_PARAM_COUNT];
}

int encoder_check(int id, int index, double value)
{
    return row_check(encoder_param_row(id), id, index, value);
}

int encoder_fail(int id, int index, double value)
{
    return row_fail(encoder_param_row(id), id, index, value);
}

double encoder_or_default(int id, double value)
{
    return value == 0.0 ? encoder_param_row(id)->zero : value;
}
