// RoPE properties (seeded loops), accuracy at long positions against a double
// oracle written here, the float32 recipe against a Math.fround emulation,
// and the half <-> interleaved weight permutation.
import { posenc, ropeOracle } from '../helpers.js';

const EPS22 = 2 ** -22;
const EPS23 = 2 ** -23;
const f32 = Math.fround;

beforeAll(() => posenc.init());

/** Deterministic floats in [-1, 1), exact in float32. */
function random(n, seed) {
  let s = seed >>> 0;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = (s >>> 8) / 2 ** 23 - 1;
  }
  return out;
}

/** RoFormer's frequencies in double: base^(-2k/d). */
const theta = (k, d, base = 10000) => 1 / base ** ((2 * k) / d);

/** The pair (i, j) of pair k in a layout. */
const pairOf = (layout, k, rot) => (layout === 'half' ? [k, k + rot / 2] : [2 * k, 2 * k + 1]);

/** Double-precision RoPE of one head vector v at position p (the oracle). */
function rotateDouble(v, p, rot, layout, freq = (k) => theta(k, rot), att = 1) {
  const out = Array.from(v);
  for (let k = 0; k < rot / 2; k++) {
    const [i, j] = pairOf(layout, k, rot);
    const c = att * Math.cos(p * freq(k));
    const s = att * Math.sin(p * freq(k));
    out[i] = v[i] * c - v[j] * s;
    out[j] = v[j] * c + v[i] * s;
  }
  return out;
}

const dot = (a, b) => a.reduce((acc, v, i) => acc + v * b[i], 0);

function rope1(v, p, o) {
  const x = Float32Array.from(v);
  return posenc.applyRope(x, { heads: 1, headDim: v.length, positions: Int32Array.of(p), ...o });
}

describe('properties', () => {
  test('relative: <R(m) q, R(n) k> depends only on m - n (double angles, positions up to 2^24)', () => {
    const d = 64;
    let worst = 0;
    for (let trial = 0; trial < 40; trial++) {
      const q = random(d, 100 + trial);
      const k = random(d, 900 + trial);
      const delta = (trial * 7919) % 2001 - 1000;
      const base = [0, 17, 4096, 2 ** 20 - 3, 2 ** 24 - 5000][trial % 5];
      const m = base + Math.max(delta, 0);
      const n = base - Math.min(delta, 0);
      for (const layout of ['half', 'interleaved']) {
        const far = dot(rope1(q, m, { layout }), rope1(k, n, { layout }));
        const near = dot(rope1(q, m - n, { layout }), k);
        worst = Math.max(worst, Math.abs(far - near));
      }
    }
    // each rotated value is within 2^-22 (|a| + |b|) <= 2^-21 of exact: 64 terms of |x| <= 1.5
    expect(worst).toBeLessThanOrEqual(64 * 2 * 1.5 * 2 ** -21);
  });

  test('the float32 recipe breaks the relative property at long positions; double angles do not', () => {
    const d = 64;
    const q = random(d, 5);
    const k = random(d, 6);
    const at = (precision, m, n) => dot(rope1(q, m, { precision }), rope1(k, n, { precision }));
    const drift32 = Math.abs(at('float32', 2 ** 20 + 10, 2 ** 20) - at('float32', 10, 0));
    const drift64 = Math.abs(at('float64', 2 ** 20 + 10, 2 ** 20) - at('float64', 10, 0));
    expect(drift32).toBeGreaterThan(1e-3);
    expect(drift64).toBeLessThan(1e-5);
  });

  test('norm preservation: |R q| = A |q|, every layout, partial rotary, attention factor', () => {
    let worst = 0;
    for (let trial = 0; trial < 60; trial++) {
      const headDim = 2 + 2 * (trial % 40) + (trial % 3 === 0 ? 1 : 0);
      const rotaryDim = headDim - (headDim % 2) - 2 * (trial % 4 === 1 && headDim > 4 ? 1 : 0);
      const layout = trial % 2 ? 'half' : 'interleaved';
      const scaling = trial % 5 === 0 ? { type: 'yarn', factor: 8, maxPositionEmbeddings: 8192 } : undefined;
      const att = scaling ? 0.1 * Math.log(8) + 1 : 1;
      const q = random(headDim, trial);
      const p = (trial * 104729) % 2 ** 22;
      const out = rope1(q, p, { layout, rotaryDim, scaling });
      const rotNorm = Math.hypot(...out.subarray(0, rotaryDim));
      const qNorm = Math.hypot(...q.subarray(0, rotaryDim));
      worst = Math.max(worst, Math.abs(rotNorm - att * qNorm) / (att * qNorm));
      expect(Array.from(out.subarray(rotaryDim))).toEqual(Array.from(q.subarray(rotaryDim))); // untouched
    }
    expect(worst).toBeLessThanOrEqual(4 * EPS22);
  });

  test('KV-cache decoding: one token at offset n equals row n of the full sequence, bit for bit', () => {
    const heads = 3;
    const headDim = 16;
    const seq = 37;
    const x = random(seq * heads * headDim, 77);
    const full = posenc.applyRope(Float32Array.from(x), { heads, headDim, offset: 1000 });
    for (const n of [0, 1, 31, 32, 36]) {
      const row = x.slice(n * heads * headDim, (n + 1) * heads * headDim);
      const byOffset = posenc.applyRope(Float32Array.from(row), { heads, headDim, offset: 1000 + n });
      const byPosition = posenc.applyRope(Float32Array.from(row), { heads, headDim, positions: Int32Array.of(1000 + n) });
      const want = Array.from(full.subarray(n * heads * headDim, (n + 1) * heads * headDim));
      expect(Array.from(byOffset)).toEqual(want);
      expect(Array.from(byPosition)).toEqual(want);
    }
  });
});

