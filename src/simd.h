/*
 * simd.h: the one small SIMD interface of posenc's kernels: a pair of doubles
 * (f64x2) and four floats (f32x4).
 * With WASM SIMD (-msimd128) it maps to v128 instructions; otherwise a scalar
 * twin does the same IEEE operations lane by lane, so both builds give
 * bit-identical results (f64 mul/add/sub and the f64 -> f32 rounding are
 * exactly specified in both; so are the f32 division, the comparisons and
 * selections, |x|, and the integer lane operations on a float's bits).
 */
#ifndef POSENC_SIMD_H
#define POSENC_SIMD_H

#include <stdint.h>
#include <string.h>

/*
 * 16-bit weights (posenc_encoder.h, posenc_weight_format) widened to float32
 * exactly, in both builds. F16: the exponent and fraction shifted into a
 * float's place read 2^-112 times the value (the biases 15 and 127 differ by
 * 112, and a subnormal half lands on a subnormal float in the same ratio), so
 * one multiply by 2^112 restores it; an exponent of 31 (Inf, NaN) is not
 * read as such. BF16: the upper half of a float. The halves are read
 * through memcpy: they live in a float buffer.
 */
static inline float f16_to_f32(uint16_t h)
{
    uint32_t bits = ((uint32_t)(h & 0x8000u) << 16) | ((uint32_t)(h & 0x7fffu) << 13);
    float f;
    memcpy(&f, &bits, sizeof f);
    return f * 0x1p112f;
}

static inline float bf16_to_f32(uint16_t h)
{
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* Half i of the halves at p. */
static inline uint16_t half_at(const void *p, size_t i)
{
    uint16_t h;
    memcpy(&h, (const unsigned char *)p + 2 * i, sizeof h);
    return h;
}

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

typedef v128_t f32x4;

static inline f32x4 f32x4_load(const float *p) { return wasm_v128_load(p); }
static inline void f32x4_store(float *p, f32x4 v) { wasm_v128_store(p, v); }
static inline f32x4 f32x4_make(float a, float b, float c, float d) { return wasm_f32x4_make(a, b, c, d); }
static inline f32x4 f32x4_add(f32x4 a, f32x4 b) { return wasm_f32x4_add(a, b); }
static inline f32x4 f32x4_sub(f32x4 a, f32x4 b) { return wasm_f32x4_sub(a, b); }
static inline f32x4 f32x4_mul(f32x4 a, f32x4 b) { return wasm_f32x4_mul(a, b); }
/* { v1, v0, v3, v2 } */
static inline f32x4 f32x4_swap_pairs(f32x4 v) { return wasm_i32x4_shuffle(v, v, 1, 0, 3, 2); }
static inline f32x4 f32x4_splat(float x) { return wasm_f32x4_splat(x); }
/* (v0 + v1) + (v2 + v3): the one order of a horizontal sum, in both builds */
static inline float f32x4_sum(f32x4 v)
{
    return (wasm_f32x4_extract_lane(v, 0) + wasm_f32x4_extract_lane(v, 1)) +
           (wasm_f32x4_extract_lane(v, 2) + wasm_f32x4_extract_lane(v, 3));
}
/* { sum(a), sum(b), sum(c), sum(d) }, each (v0 + v1) + (v2 + v3) as f32x4_sum */
static inline f32x4 f32x4_sum4(f32x4 a, f32x4 b, f32x4 c, f32x4 d)
{
    f32x4 ab = wasm_f32x4_add(wasm_i32x4_shuffle(a, b, 0, 2, 4, 6), wasm_i32x4_shuffle(a, b, 1, 3, 5, 7));
    f32x4 cd = wasm_f32x4_add(wasm_i32x4_shuffle(c, d, 0, 2, 4, 6), wasm_i32x4_shuffle(c, d, 1, 3, 5, 7));
    /* ab = { a0+a1, a2+a3, b0+b1, b2+b3 }, cd likewise */
    return wasm_f32x4_add(wasm_i32x4_shuffle(ab, cd, 0, 2, 4, 6), wasm_i32x4_shuffle(ab, cd, 1, 3, 5, 7));
}
static inline f32x4 f32x4_div(f32x4 a, f32x4 b) { return wasm_f32x4_div(a, b); }
/* |v|: the sign bit cleared */
static inline f32x4 f32x4_abs(f32x4 v) { return wasm_f32x4_abs(v); }

/* Lane masks (all ones or all zeros) and 32-bit integer lanes. */
typedef v128_t u32x4;
static inline u32x4 f32x4_lt(f32x4 a, f32x4 b) { return wasm_f32x4_lt(a, b); }
static inline u32x4 f32x4_gt(f32x4 a, f32x4 b) { return wasm_f32x4_gt(a, b); }
static inline u32x4 f32x4_ge(f32x4 a, f32x4 b) { return wasm_f32x4_ge(a, b); }
/* mask ? a : b, lane by lane */
static inline f32x4 f32x4_select(u32x4 mask, f32x4 a, f32x4 b) { return wasm_v128_bitselect(a, b, mask); }
/* mask ? +0 : a, lane by lane (one andnot) */
static inline f32x4 f32x4_zero_where(u32x4 mask, f32x4 a) { return wasm_v128_andnot(a, mask); }
static inline u32x4 f32x4_bits(f32x4 v) { return v; }
static inline f32x4 f32x4_from_bits(u32x4 v) { return v; }
static inline u32x4 u32x4_add(u32x4 a, u32x4 b) { return wasm_i32x4_add(a, b); }
static inline u32x4 u32x4_load(const void *p) { return wasm_v128_load(p); }
/* lanes equal to 0 */
static inline u32x4 u32x4_eqz(u32x4 a) { return wasm_i32x4_eq(a, wasm_i32x4_splat(0)); }
static inline u32x4 u32x4_shl(u32x4 a, int n) { return wasm_i32x4_shl(a, n); }

/* Lanes 0, 1 and lanes 2, 3 as doubles; four floats back from two pairs. */
static inline f64x2 f64x2_from_f32x4_low(f32x4 v) { return wasm_f64x2_promote_low_f32x4(v); }
static inline f64x2 f64x2_from_f32x4_high(f32x4 v)
{
    return wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(v, v, 2, 3, 2, 3));
}
static inline f32x4 f32x4_from_f64x2(f64x2 lo, f64x2 hi)
{
    return wasm_i32x4_shuffle(wasm_f32x4_demote_f64x2_zero(lo), wasm_f32x4_demote_f64x2_zero(hi), 0, 1, 4, 5);
}
/* lane 0 + lane 1 */
static inline double f64x2_sum(f64x2 v) { return wasm_f64x2_extract_lane(v, 0) + wasm_f64x2_extract_lane(v, 1); }

