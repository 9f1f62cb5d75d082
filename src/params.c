/*
 * params.c: the parameter table of posenc.h (POSENC_PARAMETERS) as rows, its
 * checks, and the record of the last failure (posenc_last_error).
 */
#include "params.h"

#include <math.h>

const param_row posenc_param_rows[POSENC_PARAM_COUNT] = { POSENC_PARAMETERS(PARAM_ROW_) };

/* The one record posenc keeps: written by a failing call, read by
 * posenc_last_error; per thread, so that threads never see each other's. */
static _Thread_local posenc_error last;

const posenc_error *posenc_last_error(void)
{
    return &last;
}

void param_record(int status, int id, int index, const char *name, int rule, double value, double lo, double hi,
                  const char *other, const char *why)
{
    posenc_error e = { status, id, index, -1, rule, name, other, why, value, lo, hi };
    last = e;
}

int row_ok(const param_row *row, double value)
{
    if (!(value >= row->lo && value <= row->hi)) /* NaN fails here */
        return 0;
    switch (row->rule) {
    case POSENC_RULE_INTEGER:
    case POSENC_RULE_ENUM:
        return floor(value) == value;
    case POSENC_RULE_EVEN:
        return floor(value) == value && fmod(value, 2.0) == 0.0;
    case POSENC_RULE_MULTIPLE:
        return floor(value) == value && fmod(value, row->lo) == 0.0;
    case POSENC_RULE_ABOVE:
        return value > row->lo;
    case POSENC_RULE_FLAG:
        return value == 0.0 || value == 1.0;
    default: /* AT_LEAST: within the bounds */
        return 1;
    }
}

void param_record_element(size_t element)
{
    last.element = element < (size_t)INT32_MAX ? (int)element : INT32_MAX;
}

double param_or_default(int id, double value)
{
    return value == 0.0 ? posenc_param_rows[id].zero : value;
}

void param_record_index(int index)
{
    last.index = index;
}
