/* test_aliasing.c: an output that shares memory with an input the routine
 * still reads after its first write (or with another output) is refused with
 * POSENC_ERR_INVALID_ARGUMENT, and nothing is written. Every refused case
 * but permute_weights' was accepted before, and computed from inputs its own
 * output had already overwritten (positions, frequencies, factors, bias
 * weights). Buffers that only touch, and empty ranges, are not overlaps. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rope_calls.h"
#include "posenc.h"

/* One allocation that every buffer of a case is carved from, so that the
 * cases can place an output over an input at any byte offset. */
enum { ARENA_BYTES = 1024 };
static unsigned char *arena, *before;

/* Fills the arena with values every routine accepts as input: the bytes
 * 0x3F repeated read as doubles 0.498..., floats 0.748..., int32 positions
 * 1061109567: finite, in range, positive. */
static void arena_reset(void)
{
    memset(arena, 0x3F, ARENA_BYTES);
    memcpy(before, arena, ARENA_BYTES);
}

static int arena_unchanged(void)
{
    return memcmp(arena, before, ARENA_BYTES) == 0;
}

#define AT(type, byte) ((type *)(void *)(arena + (byte)))

static const double inv_freq[2] = { 1.0, 0.01 };

/* x [1][4][1][4] with its four positions, inverse frequencies inside x, or
 * placed just past it. */