/* Four F16 at p widened (f16_to_f32): sign-extended, so that h << 13 has the
 * sign in bit 31 and copies of it in bits 28 to 30, which the mask clears. */
static inline f32x4 f32x4_widen_f16(v128_t h)
{
    v128_t bits = wasm_v128_and(wasm_i32x4_shl(h, 13), wasm_i32x4_splat((int32_t)0x8fffe000u));
    return wasm_f32x4_mul(bits, wasm_f32x4_splat(0x1p112f));
}
static inline f32x4 f32x4_load_f16(const void *p) { return f32x4_widen_f16(wasm_i32x4_load16x4(p)); }
/* Eight F16 at p: lo the first four, hi the next. */
static inline void f32x4_load8_f16(const void *p, f32x4 *lo, f32x4 *hi)
{
    v128_t v = wasm_v128_load(p);
    *lo = f32x4_widen_f16(wasm_i32x4_extend_low_i16x8(v));
    *hi = f32x4_widen_f16(wasm_i32x4_extend_high_i16x8(v));
}
/* Four and eight BF16: each half above a zero half (a shuffle). */
static inline f32x4 f32x4_load_bf16(const void *p)
{
    return wasm_i16x8_shuffle(wasm_i32x4_splat(0), wasm_v128_load64_zero(p), 0, 8, 1, 9, 2, 10, 3, 11);
}
static inline void f32x4_load8_bf16(const void *p, f32x4 *lo, f32x4 *hi)
{
    v128_t v = wasm_v128_load(p), z = wasm_i32x4_splat(0);
    *lo = wasm_i16x8_shuffle(z, v, 0, 8, 1, 9, 2, 10, 3, 11);
    *hi = wasm_i16x8_shuffle(z, v, 4, 12, 5, 13, 6, 14, 7, 15);
}

#else

#include <math.h>

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

typedef struct f32x4 { float lane[4]; } f32x4;

static inline f32x4 f32x4_load(const float *p) { return (f32x4){ { p[0], p[1], p[2], p[3] } }; }
static inline void f32x4_store(float *p, f32x4 v)
{
    p[0] = v.lane[0], p[1] = v.lane[1], p[2] = v.lane[2], p[3] = v.lane[3];
}
static inline f32x4 f32x4_make(float a, float b, float c, float d) { return (f32x4){ { a, b, c, d } }; }
#define F32X4_OP(name, op)                                                                   \
    static inline f32x4 name(f32x4 a, f32x4 b)                                               \
    {                                                                                        \
        return (f32x4){ { a.lane[0] op b.lane[0], a.lane[1] op b.lane[1], a.lane[2] op b.lane[2], \
                          a.lane[3] op b.lane[3] } };                                        \
    }
