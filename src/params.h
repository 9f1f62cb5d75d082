/*
 * params.h: how a routine checks a parameter against its row of the
 * parameter table (posenc.h, POSENC_PARAMETERS) and reports what it refuses
 * (posenc_last_error). Every error path of posenc's routines goes through
 * these, so that a caller always learns which parameter failed, its bound
 * and its value.
 */
#ifndef POSENC_PARAMS_H
#define POSENC_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include "posenc.h"

/* A row of a parameter table. */
typedef struct param_row {
    const char *name;
    int rule;
    double lo, hi, zero;
} param_row;

/* A row from a line of a table (posenc.h, POSENC_PARAMETERS). */
#define PARAM_ROW_(id, name, rule, lo, hi, zero) \
    { name, POSENC_RULE_##rule, (double)(lo), (double)(hi), (double)(zero) },

/* The rows of posenc.h's table, indexed by posenc_param. */
extern const param_row posenc_param_rows[POSENC_PARAM_COUNT];

/* Whether value satisfies the row's rule and bounds. */
int row_ok(const param_row *row, double value);

/* "Zero means default": value, or parameter id's default when value is 0. */
double param_or_default(int id, double value);

/*
 * The records (params.c). The helpers below are inline so that each returns
 * its status where the caller (and a static analyzer reading one file) can
 * see it: a failure is never taken for POSENC_OK.
 */
void param_record(int status, int id, int index, const char *name, int rule, double value, double lo, double hi,
                  const char *other, const char *why);
void param_record_element(size_t element);
void param_record_index(int index);
void param_record_row(int id, int index, double value);
void param_record_null(int index, const char *name);
void param_record_length(int index, const char *name, size_t length, size_t need);
void param_record_overlap(int index, const char *name, const char *other);
void param_record_size(int index, const char *name, size_t a, size_t b);

/*
 * Records any failure in full and returns status: a rule with bounds that
 * come from the call (other names the parameter a bound comes from), a
 * buffer (name, id POSENC_PARAM_NONE), or a result out of range (why says).
 */
static inline int param_fail_detail(int status, int id, int index, const char *name, int rule, double value,
                                    double lo, double hi, const char *other, const char *why)
{
    param_record(status, id, index, name, rule, value, lo, hi, other, why);
    return status;
}

/* Records the failure of parameter id (row: its row) at argument position
 * index, and returns POSENC_ERR_INVALID_ARGUMENT. */
static inline int row_fail(const param_row *row, int id, int index, double value)
{
    param_record(POSENC_ERR_INVALID_ARGUMENT, id, index, row->name, row->rule, value, row->lo, row->hi, NULL, NULL);
    return POSENC_ERR_INVALID_ARGUMENT;
}

/* POSENC_OK when value satisfies the row, else row_fail. */
int row_check(const param_row *row, int id, int index, double value);

/* The same for posenc.h's parameters, by id. */
static inline int param_fail(int id, int index, double value)
{
    param_record_row(id, index, value);
    return POSENC_ERR_INVALID_ARGUMENT;
}

int param_check(int id, int index, double value);

/* Marks the record of the last failure as element `element` of its array
 * parameter; returns status. */
static inline int param_element(int status, size_t element)
{
    param_record_element(element);
    return status;
}

/* param_check for element `element` of an array parameter (recorded). */
int param_check_element(int id, int index, size_t element, double value);

/* Moves the record of the last failure to argument position index (a check
 * made through another routine, on a field of the caller's struct argument);
 * returns status. */
static inline int param_at(int status, int index)
{
    param_record_index(index);
    return status;
}

/* A NULL pointer the call needs: POSENC_ERR_NULL_POINTER. */
static inline int fail_null(int index, const char *name)
{
    param_record_null(index, name);
    return POSENC_ERR_NULL_POINTER;
}

/* A buffer of length elements where need are required: POSENC_ERR_BUFFER_TOO_SMALL. */
static inline int fail_length(int index, const char *name, size_t length, size_t need)
{
    param_record_length(index, name, length, need);
    return POSENC_ERR_BUFFER_TOO_SMALL;
}

/* Two buffers that must not share memory: POSENC_ERR_INVALID_ARGUMENT. */
static inline int fail_overlap(int index, const char *name, const char *other)
{
    param_record_overlap(index, name, other);
    return POSENC_ERR_INVALID_ARGUMENT;
}

/* A size product a * b that does not fit size_t: POSENC_ERR_SIZE_OVERFLOW. */
static inline int fail_size(int index, const char *name, size_t a, size_t b)
{
    param_record_size(index, name, a, b);
    return POSENC_ERR_SIZE_OVERFLOW;
}

#endif
