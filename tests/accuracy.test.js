// The accuracy contract: every value within 2^-23 of its formula in double,
// at every position up to 2^20, for several widths, bases and layouts.
import { posenc, maxError, vaswani, ULP1 } from './helpers.js';

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