static void test_rope_apply(void)
{
    arena_reset();
    CHECK(rope_apply_with(AT(float, 0), 16, 1, 4, 1, 4, 4, POSENC_ROPE_HALF, inv_freq, 1.0, 0,
                            AT(int32_t, 32), 4, POSENC_ROPE_PRECISION_FLOAT64) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(rope_apply_with(AT(float, 16), 16, 1, 4, 1, 4, 4, POSENC_ROPE_HALF, inv_freq, 1.0, 0,
                            AT(int32_t, 4), 4, POSENC_ROPE_PRECISION_FLOAT32) == POSENC_ERR_INVALID_ARGUMENT);
    /* the last position shares its 4 bytes with x[0] */
    CHECK(rope_apply_with(AT(float, 12), 16, 1, 4, 1, 4, 4, POSENC_ROPE_HALF, inv_freq, 1.0, 0,
                            AT(int32_t, 0), 4, POSENC_ROPE_PRECISION_FLOAT64) == POSENC_ERR_INVALID_ARGUMENT);
    /* per batch and row: 2 x 4 positions, x of the second batch over them */
    CHECK(rope_apply_with(AT(float, 0), 32, 2, 4, 1, 4, 4, POSENC_ROPE_INTERLEAVED, inv_freq, 1.0, 0,
                            AT(int32_t, 96), 8, POSENC_ROPE_PRECISION_FLOAT64) == POSENC_ERR_INVALID_ARGUMENT);
    /* inv_freq[1] inside x */
    CHECK(rope_apply_with(AT(float, 8), 16, 1, 4, 1, 4, 4, POSENC_ROPE_HALF, AT(double, 0), 1.0, 3, NULL, 0,
                            POSENC_ROPE_PRECISION_FLOAT64) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(rope_apply_with(AT(float, 0), 16, 1, 4, 1, 4, 4, POSENC_ROPE_HALF, AT(double, 56), 1.0, 3, NULL, 0,
                            POSENC_ROPE_PRECISION_FLOAT32) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(arena_unchanged());
    /* touching, not overlapping: positions and inv_freq right after x, or right before it */
    CHECK(rope_apply_with(AT(float, 0), 16, 1, 4, 1, 4, 4, POSENC_ROPE_HALF, AT(double, 80), 1.0, 0,
                            AT(int32_t, 64), 4, POSENC_ROPE_PRECISION_FLOAT64) == POSENC_OK);
    CHECK(rope_apply_with(AT(float, 32), 16, 1, 4, 1, 4, 4, POSENC_ROPE_HALF, AT(double, 16), 1.0, 0,
                            AT(int32_t, 0), 4, POSENC_ROPE_PRECISION_FLOAT64) == POSENC_OK);
}

/* cos and sin [4][1] with four positions and one frequency. */
static void test_rope_cache(void)
{
    arena_reset();
    float *spare = AT(float, 512);
    CHECK(rope_cache_with(AT(float, 0), spare, 4, 4, 0, AT(int32_t, 8), 2, inv_freq, 1.0,
                            POSENC_ROPE_PRECISION_FLOAT64) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(rope_cache_with(spare, AT(float, 0), 4, 4, 0, AT(int32_t, 12), 2, inv_freq, 1.0,
                            POSENC_ROPE_PRECISION_FLOAT32) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(rope_cache_with(AT(float, 8), spare, 4, 4, 0, AT(int32_t, 0), 2, inv_freq, 1.0,
                            POSENC_ROPE_PRECISION_FLOAT64) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(rope_cache_with(AT(float, 0), spare, 4, 4, 0, NULL, 2, AT(double, 8), 1.0,
                            POSENC_ROPE_PRECISION_FLOAT64) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(rope_cache_with(spare, AT(float, 4), 4, 4, 0, NULL, 2, AT(double, 0), 1.0,
                            POSENC_ROPE_PRECISION_FLOAT32) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(arena_unchanged());
    /* touching: positions at [16, 32), cos at [0, 16), sin at [32, 48), inv_freq at [48, 56) */
    CHECK(rope_cache_with(AT(float, 0), AT(float, 32), 4, 4, 0, AT(int32_t, 16), 2, AT(double, 48), 1.0,
                            POSENC_ROPE_PRECISION_FLOAT64) == POSENC_OK);
    /* no row: an empty output overlaps nothing */
    arena_reset();
    CHECK(rope_cache_with(AT(float, 0), AT(float, 64), 0, 0, 0, AT(int32_t, 0), 2, AT(double, 0), 1.0,
                            POSENC_ROPE_PRECISION_FLOAT64) == POSENC_OK);
    CHECK(arena_unchanged());
}

/* LongRoPE reads the factor list in use while it writes inv_freq; the
 * attention factor is written last, after every read. */
static void test_rope_frequencies(void)
{
    posenc_rope_scaling longrope = { 0 };
    longrope.type = POSENC_ROPE_LONGROPE;
    longrope.factor = 4;
    longrope.original_max_position_embeddings = 4096;
    longrope.factors_len = 4;
    double spare[4], attention = 0;

    arena_reset();
    longrope.short_factor = AT(double, 16); /* seq_len 0: the short factors are in use */
    longrope.long_factor = AT(double, 256);
    CHECK(rope_freqs(AT(double, 0), 4, 8, 0, &longrope, 0, &attention) ==
          POSENC_ERR_INVALID_ARGUMENT);
    CHECK(rope_freqs(AT(double, 280), 4, 8, 0, &longrope, 8192, &attention) ==
          POSENC_ERR_INVALID_ARGUMENT);
    /* the list not in use overlaps: refused too (both lists are inputs) */
    CHECK(rope_freqs(AT(double, 248), 4, 8, 0, &longrope, 0, &attention) ==
          POSENC_ERR_INVALID_ARGUMENT);
    /* the attention factor over inv_freq: two outputs in one place */
    CHECK(rope_freqs(AT(double, 512), 4, 8, 0, NULL, 0, AT(double, 536)) ==
          POSENC_ERR_INVALID_ARGUMENT);
    CHECK(attention == 0 && arena_unchanged());

    /* allowed: touching lists; the attention factor over a factor list (written
     * after the last read); a type that ignores the factor lists */
    CHECK(rope_freqs(AT(double, 48), 4, 8, 0, &longrope, 0, &attention) == POSENC_OK);
    CHECK(rope_freqs(spare, 4, 8, 0, &longrope, 0, AT(double, 16)) == POSENC_OK);
    longrope.type = POSENC_ROPE_DEFAULT;
    CHECK(rope_freqs(AT(double, 16), 4, 8, 0, &longrope, 0, &attention) == POSENC_OK &&
          attention == 1.0);
}

/* t5_bias gathers weights[bucket][h] for every cell it writes. */
static void test_t5_bias(void)
{
    arena_reset();
    /* 32 buckets x 1 head = 128 bytes of weights, out [1][3][3] = 36 bytes */
    CHECK(posenc_t5_bias(AT(float, 100), 9, AT(float, 0), 32, 1, 3, 3, 1, 32, 128, 0) ==
          POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_t5_bias(AT(float, 0), 9, AT(float, 32), 32, 1, 3, 3, 1, 32, 128, 0) ==
          POSENC_ERR_INVALID_ARGUMENT);
    CHECK(arena_unchanged());
    CHECK(posenc_t5_bias(AT(float, 128), 9, AT(float, 0), 32, 1, 3, 3, 1, 32, 128, 0) == POSENC_OK);
}

/* A permutation reads rows it has not yet written: it never ran in place. */
static void test_rope_permute_weights(void)
{
    arena_reset();
    CHECK(posenc_rope_permute_weights(AT(float, 60), 16, AT(float, 0), 16, 1, 4, 4, 4, POSENC_ROPE_INTERLEAVED,
                                      POSENC_ROPE_HALF) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(arena_unchanged());
    CHECK(posenc_rope_permute_weights(AT(float, 64), 16, AT(float, 0), 16, 1, 4, 4, 4, POSENC_ROPE_INTERLEAVED,
                                      POSENC_ROPE_HALF) == POSENC_OK);
}

void test_aliasing(void)
{
    arena = malloc(ARENA_BYTES);
    before = malloc(ARENA_BYTES);
    if (!arena || !before) {
        CHECK(!"allocation");
        return;
    }
    test_rope_apply();
    test_rope_cache();
    test_rope_frequencies();
    test_t5_bias();
    test_rope_permute_weights();
    free(arena);
    free(before);
}