describe('accuracy against a double oracle', () => {
  test.each([['half'], ['interleaved']])('applyRope near 2^20 and 2^24, layout %s, batch with per-row positions', (layout) => {
    const heads = 2;
    const headDim = 128;
    const rotaryDim = 96;
    const batch = 2;
    const seq = 70; // more than two recurrence anchors
    const x = random(batch * seq * heads * headDim, 4242);
    for (const offset of [2 ** 20 - 35, 2 ** 24 - 35]) {
      const out = posenc.applyRope(Float32Array.from(x), { heads, headDim, rotaryDim, layout, offset, batch });
      let excess = 0;
      for (let b = 0; b < batch; b++) {
        for (let s = 0; s < seq; s++) {
          for (let h = 0; h < heads; h++) {
            const at = ((b * seq + s) * heads + h) * headDim;
            const v = x.subarray(at, at + headDim);
            const want = rotateDouble(v, offset + s, rotaryDim, layout);
            for (let k = 0; k < rotaryDim / 2; k++) {
              const [i, j] = pairOf(layout, k, rotaryDim);
              const bound = EPS22 * (Math.abs(v[i]) + Math.abs(v[j]));
              excess = Math.max(excess, Math.abs(out[at + i] - want[i]) - bound, Math.abs(out[at + j] - want[j]) - bound);
            }
            for (let i = rotaryDim; i < headDim; i++) expect(out[at + i]).toBe(v[i]);
          }
        }
      }
      expect(excess).toBeLessThanOrEqual(0);
    }
  });

  test('positions per batch and row (padded batch), with YaRN scaling (attention factor)', () => {
    const heads = 2;
    const headDim = 8;
    const batch = 3;
    const seq = 4;
    const positions = Int32Array.from([0, 1, 2, 3, -1, -1, 0, 1, 1048570, 1048571, 1048572, 1048573]);
    const scaling = { type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 4096, maxPositionEmbeddings: 16384 };
    const { invFreq, attentionFactor } = ropeOracle({ rotaryDim: headDim, scaling }); // HF's YaRN, in double, here
    const x = random(batch * seq * heads * headDim, 9);
    const out = posenc.applyRope(Float32Array.from(x), { heads, headDim, batch, positions, scaling });
    for (let r = 0; r < batch * seq; r++) {
      for (let h = 0; h < heads; h++) {
        const at = (r * heads + h) * headDim;
        const v = x.subarray(at, at + headDim);
        const want = rotateDouble(v, positions[r], headDim, 'half', (k) => invFreq[k], attentionFactor);
        want.forEach((w, i) => expect(Math.abs(out[at + i] - w)).toBeLessThanOrEqual(2 * EPS22 * attentionFactor));
      }
    }
  });

  test("dynamic NTK: seqLength defaults to the largest position + 1 (HF's forward)", () => {
    const d = 16;
    const scaling = { type: 'dynamic', factor: 2, maxPositionEmbeddings: 100 };
    const x = random(d, 3);
    const out = posenc.applyRope(Float32Array.from(x), { heads: 1, headDim: d, offset: 299, scaling });
    const scaledBase = 10000 * ((2 * 300) / 100 - 1) ** (d / (d - 2)); // L = 300
    const want = rotateDouble(x, 299, d, 'half', (k) => theta(k, d, scaledBase));
    want.forEach((w, i) => expect(Math.abs(out[i] - w)).toBeLessThanOrEqual(2 * EPS22));
    // below maxPositionEmbeddings the base is unchanged
    const early = posenc.applyRope(Float32Array.from(x), { heads: 1, headDim: d, offset: 50, scaling });
    rotateDouble(x, 50, d, 'half').forEach((w, i) => expect(Math.abs(early[i] - w)).toBeLessThanOrEqual(2 * EPS22));
  });

  test('ropeCache near 2^20 within 2^-23 of A cos(p f), A sin(p f)', () => {
    const { cos, sin } = posenc.ropeCache({ length: 80, offset: 2 ** 20 - 40, rotaryDim: 128, base: 500000 });
    let worst = 0;
    for (let r = 0; r < 80; r++) {
      for (let k = 0; k < 64; k++) {
        const a = (2 ** 20 - 40 + r) * theta(k, 128, 500000);
        worst = Math.max(worst, Math.abs(cos[r * 64 + k] - Math.cos(a)), Math.abs(sin[r * 64 + k] - Math.sin(a)));
      }
    }
    expect(worst).toBeLessThanOrEqual(EPS23);
  });
});

