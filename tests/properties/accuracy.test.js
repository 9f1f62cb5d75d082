// The accuracy contract: every value within 2^-23 of its formula in double,
// at every position up to 2^20, for several widths, bases and layouts.
import { posenc, maxError, vaswani, ULP1 } from '../helpers.js';

beforeAll(() => posenc.init());

const formulas = {
  interleaved: (p, k, d, base) => vaswani(p, k, d, base),
  concatenated: (p, k, d, base) => {
    const nSin = Math.ceil(d / 2);
    const i = k < nSin ? k : k - nSin;
    const w = Math.pow(base, (-2 * i) / d);
    return k < nSin ? Math.sin(p * w) : Math.cos(p * w);
  },
  tensor2tensor: (p, k, d, base) => {
    const h = Math.floor(d / 2);
    if (k >= 2 * h) return 0;
    const i = k < h ? k : k - h;
    const w = Math.exp((-i * Math.log(base)) / Math.max(h - 1, 1));
    return k < h ? Math.sin(p * w) : Math.cos(p * w);
  },
};
formulas.fairseq = formulas.tensor2tensor;

describe.each([
  [64, 10000],
  [127, 10000],
  [512, 10000],
  [128, 500000],
  [96, 1e6],
  [40, 2],
])('dModel %i, base %d', (d, base) => {
  test.each(Object.keys(formulas))('%s: dense blocks of rows up to 2^20', (layout) => {
    // blocks of consecutive rows spread over [0, 2^20]: every anchor/recurrence phase
    for (const offset of [0, 4093, 65536, 2 ** 19 + 17, 2 ** 20 - 200]) {
      const length = 200;
      const t = posenc.sinusoidal({ length, dModel: d, base, offset, layout });
      const err = maxError(t, (idx) => formulas[layout](offset + Math.floor(idx / d), idx % d, d, base));
      expect(err).toBeLessThanOrEqual(ULP1);
    }
  });
});

test('every row from 0 to 2^20 for a narrow table (d = 8)', () => {
  const d = 8;
  const length = 2 ** 20 + 1;
  const t = posenc.sinusoidal({ length, dModel: d });
  const err = maxError(t, (idx) => vaswani(Math.floor(idx / d), idx % d, d));
  expect(err).toBeLessThanOrEqual(ULP1);
});

// Position 0 is an anchor of the recurrence: computed, not stepped to, so
// sin 0 and cos 0 print as 0 and 1, not 1.1102e-16 and 1 - 1.1e-16.
test('position 0 is exactly sin 0 = 0, cos 0 = 1, whichever way a table walks through it', () => {
  const d = 8;
  const zeroRow = (t, row, sines) => Array.from(t.subarray(row * d, (row + 1) * d)).map((v, k) => (sines(k) ? v : v - 1));
  const isZero = (values) => values.every((v) => Object.is(v, 0));
  const interleavedSine = (k) => k % 2 === 0;
  const concatenatedSine = (k) => k < d / 2;
  for (const offset of [-1, -5, -1023, -1025, -3000]) {
    for (const layout of ['interleaved', 'concatenated', 'tensor2tensor', 'fairseq']) {
      const t = posenc.sinusoidal({ length: 1 - offset + 3, dModel: d, offset, layout });
      expect(isZero(zeroRow(t, -offset, layout === 'interleaved' ? interleavedSine : concatenatedSine))).toBe(true);
    }
    const x = posenc.addSinusoidal(new Float32Array(2 * (4 - offset) * d), { batch: 2, dModel: d, offset });
    expect(isZero(zeroRow(x, -offset, interleavedSine))).toBe(true);
    expect(isZero(zeroRow(x, 4 - offset - offset, interleavedSine))).toBe(true); // the second batch
  }
  for (const keyLength of [2, 5, 1025, 3000]) {
    for (const clampLength of [0, 3]) {
      const t = posenc.transformerXLEmbedding({ keyLength, dModel: d, clampLength });
      expect(isZero(zeroRow(t, keyLength - 1, concatenatedSine))).toBe(true);
    }
  }
  const { cos, sin } = posenc.ropeCache({ length: 2000, offset: -1500, rotaryDim: d });
  expect(isZero(Array.from(sin.subarray(1500 * 4, 1501 * 4)))).toBe(true);
  expect(Array.from(cos.subarray(1500 * 4, 1501 * 4))).toEqual([1, 1, 1, 1]);
});

test('the naive float32 recipe sin(f32(p) * f32(w)) fails the same bound at long positions', () => {
  const d = 64;
  const offset = 2 ** 20 - 100;
  const f = Math.fround;
  let naiveWorst = 0;
  for (let r = 0; r < 100; r++) {
    const p = offset + r;
    for (let k = 0; k < d; k++) {
      const w = f(Math.pow(10000, -(k - (k % 2)) / d));
      const angle = f(f(p) * w);
      const naive = f(k % 2 ? Math.cos(angle) : Math.sin(angle));
      naiveWorst = Math.max(naiveWorst, Math.abs(naive - vaswani(p, k, d)));
    }
  }
  expect(naiveWorst).toBeGreaterThan(1e-3); // ~8000x over the 2^-23 contract
  const t = posenc.sinusoidal({ length: 100, dModel: d, offset });
  expect(maxError(t, (idx) => vaswani(offset + Math.floor(idx / d), idx % d, d))).toBeLessThanOrEqual(ULP1);
});

test('addSinusoidal forms x * scale + PE in float32 from the float32 table value', () => {
  const d = 33;
  const seq = 40;
  const batch = 2;
  const scale = Math.sqrt(d);
  for (const order of ['bsd', 'sbd']) {
    const x = Float32Array.from({ length: batch * seq * d }, (_, i) => Math.sin(i * 0.37) * 3);
    const before = x.slice();
    const pe = posenc.sinusoidal({ length: seq, dModel: d, offset: 5 });
    // the table added is the formula's (within the contract), and it is added exactly once
    expect(maxError(pe, (idx) => vaswani(5 + Math.floor(idx / d), idx % d, d))).toBeLessThanOrEqual(ULP1);
    posenc.addSinusoidal(x, { dModel: d, batch, order, scale, offset: 5 });
    for (let b = 0; b < batch; b++) {
      for (let s = 0; s < seq; s++) {
        for (let k = 0; k < d; k++) {
          const at = order === 'bsd' ? (b * seq + s) * d + k : (s * batch + b) * d + k;
          expect(x[at]).toBe(Math.fround(Math.fround(before[at] * Math.fround(scale)) + pe[s * d + k]));
        }
      }
    }
  }
});
