/* checked.h: size arithmetic that reports overflow instead of wrapping, and
 * the aliasing check of routines that cannot run in place.
 * wasm32 has a 32-bit size_t, so length * d_model overflows at 4 G elements. */
#ifndef POSENC_CHECKED_H
#define POSENC_CHECKED_H

#include <stddef.h>
#include <stdint.h>

#include "params.h"
#include "posenc.h"

/* *out = a * b; returns 1 on overflow (and leaves *out unspecified). */
static inline int checked_mul(size_t a, size_t b, size_t *out)
{
    return __builtin_mul_overflow(a, b, out);
}

/* *acc += a * b; returns 1 on overflow: a workspace or parameter count summed
 * part by part. */
static inline int checked_add_mul(size_t *acc, size_t a, size_t b)
{
    size_t p;
    return checked_mul(a, b, &p) || __builtin_add_overflow(*acc, p, acc);
}

/* *out = a * b * c; returns 1 on overflow. A zero factor makes the product 0
 * even when a * b alone would overflow (an empty [heads][0][keys] bias). */
static inline int checked_mul3(size_t a, size_t b, size_t c, size_t *out)
{
    size_t ab;
    if (a == 0 || b == 0 || c == 0) {
        *out = 0;
        return 0;
    }
    return __builtin_mul_overflow(a, b, &ab) || __builtin_mul_overflow(ab, c, out);
}

/* a * b, SIZE_MAX when it overflows: a factor of a size product that failed,
 * as posenc_last_error reports it (fail_size), never a size used. */
static inline size_t saturated_mul(size_t a, size_t b)
{
    size_t p;
    return __builtin_mul_overflow(a, b, &p) ? SIZE_MAX : p;
}

/* The status of an out buffer of out_len elements for a [query_len][key_len]
 * result, and *need = query_len * key_len: the check every [query][key]
 * routine makes, whose arguments start (out, out_len, query_len, key_len)
 * (the positions its failures are recorded at, posenc_last_error). */
static inline int check_out_len(size_t out_len, size_t query_len, size_t key_len, size_t *need)
{
    if (checked_mul(query_len, key_len, need))
        return fail_size(3, "query_len * key_len", query_len, key_len);
    return out_len < *need ? fail_length(2, "out_len", out_len, *need) : POSENC_OK;
}

/*
 * Whether the byte ranges [a, a + a_bytes) and [b, b + b_bytes) share a byte.
 * Empty ranges and NULL never overlap. Written with the distance between the
 * starts, so no end address is formed and nothing wraps; a saturated size
 * (posenc_bytes) covers the rest of the address space. Routines that read an
 * input after writing an output refuse an output that overlaps it
 * (POSENC_ERR_INVALID_ARGUMENT): the input would no longer be what the caller
 * passed, and what was checked.
 */
static inline int posenc_overlaps(const void *a, size_t a_bytes, const void *b, size_t b_bytes)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    if (!a || !b || a_bytes == 0 || b_bytes == 0)
        return 0;
    return x <= y ? y - x < a_bytes : x - y < b_bytes;
}

/* n elements of `size` bytes, saturated at SIZE_MAX (for posenc_overlaps). */
static inline size_t posenc_bytes(size_t n, size_t size)
{
    size_t bytes;
    return __builtin_mul_overflow(n, size, &bytes) ? SIZE_MAX : bytes;
}

#endif