F32X4_OP(f32x4_add, +)
F32X4_OP(f32x4_sub, -)
F32X4_OP(f32x4_mul, *)
static inline f32x4 f32x4_swap_pairs(f32x4 v) { return (f32x4){ { v.lane[1], v.lane[0], v.lane[3], v.lane[2] } }; }
static inline f32x4 f32x4_splat(float x) { return (f32x4){ { x, x, x, x } }; }
static inline float f32x4_sum(f32x4 v) { return (v.lane[0] + v.lane[1]) + (v.lane[2] + v.lane[3]); }
static inline f32x4 f32x4_sum4(f32x4 a, f32x4 b, f32x4 c, f32x4 d)
{
    return (f32x4){ { f32x4_sum(a), f32x4_sum(b), f32x4_sum(c), f32x4_sum(d) } };
}
F32X4_OP(f32x4_div, /)
#undef F32X4_OP
static inline f32x4 f32x4_abs(f32x4 v)
{
    return (f32x4){ { fabsf(v.lane[0]), fabsf(v.lane[1]), fabsf(v.lane[2]), fabsf(v.lane[3]) } };
}

typedef struct u32x4 { uint32_t lane[4]; } u32x4;
static inline u32x4 f32x4_lt(f32x4 a, f32x4 b)
{
    u32x4 m;
    for (int i = 0; i < 4; i++)
        m.lane[i] = a.lane[i] < b.lane[i] ? 0xffffffffu : 0u;
    return m;
}
static inline u32x4 f32x4_gt(f32x4 a, f32x4 b) { return f32x4_lt(b, a); }
static inline u32x4 f32x4_ge(f32x4 a, f32x4 b)
{
    u32x4 m;
    for (int i = 0; i < 4; i++)
        m.lane[i] = a.lane[i] >= b.lane[i] ? 0xffffffffu : 0u;
    return m;
}
static inline u32x4 f32x4_bits(f32x4 v)
{
    u32x4 u;
    memcpy(u.lane, v.lane, sizeof u.lane);
    return u;
}
static inline f32x4 f32x4_from_bits(u32x4 u)
{
    f32x4 v;
    memcpy(v.lane, u.lane, sizeof v.lane);
    return v;
}
static inline f32x4 f32x4_select(u32x4 mask, f32x4 a, f32x4 b)
{
    u32x4 x = f32x4_bits(a), y = f32x4_bits(b), r;
    for (int i = 0; i < 4; i++)
        r.lane[i] = (x.lane[i] & mask.lane[i]) | (y.lane[i] & ~mask.lane[i]);
    return f32x4_from_bits(r);
}
static inline f32x4 f32x4_zero_where(u32x4 mask, f32x4 a)
{
    u32x4 x = f32x4_bits(a);
    for (int i = 0; i < 4; i++)
        x.lane[i] &= ~mask.lane[i];
    return f32x4_from_bits(x);
}
static inline u32x4 u32x4_add(u32x4 a, u32x4 b)
{
    for (int i = 0; i < 4; i++)
        a.lane[i] += b.lane[i];
    return a;
}
static inline u32x4 u32x4_load(const void *p)
{
    u32x4 u;
    memcpy(u.lane, p, sizeof u.lane);
    return u;
}
static inline u32x4 u32x4_eqz(u32x4 a)
{
    for (int i = 0; i < 4; i++)
        a.lane[i] = a.lane[i] == 0 ? 0xffffffffu : 0u;
    return a;
}
static inline u32x4 u32x4_shl(u32x4 a, int n)
{
    for (int i = 0; i < 4; i++)
        a.lane[i] <<= n;
    return a;
}

static inline f64x2 f64x2_from_f32x4_low(f32x4 v) { return (f64x2){ { v.lane[0], v.lane[1] } }; }
static inline f64x2 f64x2_from_f32x4_high(f32x4 v) { return (f64x2){ { v.lane[2], v.lane[3] } }; }
static inline f32x4 f32x4_from_f64x2(f64x2 lo, f64x2 hi)
{
    return (f32x4){ { (float)lo.lane[0], (float)lo.lane[1], (float)hi.lane[0], (float)hi.lane[1] } };
}
static inline double f64x2_sum(f64x2 v) { return v.lane[0] + v.lane[1]; }

static inline f32x4 f32x4_load_f16(const void *p)
{
    return (f32x4){ { f16_to_f32(half_at(p, 0)), f16_to_f32(half_at(p, 1)), f16_to_f32(half_at(p, 2)),
                      f16_to_f32(half_at(p, 3)) } };
}
static inline void f32x4_load8_f16(const void *p, f32x4 *lo, f32x4 *hi)
{
    *lo = f32x4_load_f16(p);
    *hi = f32x4_load_f16((const unsigned char *)p + 8);
}
static inline f32x4 f32x4_load_bf16(const void *p)
{
    return (f32x4){ { bf16_to_f32(half_at(p, 0)), bf16_to_f32(half_at(p, 1)), bf16_to_f32(half_at(p, 2)),
                      bf16_to_f32(half_at(p, 3)) } };
}
static inline void f32x4_load8_bf16(const void *p, f32x4 *lo, f32x4 *hi)
{
    *lo = f32x4_load_bf16(p);
    *hi = f32x4_load_bf16((const unsigned char *)p + 8);
}

#endif
#endif
