/*
 * position_range.h: the check that a run of rows starting at an offset stays
 * within int32 positions (posenc.h: positions are int32), recorded against
 * the offset's row of the parameter table with the bound the rows leave it.
 */
#ifndef POSENC_POSITION_RANGE_H
#define POSENC_POSITION_RANGE_H

#include <stddef.h>
#include <stdint.h>

#include "params.h"

/*
 * POSENC_OK when offset + rows - 1 <= POSENC_POSITION_MAX (or rows = 0); else
 * parameter id (the offset, at argument position index) fails as an integer
 * from its row's lo to POSENC_POSITION_MAX - (rows - 1), `why` naming the sum.
 * rows must already satisfy its own row (at most 2^31), so that this bound
 * is at least 0.
 */
static inline int check_last_position(size_t rows, int32_t offset, int id, int index, const char *why)
{
    if (rows > 0 && (uint64_t)(rows - 1) > (uint64_t)(POSENC_POSITION_MAX - (int64_t)offset))
        return param_fail_detail(POSENC_ERR_INVALID_ARGUMENT, id, index, posenc_param_rows[id].name,
                                 POSENC_RULE_INTEGER, offset, posenc_param_rows[id].lo,
                                 (double)POSENC_POSITION_MAX - (double)(rows - 1), NULL, why);
    return POSENC_OK;
}

#endif