describe("precision: 'float32' is the float32 recipe, bit for bit", () => {
  const positions = Int32Array.from([0, 1, 2, 1000, 65537, 2 ** 20 - 1, 2 ** 20 + 3, 2 ** 24 + 1, -7, 2 ** 31 - 1]);

  test('ropeCache: fround(cos(fround(fround(p) * fround(f)))) * fround(A)', () => {
    const scaling = { type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 4096, maxPositionEmbeddings: 16384 };
    const { invFreq, attentionFactor } = ropeOracle({ rotaryDim: 64, scaling });
    const { cos, sin } = posenc.ropeCache({ positions, rotaryDim: 64, scaling, precision: 'float32' });
    let mismatches = 0;
    positions.forEach((p, r) => {
      for (let k = 0; k < 32; k++) {
        const angle = f32(f32(p) * f32(invFreq[k]));
        mismatches += cos[r * 32 + k] !== f32(f32(Math.cos(angle)) * f32(attentionFactor));
        mismatches += sin[r * 32 + k] !== f32(f32(Math.sin(angle)) * f32(attentionFactor));
      }
    });
    expect(mismatches).toBe(0);
  });

  test.each([['half'], ['interleaved']])("applyRope %s: torch's q * cos + rotate_half(q) * sin in float32", (layout) => {
    const headDim = 24;
    const rotaryDim = 20;
    const heads = 2;
    const { invFreq } = ropeOracle({ rotaryDim, base: 500000 });
    const x = random(positions.length * heads * headDim, 31);
    const out = posenc.applyRope(Float32Array.from(x), {
      heads, headDim, rotaryDim, layout, base: 500000, positions, precision: 'float32',
    });
    const want = Float32Array.from(x);
    positions.forEach((p, r) => {
      for (let h = 0; h < heads; h++) {
        const at = (r * heads + h) * headDim;
        for (let k = 0; k < rotaryDim / 2; k++) {
          const angle = f32(f32(p) * f32(invFreq[k]));
          const c = f32(Math.cos(angle));
          const s = f32(Math.sin(angle));
          const [i, j] = pairOf(layout, k, rotaryDim);
          const a = x[at + i];
          const b = x[at + j];
          want[at + i] = f32(f32(a * c) - f32(b * s));
          want[at + j] = f32(f32(b * c) + f32(a * s));
        }
      }
    });
    expect(Array.from(out)).toEqual(Array.from(want));
  });
});

