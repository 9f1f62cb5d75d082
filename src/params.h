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

/* Records the failure of parameter id (row: its row) at argument position
 * index, and returns POSENC_ERR_INVALID_ARGUMENT. */
int row_fail(const param_row *row, int id, int index, double value);

/* POSENC_OK when value satisfies the row, else row_fail. */
int row_check(const param_row *row, int id, int index, double value);

/* The same for posenc.h's parameters, by id. */
int param_check(int id, int index, double value);

/* param_check for element `element` of an array parameter (recorded). */
int param_check_element(int id, int index, size_t element, double value);
int param_fail(int id, int index, double value);

/* "Zero means default": value, or parameter id's default when value is 0. */
double param_or_default(int id, double value);

/*
 * Records any failure in full and returns status: a rule with bounds that
 * come from the call (other names the parameter a bound comes from), a
 * buffer (name, id POSENC_PARAM_NONE), or a result out of range (why says).
 */
int param_fail_detail(int status, int id, int index, const char *name, int rule, double value, double lo,
                      double hi, const char *other, const char *why);

/* Marks the record of the last failure as element `element` of its array
 * parameter; returns status. */
int param_element(int status, size_t element);

/* Moves the record of the last failure to argument position index (a check
 * made through another routine, on a field of the caller's struct argument);
 * returns status. */
int param_at(int status, int index);

/* A NULL pointer the call needs: POSENC_ERR_NULL_POINTER. */
int fail_null(int index, const char *name);

/* A buffer of length elements where need are required: POSENC_ERR_BUFFER_TOO_SMALL. */
int fail_length(int index, const char *name, size_t length, size_t need);

/* Two buffers that must not share memory: POSENC_ERR_INVALID_ARGUMENT. */
int fail_overlap(int index, const char *name, const char *other);

/* A size product a * b that does not fit size_t: POSENC_ERR_SIZE_OVERFLOW. */
int fail_size(int index, const char *name, size_t a, size_t b);

#endif
