/* probes.c: the limits posenc's kernels are measured against (bench only, not
 * part of the library): a loop that only stores, and one that only reads and
 * writes, the same bytes a kernel produces. Built with the library's flags. */
#include <stddef.h>
#include <wasm_simd128.h>

__attribute__((used)) void probe_store(float *out, size_t n)
{
    v128_t v = wasm_f32x4_splat(0.5f);
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        wasm_v128_store(out + i, v);
    for (; i < n; i++)
        out[i] = 0.5f;
}

/* x *= factor: the caller passes 1, which the compiler cannot know. */
__attribute__((used)) void probe_read_write(float *x, size_t n, float factor)
{
    v128_t k = wasm_f32x4_splat(factor);
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        wasm_v128_store(x + i, wasm_f32x4_mul(wasm_v128_load(x + i), k));
    for (; i < n; i++)
        x[i] *= factor;
}

/* ------------------------------------------------------------------------
 * The breakdown probes (bench/breakdown.mjs): parts of the two zero-copy
 * kernels, each on its own. The kernels' own code (src/trig.c,
 * src/rope_rotate.c, ...) is linked in, so "the kernel on L1-resident data"
 * runs the very instructions of the kernel, only the addresses differ.
 * Nothing here can be deleted by the compiler: every result ends in memory
 * the caller reads, or is returned, and the factors come in at run time.
 */
#include <stdint.h>

#include "posenc.h"
#include "rope_rotate.h"
#include "simd.h"
#include "trig.h"

/* The clock: n times 16 steps of x = (x + a) ^ b, each step an i32 add and an
 * xor that depends on it (1 cycle each on x86-64: 2 cycles a step, 32 an
 * iteration; the loop's own counter runs beside the chain). */
__attribute__((used)) uint32_t probe_clock(uint32_t x, uint32_t a, uint32_t b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
#define STEP x = (x + a) ^ b;
        STEP STEP STEP STEP STEP STEP STEP STEP STEP STEP STEP STEP STEP STEP STEP STEP
#undef STEP
    }
    return x;
}

/* The same with a dependent f64 add per step (the latency of an f64 add). */
__attribute__((used)) double probe_clock_f64(double x, double a, size_t n)
{
    for (size_t i = 0; i < n; i++) {
#define STEP x = x + a;
        STEP STEP STEP STEP STEP STEP STEP STEP STEP STEP STEP STEP STEP STEP STEP STEP
#undef STEP
    }
    return x;
}

/* The table's recurrence alone: trig.c's tile loop (blocks of 128
 * frequencies, tiles of 8 rows, two f64x2 pairs stepped together), the same
 * multiplies and adds in the same order, no conversion and no store of a value.
 * state: s, c, step_c, step_s, n_freq doubles each (n_freq a multiple of 4);
 * the state is written back, as trig.c does after every tile. */
__attribute__((used)) void probe_recurrence(double *state, size_t rows, size_t n_freq)
{
    double *ss = state, *cc = state + n_freq, *scw = state + 2 * n_freq, *ssw = state + 3 * n_freq;
    for (size_t k0 = 0; k0 < n_freq; k0 += TRIG_BLOCK) {
        size_t k_end = n_freq - k0 < TRIG_BLOCK ? n_freq : k0 + TRIG_BLOCK;
        for (size_t r0 = 0; r0 < rows; r0 += 8) {
            size_t nr = rows - r0 < 8 ? rows - r0 : 8;
            for (size_t k = k0; k + 4 <= k_end; k += 4) {
                f64x2 s = f64x2_load(ss + k), c = f64x2_load(cc + k);
                f64x2 cw = f64x2_load(scw + k), sw = f64x2_load(ssw + k);
                f64x2 s2 = f64x2_load(ss + k + 2), c2 = f64x2_load(cc + k + 2);
                f64x2 cw2 = f64x2_load(scw + k + 2), sw2 = f64x2_load(ssw + k + 2);
                for (size_t r = 0; r < nr; r++) {
                    f64x2 s_next = f64x2_add(f64x2_mul(s, cw), f64x2_mul(c, sw));
                    c = f64x2_sub(f64x2_mul(c, cw), f64x2_mul(s, sw));
                    s = s_next;
                    f64x2 s2_next = f64x2_add(f64x2_mul(s2, cw2), f64x2_mul(c2, sw2));
                    c2 = f64x2_sub(f64x2_mul(c2, cw2), f64x2_mul(s2, sw2));
                    s2 = s2_next;
                }
                f64x2_store(ss + k, s), f64x2_store(cc + k, c);
                f64x2_store(ss + k + 2, s2), f64x2_store(cc + k + 2, c2);
            }
        }
    }
}

