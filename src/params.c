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

int row_check(const param_row *row, int id, int index, double value)
{
    return row_ok(row, value) ? POSENC_OK : row_fail(row, id, index, value);
}

int param_check(int id, int index, double value)
{
    return row_ok(&posenc_param_rows[id], value) ? POSENC_OK : param_fail(id, index, value);
}

int param_check_element(int id, int index, size_t element, double value)
{
    int status = param_check(id, index, value);
    return status ? param_element(status, element) : POSENC_OK;
}

void param_record_row(int id, int index, double value)
{
    const param_row *row = &posenc_param_rows[id];
    param_record(POSENC_ERR_INVALID_ARGUMENT, id, index, row->name, row->rule, value, row->lo, row->hi, NULL, NULL);
}

void param_record_null(int index, const char *name)
{
    param_record(POSENC_ERR_NULL_POINTER, POSENC_PARAM_NONE, index, name, POSENC_RULE_NOT_NULL, 0.0, 0.0, 0.0, NULL,
                 NULL);
}

void param_record_length(int index, const char *name, size_t length, size_t need)
{
    param_record(POSENC_ERR_BUFFER_TOO_SMALL, POSENC_PARAM_NONE, index, name, POSENC_RULE_LENGTH, (double)length,
                 (double)need, (double)need, NULL, NULL);
}

void param_record_overlap(int index, const char *name, const char *other)
{
    param_record(POSENC_ERR_INVALID_ARGUMENT, POSENC_PARAM_NONE, index, name, POSENC_RULE_DISJOINT, 0.0, 0.0, 0.0,
                 other, NULL);
}

void param_record_size(int index, const char *name, size_t a, size_t b)
{
    param_record(POSENC_ERR_SIZE_OVERFLOW, POSENC_PARAM_NONE, index, name, POSENC_RULE_SIZE, (double)a, (double)b,
                 (double)SIZE_MAX, NULL, NULL);
}
