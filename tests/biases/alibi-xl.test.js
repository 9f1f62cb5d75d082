// ALiBi and Transformer-XL's relative sinusoid against tests/fixtures/reference.json
// and formulas evaluated here in JS doubles; bad input for every bias/bucket function.
import { readFileSync } from 'node:fs';
import { posenc, ULP1, maxError, thrown } from '../helpers.js';

const ref = JSON.parse(readFileSync(new URL('../fixtures/reference.json', import.meta.url)));
const fromJson = (v) => (v === '-Infinity' ? -Infinity : v);

beforeAll(() => posenc.init());

describe('alibiSlopes', () => {
  test.each(ref.alibiSlopes.map((c) => [c.heads, c.maxBias, c.slopes]))(
    'heads %i, maxBias %i: the paper rule, within one double ulp',
    (heads, maxBias, slopes) => {
      const s = posenc.alibiSlopes(maxBias === 8 ? { heads } : { heads, maxBias });
      expect(s).toBeInstanceOf(Float64Array);
      expect(s.length).toBe(heads);
      s.forEach((v, h) => expect(Math.abs(v / slopes[h] - 1)).toBeLessThanOrEqual(2 ** -52));
      // the shorthand alibiSlopes(heads, { maxBias }) gives the same
      expect(posenc.alibiSlopes(heads, maxBias === 8 ? undefined : { maxBias })).toEqual(s);
    },
  );

  test('non-powers of two: the p slopes of p, then the odd-numbered slopes of 2p, unsorted', () => {
    // heads 12: p = 8 gives 2^-1 .. 2^-8, then 2^(-8 k / 16) for k = 1, 3, 5, 7
    const s = posenc.alibiSlopes(12);
    const expected = [1, 2, 3, 4, 5, 6, 7, 8].map((k) => 2 ** -k).concat([1, 3, 5, 7].map((k) => 2 ** (-k / 2)));
    s.forEach((v, h) => expect(Math.abs(v / expected[h] - 1)).toBeLessThanOrEqual(2 ** -52));
    expect(s[8]).toBeGreaterThan(s[0]); // the extra block starts above the main one: not sorted
    // powers of two: exact powers of two when 8 (h + 1) / n is an integer
    expect(Array.from(posenc.alibiSlopes(8))).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((k) => 2 ** -k));
    expect(Array.from(posenc.alibiSlopes(4, { maxBias: 16 }))).toEqual([2 ** -4, 2 ** -8, 2 ** -12, 2 ** -16]);
  });

  test('an options object like every function, { heads, maxBias? }; the number shorthand stays', () => {
    expect(Array.from(posenc.alibiSlopes({ heads: 8 }))).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((k) => 2 ** -k));
    expect(Array.from(posenc.alibiSlopes({ heads: 4, maxBias: 16 }))).toEqual([2 ** -4, 2 ** -8, 2 ** -12, 2 ** -16]);
    expect(Array.from(posenc.alibiSlopes(4, { maxBias: 16 }))).toEqual([2 ** -4, 2 ** -8, 2 ** -12, 2 ** -16]);
  });
});

