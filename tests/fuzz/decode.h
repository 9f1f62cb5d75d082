/*
 * decode.h: what every libFuzzer target in tests/fuzz/ shares: a decoder that
 * turns the fuzz input into sizes, options and buffers (small values mostly,
 * then values near overflow and outside the documented ranges), buffers
 * allocated to exactly the element count the routine may touch (so ASan
 * reports any access past it), canaries, and the invariant checks.
 *
 * The buffer rule. A routine is told out_len; it may write `need` elements
 * when it succeeds and nothing when it fails. The target allocates
 * min(out_len, need) elements when the call may succeed, and
 * min(out_len, FUZZ_CAP) when it must fail (need overflows, or
 * out_len < need): a failing call that writes anything either changes the
 * canary or writes past the allocation, and both are findings. A call that
 * could succeed with need > FUZZ_CAP gets out_len = need - 1 instead, so the
 * work of one execution stays small.
 */
#ifndef POSENC_FUZZ_DECODE_H
#define POSENC_FUZZ_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "posenc_encoder.h"

/* Elements one buffer of one execution may really hold. */
#define FUZZ_CAP ((size_t)1 << 14)

typedef struct fuzz_in {
    const uint8_t *data;
    size_t size;
} fuzz_in;

/* A byte of the input; 0 once it is used up (so short inputs still decode). */
uint8_t take_u8(fuzz_in *in);
/* A count: small values mostly, then edges (2^31, 2^32, SIZE_MAX / 2 + 1, SIZE_MAX...). */
size_t take_size(fuzz_in *in);
/* A count bounded by what can be allocated (an input array's length). */
size_t take_small(fuzz_in *in);
/* An int32: small values mostly, then INT32_MIN, INT32_MAX and their neighbours, raw bits. */
int32_t take_i32(fuzz_in *in);
/* An enum or flag with n_valid values: mostly valid, sometimes -1, n_valid, INT_MIN, INT_MAX. */
int take_enum(fuzz_in *in, int n_valid);
/* A double parameter: typical values, 0, -0, NaN, +-inf, DBL_MAX, subnormals, raw bits. */
double take_double(fuzz_in *in);
/* A float parameter, the same kinds. */
float take_float(fuzz_in *in);
/* Array content: a finite float, |v| <= 512. */
float take_value(fuzz_in *in);
/* 1 with probability about 1/32: pass NULL for a required pointer. */
int take_null(fuzz_in *in);

/*
 * An encoder configuration, every field decoded (defaults, out-of-range
 * values). small: sizes that keep a forward pass fast (vocab, d_ff <= 16,
 * d_model <= 16, layers <= 2). inv_freq: FUZZ_CAP doubles for RoPE; a rotary
 * dimension it cannot serve gets NULL instead (an honest caller).
 */
void take_encoder_config(fuzz_in *in, posenc_encoder_config *c, const double *inv_freq, int small);

/* The query scale of an encoder config (posenc_query_scale and its four
 * parameters: defaults, typical and out-of-range values). */
void take_query_scale(fuzz_in *in, posenc_encoder_config *c);

/* The element count a routine is told, around `need` (need_ok = 0: need overflowed). */
size_t take_len(fuzz_in *in, size_t need, int need_ok);

/*
 * A buffer given to a routine: told `len` elements of `elem` bytes, `alloc`
 * of them real. It starts filled with the canary byte (or with values, for
 * in/out arrays, then snapshot) and keeps a copy to compare with.
 */
typedef struct fuzz_buf {
    unsigned char *p;
    size_t len, alloc, elem;
    unsigned char *before;
} fuzz_buf;

/*
 * Sizes a buffer by the rule above and returns whether the call must fail.
 * need_ok = 0 when need overflowed. *len may be lowered (to need - 1).
 */
int fuzz_plan(size_t *len, size_t need, int need_ok);
/* Allocates min(len, limit) elements filled with the canary; snapshot taken. */
void buf_new(fuzz_buf *b, size_t len, size_t limit, size_t elem);
/* Allocates like buf_new, fills floats with take_value, then snapshots. */
void buf_new_values(fuzz_buf *b, size_t len, size_t limit, fuzz_in *in);
/* Re-takes the snapshot (after filling by hand). */
void buf_snapshot(fuzz_buf *b);
int buf_unchanged(const fuzz_buf *b);
void buf_free(fuzz_buf *b);

/* Whether two floats have the same bits (-0 is not 0, a NaN is itself). */
int same_bits(float a, float b);

/* need = a * b (* c), returning 0 on overflow (a zero factor: 0, never an overflow). */
int mul2(size_t a, size_t b, size_t *need);
int mul3(size_t a, size_t b, size_t c, size_t *need);

/* The status is one of posenc_status's codes and posenc_strerror names it. */
void check_status(int status);

/* The entry point libFuzzer calls, one per target file. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

_Noreturn void fuzz_fail(const char *file, int line, const char *what);
#define FUZZ_ASSERT(cond) ((cond) ? (void)0 : fuzz_fail(__FILE__, __LINE__, #cond))

/*
 * An overlap case, about one call in eight: copies the n elements (elem bytes
 * each) at src to the end of `host` (aligned to elem: host may hold another
 * type), a buffer the routine writes, snapshots
 * host and sets *aliased; returns the copy, which the caller passes instead of
 * src. The routine reads src after writing host, so it must refuse the call
 * (POSENC_ERR_INVALID_ARGUMENT, or an earlier error) and leave host as it was.
 * Otherwise (or when host cannot hold the copy) returns src.
 */
void *fuzz_alias(fuzz_in *in, fuzz_buf *host, void *src, size_t n, size_t elem, int *aliased);

#endif