static double freq_of(const void *ctx, size_t i)
{
    return ((const double *)ctx)[i];
}

/* The table kernel itself (trig_fill, the interleaved fast path of
 * posenc_sinusoidal) with a row stride of 0: every row lands on the same
 * d floats, which stay in L1. Recurrence + anchors + float conversion +
 * stores, without the traffic of a large table. w: d / 2 frequencies. */
__attribute__((used)) void probe_table_l1(float *row, size_t rows, size_t d, const double *w)
{
    trig_target t = { row, row + 1, 0, 2, 0, 1, 0, 1.0f, 1.0 };
    trig_rows r = { rows, 0.0, 1, NULL };
    trig_fill(&t, freq_of, w, d / 2, d / 2, &r);
}

/* RoPE's loads and stores without its multiply-adds: rotate_half's loop
 * ('half' layout, [seq][heads][head_dim]) with a' = a ^ c and b' = b ^ s
 * (bitwise, one cycle, no floating point) in place of the rotation; c and s
 * one row of half floats (L1), as the kernel's row tile. */
__attribute__((used)) void probe_rope_memory(float *x, size_t seq, size_t heads, size_t head_dim,
                                             const float *c, const float *s)
{
    size_t half = head_dim / 2;
    for (size_t r = 0; r < seq; r++) {
        for (size_t h = 0; h < heads; h++) {
            float *a = x + (r * heads + h) * head_dim, *b = a + half;
            for (size_t k = 0; k + 4 <= half; k += 4) {
                v128_t c4 = wasm_v128_load(c + k), s4 = wasm_v128_load(s + k);
                wasm_v128_store(a + k, wasm_v128_xor(wasm_v128_load(a + k), c4));
                wasm_v128_store(b + k, wasm_v128_xor(wasm_v128_load(b + k), s4));
            }
        }
    }
}

/* RoPE's rotation kernel (rope_rotate, as posenc_rope_apply calls it
 * for a [seq][heads][head_dim] row) on seq rows that start row_stride floats
 * apart, every row by the same cos/sin row: row_stride 0 rotates one row
 * (heads * head_dim floats, in L1) seq times; heads * head_dim walks x. */
__attribute__((used)) void probe_rope_rotate(float *x, size_t seq, size_t row_stride, size_t heads,
                                             size_t head_dim, const float *c, const float *s)
{
    size_t half = head_dim / 2;
    for (size_t r = 0; r < seq; r++)
        rope_rotate(x + r * row_stride, heads, head_dim, half, 0, half, POSENC_ROPE_HALF, c, s, 0);
}

/* RoPE's cos/sin rows: the recurrence of posenc_rope_apply (one
 * trig_stream_row per position, n <= 128 pairs), into one L1 row. */
__attribute__((used)) void probe_rope_trig(float *c, float *s, const double *w, size_t n, size_t seq)
{
    trig_stream ts;
    trig_stream_start(&ts, w, n, 0.0);
    for (size_t r = 0; r < seq; r++)
        trig_stream_row(&ts, c, s, 1.0);
}