describe('alibiBias', () => {
  test.each(ref.alibiBias.map((c) => [c.causal, c]))('reference case, causal %s, bit for bit', (causal, c) => {
    const b = posenc.alibiBias({
      heads: c.heads, queryLength: c.queryLength, keyLength: c.keyLength, queryOffset: c.queryOffset, causal, maxBias: c.maxBias,
    });
    const expected = c.bias.flat(2).map(fromJson);
    expect(b.length).toBe(expected.length);
    b.forEach((v, i) => expect(Object.is(v, Math.fround(expected[i]))).toBe(true)); // +0 diagonal, never -0
  });

  test('12 heads, offset 3: -m|i-j| or the causal mask, from the formula in double', () => {
    const slopes = ref.alibiSlopes.find((c) => c.heads === 12 && c.maxBias === 8).slopes;
    const [H, Q, K, off] = [12, 5, 9, 3];
    for (const causal of [true, false]) {
      const b = posenc.alibiBias({ heads: H, queryLength: Q, keyLength: K, queryOffset: off, causal });
      const want = (x) => {
        const h = Math.floor(x / (Q * K));
        const i = off + (Math.floor(x / K) % Q);
        const j = x % K;
        return causal && j > i ? -Infinity : -slopes[h] * Math.abs(i - j);
      };
      let worst = 0;
      b.forEach((v, x) => {
        const w = want(x);
        worst = Math.max(worst, v === w ? 0 : Math.abs(v - w) / Math.abs(w));
      });
      expect(worst).toBeLessThanOrEqual(2 ** -24); // one float32 rounding
    }
  });

  test('monotone in distance; queryOffset rows are the rows of the full matrix', () => {
    for (const causal of [true, false]) {
      const [H, L] = [5, 40];
      const full = posenc.alibiBias({ heads: H, queryLength: L, causal, maxBias: 6 });
      let bad = 0;
      for (let h = 0; h < H; h++) {
        for (let i = 0; i < L; i++) {
          const row = full.subarray((h * L + i) * L, (h * L + i + 1) * L);
          for (let j = 1; j <= i; j++) if (!(row[j] > row[j - 1])) bad++; // approaching the diagonal
          for (let j = i + 1; j < L; j++) if (!(row[j] <= row[j - 1])) bad++; // moving away (or masked)
        }
      }
      expect(bad).toBe(0);
      // decoding: 1 query at offset n against n + 1 keys (and any longer key range)
      for (const n of [0, 7, 39]) {
        const one = posenc.alibiBias({ heads: H, queryLength: 1, keyLength: L, queryOffset: n, causal, maxBias: 6 });
        for (let h = 0; h < H; h++) {
          expect(Array.from(one.subarray(h * L, (h + 1) * L))).toEqual(Array.from(full.subarray((h * L + n) * L, (h * L + n + 1) * L)));
        }
      }
    }
  });

  test("BLOOM's key-only m*j equals the causal form after softmax, and only with the mask", () => {
    const [L, m] = [6, 2 ** -8]; // one head: 2^(-8 * 1 / 1)
    const logits = Array.from({ length: L * L }, (_, x) => Math.sin(x * 1.7));
    const softmax = (row) => {
      const top = Math.max(...row);
      const e = row.map((v) => Math.exp(v - top));
      const s = e.reduce((a, b) => a + b);
      return e.map((v) => v / s);
    };
    for (const causal of [true, false]) {
      const ours = posenc.alibiBias({ heads: 1, queryLength: L, causal });
      let worst = 0;
      for (let i = 0; i < L; i++) {
        const mask = (j) => (causal && j > i ? -Infinity : 0);
        const a = softmax(logits.slice(i * L, i * L + L).map((v, j) => v + ours[i * L + j]));
        const b = softmax(logits.slice(i * L, i * L + L).map((v, j) => v + m * j + mask(j)));
        a.forEach((v, j) => (worst = Math.max(worst, Math.abs(v - b[j]))));
      }
      if (causal) expect(worst).toBeLessThan(1e-6);
      else expect(worst).toBeGreaterThan(1e-3);
    }
  });

  test('the last int32 position; out is filled and returned; empty matrices', () => {
    const out = new Float32Array(3 * 2);
    expect(posenc.alibiBias({ heads: 3, queryLength: 1, keyLength: 2, queryOffset: 2 ** 31 - 1, out })).toBe(out);
    expect(out[1]).toBe(Math.fround(-(2 ** 31 - 2) / 16));
    expect(posenc.alibiBias({ heads: 2, queryLength: 0, keyLength: 5 }).length).toBe(0);
    const w = posenc.allocate('float32', 2 * 3 * 3);
    try {
      expect(posenc.alibiBias({ heads: 2, queryLength: 3, out: w })).toBe(w);
      expect(Array.from(w.array)).toEqual(Array.from(posenc.alibiBias({ heads: 2, queryLength: 3 })));
    } finally {
      w.free();
    }
  });
});

