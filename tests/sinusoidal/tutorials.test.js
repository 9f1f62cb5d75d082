// labml.ai's annotated implementation and the JAX/Flax tutorial: their tables, by their own formulas in double.
import { posenc, maxError, ULP1 } from '../helpers.js';

beforeAll(() => posenc.init());

test('labml get_positional_encoding(20, 100): frequencies by exp(2i * -ln(10000)/d) agree to 2^-23', () => {
  const d = 20;
  const L = 100;
  const t = posenc.sinusoidal({ length: L, dModel: d });
  const labml = (idx) => {
    const p = Math.floor(idx / d);
    const k = idx % d;
    const divTerm = Math.exp((k - (k % 2)) * -(Math.log(10000) / d));
    return k % 2 ? Math.cos(p * divTerm) : Math.sin(p * divTerm);
  };
  expect(maxError(t, labml)).toBeLessThanOrEqual(ULP1);
});

test("labml's plot: dims 4..7 over 100 positions, [max_len, 1, d_model] order via addSinusoidal('sbd')", () => {
  // labml adds the table to x of shape [seq, batch, d_model]
  const d = 20;
  const seq = 100;
  const batch = 3;
  const x = new Float32Array(seq * batch * d);
  posenc.addSinusoidal(x, { dModel: d, batch, order: 'sbd' });
  const t = posenc.sinusoidal({ length: seq, dModel: d });
  for (let s = 0; s < seq; s += 7) {
    for (let b = 0; b < batch; b++) {
      for (const k of [4, 5, 6, 7]) expect(x[(s * batch + b) * d + k]).toBe(t[s * d + k]);
    }
  }
});

test('JAX compute_positional_encoding(64, 100): first values (0, 0.84147096, 0.9092974)', () => {
  const pe = posenc.sinusoidal({ length: 100, dModel: 64 });
  expect(pe.length).toBe(1 * 100 * 64); // shape (1, max_seq_len, d_model)
  expect([pe[0], pe[64], pe[128]]).toEqual([0, Math.fround(0.84147096), Math.fround(0.9092974)]);
});

test('JAX relative positions rpe = j - i + max_seq_len for max_seq_len 50', () => {
  const n = 50;
  const rpe = posenc.relativePositions({ queryLength: n, shift: n });
  expect(rpe.length).toBe(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) expect(rpe[i * n + j]).toBe(j - i + n);
  expect(Math.min(...rpe)).toBe(1);
  expect(Math.max(...rpe)).toBe(2 * n - 1);
});