/* The table's stores alone, in the kernel's order: strips of `strip` floats
 * (trig.c: 2 * TRIG_BLOCK = 256), each strip down all the rows in tiles of 8
 * rows, 8 floats (two v128 stores) per row, then the next 8 floats. strip = d
 * writes whole rows (the same stores, the strips' loop inside the tiles'). */
__attribute__((used)) void probe_store_tiles(float *out, size_t rows, size_t d, size_t strip, float value)
{
    v128_t v = wasm_f32x4_splat(value);
    for (size_t j0 = 0; j0 < d; j0 += strip) {
        size_t j_end = d - j0 < strip ? d : j0 + strip;
        for (size_t r0 = 0; r0 < rows; r0 += 8) {
            size_t nr = rows - r0 < 8 ? rows - r0 : 8;
            for (size_t j = j0; j + 8 <= j_end; j += 8) {
                float *p = out + r0 * d + j;
                for (size_t r = 0; r < nr; r++, p += d) {
                    wasm_v128_store(p, v);
                    wasm_v128_store(p + 4, v);
                }
            }
        }
    }
}

/* probe_rope_rotate with the loops turned: each f32x4 of cos and sin loaded
 * once and applied to every head of the row (the same products, in the same
 * order, for every value), 'half' layout. */
__attribute__((used)) void probe_rope_rotate_kouter(float *x, size_t seq, size_t row_stride, size_t heads,
                                                    size_t head_dim, const float *c, const float *s)
{
    size_t half = head_dim / 2;
    for (size_t r = 0; r < seq; r++) {
        float *row = x + r * row_stride;
        for (size_t k = 0; k + 4 <= half; k += 4) {
            f32x4 c4 = f32x4_load(c + k), s4 = f32x4_load(s + k);
            for (size_t h = 0; h < heads; h++) {
                float *a = row + h * head_dim + k, *b = a + half;
                f32x4 a4 = f32x4_load(a), b4 = f32x4_load(b);
                f32x4_store(a, f32x4_sub(f32x4_mul(a4, c4), f32x4_mul(b4, s4)));
                f32x4_store(b, f32x4_add(f32x4_mul(b4, c4), f32x4_mul(a4, s4)));
            }
        }
    }
}

/* The wasm SIMD arithmetic peak (bench/encoder-ort.mjs): n times, 12
 * independent f32x4 chains of acc = acc * a + b, a mul and an add each (wasm
 * SIMD has no fused multiply-add): 12 * 8 = 96 flops an iteration, enough
 * chains in flight to cover the latency of both units, and few enough (12
 * accumulators + a and b) to stay in the 16 vector registers of x86-64.
 * a and b come in at run time (0.5 and 1: every chain tends to 2, no
 * overflow, no subnormals); the lanes' sum is returned so nothing is dropped. */
__attribute__((used)) float probe_f32x4_madd(float a, float b, size_t n)
{
    v128_t va = wasm_f32x4_splat(a), vb = wasm_f32x4_splat(b);
    v128_t c[12];
    for (int k = 0; k < 12; k++)
        c[k] = wasm_f32x4_splat((float)k);
    for (size_t i = 0; i < n; i++) {
#define CHAIN(k) c[k] = wasm_f32x4_add(wasm_f32x4_mul(c[k], va), vb);
        CHAIN(0) CHAIN(1) CHAIN(2) CHAIN(3) CHAIN(4) CHAIN(5)
        CHAIN(6) CHAIN(7) CHAIN(8) CHAIN(9) CHAIN(10) CHAIN(11)
#undef CHAIN
    }
    v128_t s = c[0];
    for (int k = 1; k < 12; k++)
        s = wasm_f32x4_add(s, c[k]);
    return wasm_f32x4_extract_lane(s, 0) + wasm_f32x4_extract_lane(s, 1) + wasm_f32x4_extract_lane(s, 2) +
           wasm_f32x4_extract_lane(s, 3);
}