describe('transformerXLEmbedding', () => {
  const expected = (pos, col, d) => {
    const k = col % (d / 2);
    const f = 1 / Math.pow(10000, (2 * k) / d);
    return col < d / 2 ? Math.sin(pos * f) : Math.cos(pos * f);
  };

  test.each(ref.transformerXLEmbedding.map((c) => [c.clampLength, c]))('reference case, clampLength %i', (clampLength, c) => {
    const t = posenc.transformerXLEmbedding({ keyLength: c.keyLength, dModel: c.dModel, clampLength });
    expect(t.length).toBe(c.keyLength * c.dModel);
    const flat = c.embedding.flat();
    expect(maxError(t, (i) => flat[i])).toBeLessThanOrEqual(ULP1);
  });

  test('positions descend to 0; within 2^-23 of the double formula up to position 2^20', () => {
    const [L, d] = [2 ** 20 + 1, 6];
    const t = posenc.transformerXLEmbedding({ keyLength: L, dModel: d });
    const f = [0, 1, 2].map((k) => 1 / Math.pow(10000, (2 * k) / d));
    let worst = 0;
    for (let r = 0; r < L; r++) {
      const p = L - 1 - r;
      for (let k = 0; k < 3; k++) {
        worst = Math.max(worst, Math.abs(t[r * d + k] - Math.sin(p * f[k])), Math.abs(t[r * d + 3 + k] - Math.cos(p * f[k])));
      }
    }
    expect(worst).toBeLessThanOrEqual(ULP1);
  });

  test('clampLength: the first rows all sit at clampLength', () => {
    const [L, d, c] = [300, 16, 37];
    const t = posenc.transformerXLEmbedding({ keyLength: L, dModel: d, clampLength: c });
    expect(maxError(t, (i) => expected(Math.min(L - 1 - Math.floor(i / d), c), i % d, d))).toBeLessThanOrEqual(ULP1);
    const row = (r) => Array.from(t.subarray(r * d, (r + 1) * d));
    for (let r = 0; r < L - 1 - c; r++) expect(row(r)).toEqual(row(L - 1 - c));
    // a clamp at or beyond the top position changes nothing
    expect(posenc.transformerXLEmbedding({ keyLength: L, dModel: d, clampLength: L - 1 })).toEqual(posenc.transformerXLEmbedding({ keyLength: L, dModel: d }));
  });
});

// ---------------------------------------------------------------- bad input

const I32 = 2 ** 31 - 1;
const weights = (n) => Float32Array.from({ length: n }, (_, i) => i / 8);