describe('ropePermuteWeights: half <-> interleaved', () => {
  // HF convert_llama_weights_to_hf.py:
  //   w.view(n_heads, dim1 // n_heads // 2, 2, dim2).transpose(1, 2).reshape(dim1, dim2)
  function hfPermute(w, heads, dim1, dim2) {
    const out = new Float32Array(w.length);
    const half = dim1 / heads / 2;
    for (let h = 0; h < heads; h++) {
      for (let i = 0; i < half; i++) {
        for (let t = 0; t < 2; t++) {
          const src = ((h * half + i) * 2 + t) * dim2; // [h][i][t]
          const dst = ((h * 2 + t) * half + i) * dim2; // [h][t][i]
          out.set(w.subarray(src, src + dim2), dst);
        }
      }
    }
    return out;
  }

  const matvec = (w, x, rows) =>
    Float32Array.from({ length: rows }, (_, r) => {
      let acc = 0;
      for (let i = 0; i < x.length; i++) acc += w[r * x.length + i] * x[i];
      return acc;
    });

  test("'interleaved' -> 'half' is HF's permute(); the inverse restores w", () => {
    const heads = 4;
    const headDim = 16;
    const inFeatures = 12;
    const w = random(heads * headDim * inFeatures, 1);
    const wHalf = posenc.ropePermuteWeights(w, { heads, headDim, from: 'interleaved', to: 'half' });
    expect(Array.from(wHalf)).toEqual(Array.from(hfPermute(w, heads, heads * headDim, inFeatures)));
    const back = posenc.ropePermuteWeights(wHalf, { heads, headDim, from: 'half', to: 'interleaved' });
    expect(Array.from(back)).toEqual(Array.from(w));
    const out = new Float32Array(w.length);
    expect(posenc.ropePermuteWeights(w, { heads, headDim, from: 'half', to: 'half', out })).toBe(out);
    expect(Array.from(out)).toEqual(Array.from(w));
  });

  test.each([
    [16, 16],
    [20, 12], // partial rotary: features >= 12 keep their place
  ])('RoPE interleaved on W x equals RoPE half on W\' x (headDim %i, rotaryDim %i), scores equal', (headDim, rotaryDim) => {
    const heads = 3;
    const inFeatures = 10;
    const seq = 5;
    const wq = random(heads * headDim * inFeatures, 11);
    const wk = random(heads * headDim * inFeatures, 12);
    const perm = { heads, headDim, rotaryDim, from: 'interleaved', to: 'half' };
    const wqHalf = posenc.ropePermuteWeights(wq, perm);
    const wkHalf = posenc.ropePermuteWeights(wk, perm);
    const xs = Array.from({ length: seq }, (_, s) => random(inFeatures, 50 + s));
    const project = (w) => {
      const out = new Float32Array(seq * heads * headDim);
      xs.forEach((x, s) => out.set(matvec(w, x, heads * headDim), s * heads * headDim));
      return out;
    };
    const o = { heads, headDim, rotaryDim, offset: 123456 };
    const q1 = posenc.applyRope(project(wq), { ...o, layout: 'interleaved' });
    const k1 = posenc.applyRope(project(wk), { ...o, layout: 'interleaved' });
    const q2 = posenc.applyRope(project(wqHalf), { ...o, layout: 'half' });
    const k2 = posenc.applyRope(project(wkHalf), { ...o, layout: 'half' });
    // feature j of the half layout is feature src(j) of the interleaved one
    const src = (j) => (j >= rotaryDim ? j : j < rotaryDim / 2 ? 2 * j : 2 * (j - rotaryDim / 2) + 1);
    for (let r = 0; r < seq * heads; r++) {
      for (let j = 0; j < headDim; j++) expect(q2[r * headDim + j]).toBe(q1[r * headDim + src(j)]);
    }
    for (let s = 0; s < seq; s++) {
      for (let t = 0; t < seq; t++) {
        for (let h = 0; h < heads; h++) {
          const a = (s * heads + h) * headDim;
          const b = (t * heads + h) * headDim;
          const score1 = dot(q1.subarray(a, a + headDim), k1.subarray(b, b + headDim));
          const score2 = dot(q2.subarray(a, a + headDim), k2.subarray(b, b + headDim));
          expect(Math.abs(score1 - score2)).toBeLessThanOrEqual(1e-12);
        }
      }
    }
  });

  test('a bias is the case inFeatures = 1; WasmArrays are permuted without staging', () => {
    const bias = Float32Array.from({ length: 8 }, (_, i) => i);
    expect(Array.from(posenc.ropePermuteWeights(bias, { heads: 1, headDim: 8, from: 'interleaved', to: 'half' })))
      .toEqual([0, 2, 4, 6, 1, 3, 5, 7]);
    const w = posenc.allocate('float32', 8);
    w.array.set(bias);
    const out = posenc.allocate('float32', 8);
    expect(posenc.ropePermuteWeights(w, { heads: 2, headDim: 4, from: 'half', to: 'interleaved', out })).toBe(out);
    expect(Array.from(out.array)).toEqual([0, 2, 1, 3, 4, 6, 5, 7]);
    w.free();
    out.free();
  });
});

test('applyRope on a WasmArray works in place and returns it', () => {
  const x = posenc.allocate('float32', 2 * 8);
  x.array.set(random(16, 8));
  const copy = Float32Array.from(x.array);
  const positions = posenc.allocate('int32', 2);
  positions.array.set([5, 9]);
  expect(posenc.applyRope(x, { heads: 1, headDim: 8, positions })).toBe(x);
  const want = posenc.applyRope(copy, { heads: 1, headDim: 8, positions: Int32Array.of(5, 9) });
  expect(Array.from(x.array)).toEqual(Array.from(want));
  x.free();
  positions.free();
});
