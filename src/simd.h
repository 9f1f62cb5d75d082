/*
 * simd.h: the one small SIMD interface of posenc's kernels, a pair of doubles.
 * With WASM SIMD (-msimd128) it maps to v128 instructions; otherwise a scalar
 * twin does the same IEEE operations lane by lane, so both builds give
 * bit-identical results (f64 mul/add/sub and the f64 -> f32 rounding are
 * exactly specified in both).
 */
#ifndef POSENC_SIMD_H
#define POSENC_SIMD_H

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>

typedef v128_t f64x2;

static inline f64x2 f64x2_load(const double *p) { return wasm_v128_load(p); }
static inline void f64x2_store(double *p, f64x2 v) { wasm_v128_store(p, v); }
static inline f64x2 f64x2_splat(double x) { return wasm_f64x2_splat(x); }
static inline f64x2 f64x2_add(f64x2 a, f64x2 b) { return wasm_f64x2_add(a, b); }
static inline f64x2 f64x2_sub(f64x2 a, f64x2 b) { return wasm_f64x2_sub(a, b); }
static inline f64x2 f64x2_mul(f64x2 a, f64x2 b) { return wasm_f64x2_mul(a, b); }

/* out[0..3] = (float) { s0, c0, s1, c1 } */
static inline void store_interleaved_f32(float *out, f64x2 s, f64x2 c)
{
    v128_t sf = wasm_f32x4_demote_f64x2_zero(s), cf = wasm_f32x4_demote_f64x2_zero(c);
    wasm_v128_store(out, wasm_i32x4_shuffle(sf, cf, 0, 4, 1, 5));
}

/* out[0..1] = (float) { v0, v1 } */
static inline void store_pair_f32(float *out, f64x2 v)
{
    wasm_v128_store64_lane(out, wasm_f32x4_demote_f64x2_zero(v), 0);
}

#else

typedef struct f64x2 { double lane[2]; } f64x2;

static inline f64x2 f64x2_load(const double *p) { return (f64x2){ { p[0], p[1] } }; }
static inline void f64x2_store(double *p, f64x2 v) { p[0] = v.lane[0], p[1] = v.lane[1]; }
static inline f64x2 f64x2_splat(double x) { return (f64x2){ { x, x } }; }
static inline f64x2 f64x2_add(f64x2 a, f64x2 b) { return (f64x2){ { a.lane[0] + b.lane[0], a.lane[1] + b.lane[1] } }; }
static inline f64x2 f64x2_sub(f64x2 a, f64x2 b) { return (f64x2){ { a.lane[0] - b.lane[0], a.lane[1] - b.lane[1] } }; }
static inline f64x2 f64x2_mul(f64x2 a, f64x2 b) { return (f64x2){ { a.lane[0] * b.lane[0], a.lane[1] * b.lane[1] } }; }

static inline void store_interleaved_f32(float *out, f64x2 s, f64x2 c)
{
    out[0] = (float)s.lane[0], out[1] = (float)c.lane[0];
    out[2] = (float)s.lane[1], out[3] = (float)c.lane[1];
}

static inline void store_pair_f32(float *out, f64x2 v)
{
    out[0] = (float)v.lane[0], out[1] = (float)v.lane[1];
}

#endif
#endif