// [function, call, error type, parameter named in the message]
const CASES = [
  ['alibiSlopes', () => posenc.alibiSlopes(0), RangeError, 'heads'],
  ['alibiSlopes', () => posenc.alibiSlopes(2.5), RangeError, 'heads'],
  ['alibiSlopes', () => posenc.alibiSlopes('4'), TypeError, 'heads'],
  ['alibiSlopes', () => posenc.alibiSlopes(NaN), RangeError, 'heads'],
  ['alibiSlopes', () => posenc.alibiSlopes(2 ** 28 + 1), RangeError, 'heads'],
  ['alibiSlopes', () => posenc.alibiSlopes(4, { maxBias: 0 }), RangeError, 'maxBias'],
  ['alibiSlopes', () => posenc.alibiSlopes(4, { maxBias: -8 }), RangeError, 'maxBias'],
  ['alibiSlopes', () => posenc.alibiSlopes(4, { maxBias: Infinity }), RangeError, 'maxBias'],
  ['alibiSlopes', () => posenc.alibiSlopes(4, { maxBias: '8' }), TypeError, 'maxBias'],
  ['alibiSlopes', () => posenc.alibiSlopes(4, { maxbias: 8 }), TypeError, 'maxbias'],
  ['alibiSlopes', () => posenc.alibiSlopes(4, null), TypeError, 'options'],
  ['alibiSlopes', () => posenc.alibiSlopes({ heads: 0 }), RangeError, 'heads'],
  ['alibiSlopes', () => posenc.alibiSlopes({ maxBias: 8 }), TypeError, 'heads'],
  ['alibiSlopes', () => posenc.alibiSlopes({ heads: 4, maxBias: 0 }), RangeError, 'maxBias'],
  ['alibiSlopes', () => posenc.alibiSlopes({ heads: 4 }, { maxBias: 8 }), TypeError, 'second argument'],
  ['alibiSlopes', () => posenc.alibiSlopes(4, { heads: 4 }), TypeError, "unknown option 'heads'"],
  ['alibiSlopes', () => posenc.alibiSlopes(), TypeError, 'options'],
  ['alibiBias', () => posenc.alibiBias({ heads: 0, queryLength: 4 }), RangeError, 'heads'],
  ['alibiBias', () => posenc.alibiBias({ queryLength: 4 }), TypeError, 'heads'],
  ['alibiBias', () => posenc.alibiBias({ heads: 2, queryLength: -1 }), RangeError, 'queryLength'],
  ['alibiBias', () => posenc.alibiBias({ heads: 2, queryLength: 4, keyLength: 1.5 }), RangeError, 'keyLength'],
  ['alibiBias', () => posenc.alibiBias({ heads: 2, queryLength: 4, keyLength: Infinity }), RangeError, 'keyLength'],
  ['alibiBias', () => posenc.alibiBias({ heads: 2, queryLength: 4, causal: 1 }), TypeError, 'causal'],
  ['alibiBias', () => posenc.alibiBias({ heads: 2, queryLength: 4, queryOffset: -1 }), RangeError, 'queryOffset'],
  ['alibiBias', () => posenc.alibiBias({ heads: 2, queryLength: 4, queryOffset: NaN }), RangeError, 'queryOffset'],
  ['alibiBias', () => posenc.alibiBias({ heads: 2, queryLength: 4, queryOffset: I32 }), RangeError, 'queryOffset'],
  ['alibiBias', () => posenc.alibiBias({ heads: 2, queryLength: 4, maxBias: NaN }), RangeError, 'maxBias'],
  ['alibiBias', () => posenc.alibiBias({ heads: 2 ** 16, queryLength: 2 ** 16, keyLength: 2 }), RangeError, 'heads * queryLength * keyLength'],
  ['alibiBias', () => posenc.alibiBias({ heads: 2, queryLength: 4, out: new Float32Array(31) }), RangeError, 'out'],
  ['alibiBias', () => posenc.alibiBias({ heads: 2, queryLength: 4, out: new Float64Array(32) }), TypeError, 'out'],
  ['alibiBias', () => posenc.alibiBias({ heads: 2, queryLength: 4, out: [] }), TypeError, 'out'],
  ['t5Buckets', () => posenc.t5Buckets({ queryLength: 4, numBuckets: 31 }), RangeError, 'numBuckets'],
  ['t5Buckets', () => posenc.t5Buckets({ queryLength: 4, numBuckets: 2 }), RangeError, 'numBuckets'],
  ['t5Buckets', () => posenc.t5Buckets({ queryLength: 4, numBuckets: 1, bidirectional: false }), RangeError, 'numBuckets'],
  ['t5Buckets', () => posenc.t5Buckets({ queryLength: 4, numBuckets: 32.5 }), RangeError, 'numBuckets'],
  ['t5Buckets', () => posenc.t5Buckets({ queryLength: 4, maxDistance: 8 }), RangeError, 'maxDistance'],
  ['t5Buckets', () => posenc.t5Buckets({ queryLength: 4, maxDistance: 16, bidirectional: false }), RangeError, 'maxDistance'],
  ['t5Buckets', () => posenc.t5Buckets({ queryLength: 4, maxDistance: -128 }), RangeError, 'maxDistance'],
  ['t5Buckets', () => posenc.t5Buckets({ queryLength: 4, maxDistance: '128' }), TypeError, 'maxDistance'],
  ['t5Buckets', () => posenc.t5Buckets({ queryLength: 4, bidirectional: 'yes' }), TypeError, 'bidirectional'],
  ['t5Buckets', () => posenc.t5Buckets({ queryLength: 4, queryOffset: -3 }), RangeError, 'queryOffset'],
  ['t5Buckets', () => posenc.t5Buckets({ queryLength: 4, queryOffset: I32 - 2 }), RangeError, 'queryOffset'],
  ['t5Buckets', () => posenc.t5Buckets({ queryLength: null }), TypeError, 'queryLength'],
  ['t5Buckets', () => posenc.t5Buckets({ queryLength: 2 ** 16, keyLength: 2 ** 16 }), RangeError, 'queryLength * keyLength'],
  ['t5Buckets', () => posenc.t5Buckets({ queryLength: 4, out: new Float32Array(16) }), TypeError, 'out'],
  ['t5Buckets', () => posenc.t5Buckets({ queryLength: 4, out: new Int32Array(17) }), RangeError, 'out'],
  ['t5Bias', () => posenc.t5Bias({ queryLength: 4, weights: weights(32 * 2) }), TypeError, 'heads'],
  ['t5Bias', () => posenc.t5Bias({ queryLength: 4, heads: 0, weights: weights(0) }), RangeError, 'heads'],
  ['t5Bias', () => posenc.t5Bias({ queryLength: 4, heads: 2 }), TypeError, 'weights'],
  ['t5Bias', () => posenc.t5Bias({ queryLength: 4, heads: 2, weights: weights(63) }), RangeError, 'weights'],
  ['t5Bias', () => posenc.t5Bias({ queryLength: 4, heads: 2, weights: new Float64Array(64) }), TypeError, 'weights'],
  ['t5Bias', () => posenc.t5Bias({ queryLength: 4, heads: 2, weights: Array(64).fill(0) }), TypeError, 'weights'],
  ['t5Bias', () => posenc.t5Bias({ queryLength: 4, heads: 2, weights: weights(64), numBuckets: 33 }), RangeError, 'numBuckets'],
  ['t5Bias', () => posenc.t5Bias({ queryLength: 4, heads: 2, weights: weights(64), maxDistance: 0 }), RangeError, 'maxDistance'],
  ['t5Bias', () => posenc.t5Bias({ queryLength: 4, heads: 2 ** 26, weights: weights(64) }), RangeError, 'numBuckets * heads'],
  ['t5Bias', () => posenc.t5Bias({ queryLength: 2 ** 15, heads: 2, weights: weights(64) }), RangeError, 'heads * queryLength * keyLength'],
  ['t5Bias', () => posenc.t5Bias({ queryLength: 4, heads: 2, weights: weights(64), out: new Float32Array(33) }), RangeError, 'out'],
  ['t5Bias', () => posenc.t5Bias({ queryLength: 4, heads: 2, weights: weights(64), out: new Int32Array(32) }), TypeError, 'out'],
  ['debertaBuckets', () => posenc.debertaBuckets({ queryLength: 4, bucketSize: 1 }), RangeError, 'bucketSize'],
  ['debertaBuckets', () => posenc.debertaBuckets({ queryLength: 4, bucketSize: -1 }), RangeError, 'bucketSize'],
  ['debertaBuckets', () => posenc.debertaBuckets({ queryLength: 4, bucketSize: 256.5 }), RangeError, 'bucketSize'],
  ['debertaBuckets', () => posenc.debertaBuckets({ queryLength: 4, maxPosition: 129 }), RangeError, 'maxPosition'],
  ['debertaBuckets', () => posenc.debertaBuckets({ queryLength: 4, maxPosition: NaN }), RangeError, 'maxPosition'],
  ['debertaBuckets', () => posenc.debertaBuckets({ queryLength: 4, maxPosition: 2 ** 31 }), RangeError, 'maxPosition'],
  ['debertaBuckets', () => posenc.debertaBuckets({ queryLength: 2 ** 23 + 1, keyLength: 1, bucketSize: 2 ** 23, maxPosition: 2 ** 22 + 2 }), RangeError, 'queryLength'],
  ['debertaBuckets', () => posenc.debertaBuckets({ queryLength: 1, keyLength: 2 ** 23 + 1, bucketSize: 2 ** 23, maxPosition: 2 ** 22 + 2 }), RangeError, 'keyLength'],
  ['debertaBuckets', () => posenc.debertaBuckets({ queryLength: 2 ** 16, keyLength: 2 ** 16 }), RangeError, 'queryLength * keyLength'],
  ['debertaBuckets', () => posenc.debertaBuckets({ queryLength: 4, out: new Int32Array(15) }), RangeError, 'out'],
  ['debertaBuckets', () => posenc.debertaBuckets({ queryLength: 4, out: new Uint32Array(16) }), TypeError, 'out'],
  ['debertaBuckets', () => posenc.debertaBuckets({ queryLength: 4, queryOffset: 1 }), TypeError, 'queryOffset'],
  ['transformerXLEmbedding', () => posenc.transformerXLEmbedding({ keyLength: 4, dModel: 7 }), RangeError, 'dModel'],
  ['transformerXLEmbedding', () => posenc.transformerXLEmbedding({ keyLength: 4, dModel: 0 }), RangeError, 'dModel'],
  ['transformerXLEmbedding', () => posenc.transformerXLEmbedding({ keyLength: 4 }), TypeError, 'dModel'],
  ['transformerXLEmbedding', () => posenc.transformerXLEmbedding({ keyLength: -4, dModel: 8 }), RangeError, 'keyLength'],
  ['transformerXLEmbedding', () => posenc.transformerXLEmbedding({ keyLength: 4, dModel: 8, clampLength: -1 }), RangeError, 'clampLength'],
  ['transformerXLEmbedding', () => posenc.transformerXLEmbedding({ keyLength: 4, dModel: 8, clampLength: 2.5 }), RangeError, 'clampLength'],
  ['transformerXLEmbedding', () => posenc.transformerXLEmbedding({ keyLength: 4, dModel: 8, clampLength: '2' }), TypeError, 'clampLength'],
  ['transformerXLEmbedding', () => posenc.transformerXLEmbedding({ keyLength: 2 ** 30, dModel: 2 }), RangeError, 'keyLength * dModel'],
  ['transformerXLEmbedding', () => posenc.transformerXLEmbedding({ keyLength: 4, dModel: 8, out: new Float32Array(31) }), RangeError, 'out'],
  ['transformerXLEmbedding', () => posenc.transformerXLEmbedding({ keyLength: 4, dModel: 8, out: new Float64Array(32) }), TypeError, 'out'],
];

