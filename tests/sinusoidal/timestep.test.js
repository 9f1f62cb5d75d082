// timestepEmbedding: diffusers' get_timestep_embedding (tests/fixtures/reference.json,
// written from diffusers embeddings.py and cross-checked against DiT's
// TimestepEmbedder) and the formula in double at real timesteps.
import { readFileSync } from 'node:fs';
import { posenc, maxError, thrown, ULP1 } from '../helpers.js';

const ref = JSON.parse(readFileSync(new URL('../fixtures/reference.json', import.meta.url)));

beforeAll(() => posenc.init());

/** posenc.h's formula in double. */
function formula({ timesteps, dim, flipSinToCos = false, downscaleFreqShift = 1, scale = 1, maxPeriod = 10000 }) {
  const half = Math.floor(dim / 2);
  return (idx) => {
    const t = timesteps[Math.floor(idx / dim)];
    const k = idx % dim;
    if (k >= 2 * half) return 0;
    const j = k % half;
    const w = Math.exp((-Math.log(maxPeriod) * j) / (half - downscaleFreqShift));
    const isSin = (k < half) !== flipSinToCos;
    return isSin ? Math.sin(scale * t * w) : Math.cos(scale * t * w);
  };
}

test.each(ref.timestepEmbedding.map((c) => [c.name, c]))('reference: %s', (_name, { name, embedding, ...options }) => {
  for (const timesteps of [options.timesteps, Float64Array.from(options.timesteps)]) {
    const e = posenc.timestepEmbedding({ ...options, timesteps });
    const flat = embedding.flat();
    expect(e.length).toBe(flat.length);
    expect(maxError(e, (i) => flat[i])).toBeLessThanOrEqual(ULP1);
  }
});

test('Float32Array timesteps are their float values, exactly converted', () => {
  const ts = Float32Array.from([0.1, 333.3, 999.9]);
  const a = posenc.timestepEmbedding({ timesteps: ts, dim: 64 });
  const b = posenc.timestepEmbedding({ timesteps: Array.from(ts), dim: 64 });
  expect(a).toEqual(b);
  expect(maxError(a, formula({ timesteps: Array.from(ts), dim: 64 }))).toBeLessThanOrEqual(ULP1);
});

test('within 2^-23 of the formula: random real timesteps, every option, wide embeddings', () => {
  let s = 12345;
  const rand = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
  for (const [dim, flipSinToCos, downscaleFreqShift, scale, maxPeriod] of [
    [320, true, 0, 1, 10000], [257, false, 1, 1, 10000], [1024, true, 0.5, 3.5, 50000], [6, false, -2, 1000, 2], [2, true, 0, 1, 10000],
  ]) {
    const timesteps = Array.from({ length: 40 }, () => (rand() - 0.1) * 1000);
    const options = { timesteps, dim, flipSinToCos, downscaleFreqShift, scale, maxPeriod };
    expect(maxError(posenc.timestepEmbedding(options), formula(options))).toBeLessThanOrEqual(ULP1);
  }
});

test('every integer timestep of a 1000-step schedule and runs of 5000: the recurrence stays exact', () => {
  for (const timesteps of [Array.from({ length: 1000 }, (_, t) => t), Array.from({ length: 5000 }, (_, t) => 2 ** 20 - t)]) {
    const options = { timesteps, dim: 64, flipSinToCos: true, downscaleFreqShift: 0 };
    expect(maxError(posenc.timestepEmbedding(options), formula(options))).toBeLessThanOrEqual(ULP1);
  }
});

test('at integer timesteps, shift 1 is the tensor2tensor table and shift 0 the concatenated one, bit for bit', () => {
  const timesteps = Array.from({ length: 50 }, (_, t) => 3 * t);
  for (const dim of [4, 9, 64]) {
    const t2t = posenc.timestepEmbedding({ timesteps, dim, maxPeriod: 5000 });
    for (let r = 0; r < timesteps.length; r++) {
      const row = posenc.sinusoidal({ length: 1, dModel: dim, offset: timesteps[r], layout: 'tensor2tensor', base: 5000 });
      expect(Array.from(t2t.subarray(r * dim, (r + 1) * dim))).toEqual(Array.from(row));
    }
  }
  const consecutive = Array.from({ length: 300 }, (_, t) => t + 7);
  const table = posenc.sinusoidal({ length: 300, dModel: 32, offset: 7, layout: 'concatenated' });
  expect(posenc.timestepEmbedding({ timesteps: consecutive, dim: 32, downscaleFreqShift: 0 })).toEqual(table);
});

test('flipSinToCos swaps the halves; an odd dim ends on zeros', () => {
  const timesteps = [0.5, 17, 999];
  const a = posenc.timestepEmbedding({ timesteps, dim: 9 });
  const b = posenc.timestepEmbedding({ timesteps, dim: 9, flipSinToCos: true });
  for (let r = 0; r < 3; r++) {
    const ra = Array.from(a.subarray(r * 9, r * 9 + 9));
    const rb = Array.from(b.subarray(r * 9, r * 9 + 9));
    expect(rb).toEqual([...ra.slice(4, 8), ...ra.slice(0, 4), 0]);
    expect(ra[8]).toBe(0);
  }
  expect(Array.from(posenc.timestepEmbedding({ timesteps: [3, 4], dim: 1 }))).toEqual([0, 0]);
});

test('empty timesteps, out filled and returned, a WasmArray out', () => {
  expect(posenc.timestepEmbedding({ timesteps: [], dim: 8 }).length).toBe(0);
  const out = new Float32Array(16);
  expect(posenc.timestepEmbedding({ timesteps: [1, 2], dim: 8, out })).toBe(out);
  const wa = posenc.allocate('float32', 16);
  expect(posenc.timestepEmbedding({ timesteps: [1, 2], dim: 8, out: wa })).toBe(wa);
  expect(Array.from(wa.array)).toEqual(Array.from(out));
  wa.free();
});

test('a zero divisor and overflowing angles are RangeErrors; nothing is written, nothing leaks', () => {
  const before = posenc.memoryStats();
  const out = new Float32Array(8).fill(7);
  const zero = thrown(() => posenc.timestepEmbedding({ timesteps: [1], dim: 8, downscaleFreqShift: 4, out }));
  expect(zero).toBeInstanceOf(RangeError);
  expect(zero.message).toContain('downscaleFreqShift must differ from floor(dim / 2) = 4');
  const huge = thrown(() => posenc.timestepEmbedding({ timesteps: [1e300], dim: 8, scale: 1e10, out }));
  expect(huge).toBeInstanceOf(RangeError);
  expect(huge.message).toContain('overflows');
  // w_k itself overflows: exp(ln(10000) * 99 / (1 - ...)) with a shift just above half
  const wide = thrown(() => posenc.timestepEmbedding({ timesteps: [0], dim: 200, downscaleFreqShift: 100.01, out: new Float32Array(200) }));
  expect(wide).toBeInstanceOf(RangeError);
  expect(Array.from(out)).toEqual(Array(8).fill(7));
  expect(posenc.memoryStats()).toEqual(before);
});
