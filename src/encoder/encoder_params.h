/* encoder_params.h: the encoder's parameter table (posenc_encoder.h,
 * POSENC_ENCODER_PARAMETERS), checked as posenc.h's (src/params.h). */
#ifndef POSENC_ENCODER_PARAMS_H
#define POSENC_ENCODER_PARAMS_H

#include "params.h"
#include "posenc_encoder.h"

/* The row of any parameter id: posenc.h's, or the encoder's. */
const param_row *encoder_param_row(int id);

/* POSENC_OK when value satisfies parameter id's row, else its failure
 * recorded (posenc_last_error) and POSENC_ERR_INVALID_ARGUMENT. */
int encoder_check(int id, int index, double value);
int encoder_fail(int id, int index, double value);

/* "Zero means default": value, or parameter id's default when value is 0. */
double encoder_or_default(int id, double value);

#endif