describe('bad input', () => {
  test.each(CASES.map(([fn, call, Err, name], i) => [i, fn, Err.name, name, call, Err]))(
    '#%i %s: %s naming %s',
    (_, fn, __, name, call, Err) => {
      const before = posenc.memoryStats().allocatedBytes;
      const e = thrown(call);
      expect(e).toBeInstanceOf(Err);
      expect(e.message).toContain(`posenc.${fn}`);
      expect(e.message).toContain(name);
      expect(posenc.memoryStats().allocatedBytes).toBe(before);
    },
  );

  test("a failed call leaves the caller's arrays untouched", () => {
    const out = new Float32Array(2 * 4 * 4).fill(7);
    const w = weights(64);
    const wCopy = w.slice();
    expect(() => posenc.t5Bias({ queryLength: 4, heads: 2, weights: w, numBuckets: 31, out })).toThrow(RangeError);
    expect(() => posenc.t5Bias({ queryLength: 4, heads: 2, weights: w.subarray(1), out })).toThrow(RangeError);
    expect(() => posenc.alibiBias({ heads: 2, queryLength: 4, queryOffset: -1, out })).toThrow(RangeError);
    expect(() => posenc.transformerXLEmbedding({ keyLength: 4, dModel: 7, out: out.subarray(0, 28) })).toThrow(RangeError);
    expect(out.every((v) => v === 7)).toBe(true);
    expect(w).toEqual(wCopy);
    const ints = new Int32Array(16).fill(-5);
    expect(() => posenc.t5Buckets({ queryLength: 4, maxDistance: 8, out: ints })).toThrow(RangeError);
    expect(() => posenc.debertaBuckets({ queryLength: 4, maxPosition: 100, out: ints })).toThrow(RangeError);
    expect(ints.every((v) => v === -5)).toBe(true);
  });

  test('t5Bias: out may not be weights itself in wasm memory; views of a WasmArray are refused', () => {
    const block = posenc.allocate('float32', 64);
    const other = posenc.allocate('float32', 64);
    try {
      block.array.set(weights(64));
      // [heads][4][8] = 64 floats over [numBuckets][heads] = 64 floats: the same array
      const e = thrown(() => posenc.t5Bias({ queryLength: 4, keyLength: 8, heads: 2, weights: block, out: block }));
      expect(e).toBeInstanceOf(RangeError);
      expect(e.message).toMatch(/posenc\.t5Bias: out and weights must not share memory/);
      const view = thrown(() => posenc.t5Bias({ queryLength: 4, heads: 2, weights: block.array }));
      expect(view).toBeInstanceOf(TypeError);
      expect(view.message).toMatch(/weights is a view of posenc's wasm memory/);
      // two WasmArrays are fine
      const out = posenc.t5Bias({ queryLength: 4, keyLength: 8, heads: 2, weights: block, out: other });
      expect(Array.from(out.array)).toEqual(Array.from(posenc.t5Bias({ queryLength: 4, keyLength: 8, heads: 2, weights: weights(64) })));
    } finally {
      block.free();
      other.free();
    }
  });
});
