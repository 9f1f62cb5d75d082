// The PyTorch notebook "Positional Encoding in Transformer neural networks": every tensor it prints,
// reproduced through posenc's API to the notebook's 4 printed decimals.
import { readFileSync } from 'node:fs';
import { posenc } from '../helpers.js';

const nb = JSON.parse(readFileSync(new URL('../fixtures/notebook-outputs.json', import.meta.url)));
const d = 6;
const L = 10;
const PRINTED = 0.5e-4; // half a unit in the 4th decimal

beforeAll(() => posenc.init());

const table = () => posenc.sinusoidal({ length: L, dModel: d });
const columns = (t, first) => Array.from({ length: L * 3 }, (_, i) => t[Math.floor(i / 3) * d + first + 2 * (i % 3)]);

test('even_i: the sine columns 0, 2, 4, recovered from the frequencies w_i = 10000^(-2i/d)', () => {
  const w = posenc.sinusoidalFrequencies({ dModel: d });
  const evenI = Array.from(w, (wi) => (-Math.log(wi) / Math.log(10000)) * d);
  expect(evenI.length).toBe(nb.even_i.length);
  evenI.forEach((v, i) => expect(v).toBeCloseTo(nb.even_i[i], 12));
  nb.odd_i.forEach((v, i) => expect(v - 1).toBe(nb.even_i[i])); // odd_i - 1 == even_i
});

test('denominator = 1 / w_i; the printed 464.1590 is float32 arithmetic, the exact value is 464.1589', () => {
  const den = Array.from(posenc.sinusoidalFrequencies({ dModel: d }), (w) => 1 / w);
  expect(Math.abs(den[0] - nb.denominator[0])).toBeLessThanOrEqual(PRINTED);
  expect(Math.abs(den[1] - nb.denominator[1])).toBeLessThanOrEqual(PRINTED);
  // torch.pow(10000, even_i/d_model) rounds 4/6 to float32 first: 10000^0.6666667 = 464.15897
  const float32Recipe = Math.fround(Math.pow(10000, Math.fround(Math.fround(4) / 6)));
  expect(float32Recipe.toFixed(4)).toBe('464.1590');
  expect(nb.denominator[2].toFixed(4)).toBe('464.1590');
  // posenc keeps the exact 10000^(2/3) = 464.158883...
  expect(Math.abs(den[2] - Math.pow(10000, 2 / 3)) / den[2]).toBeLessThan(1e-15);
  expect(den[2].toFixed(4)).toBe('464.1589');
});

test('position is the column 0..9 (row r of the table is position r)', () => {
  expect(nb.position).toEqual(Array.from({ length: L }, (_, i) => i));
  // row r of a table at offset o equals row r + o of the table at offset 0
  const t = table();
  const shifted = posenc.sinusoidal({ length: L - 3, dModel: d, offset: 3 });
  expect(Array.from(shifted)).toEqual(Array.from(t.subarray(3 * d)));
});

test('even_PE and odd_PE: the even and odd columns, shape [10, 3]', () => {
  const t = table();
  const even = columns(t, 0);
  const odd = columns(t, 1);
  expect([even.length / 3, 3]).toEqual(nb.even_PE_shape);
  expect([odd.length / 3, 3]).toEqual(nb.odd_PE_shape);
  even.forEach((v, i) => expect(Math.abs(v - nb.even_PE[i])).toBeLessThanOrEqual(PRINTED));
  odd.forEach((v, i) => expect(Math.abs(v - nb.odd_PE[i])).toBeLessThanOrEqual(PRINTED));
});

test('stacked [10, 3, 2] flattened is PE [10, 6]: interleaved sin/cos', () => {
  const t = table();
  expect(t.length).toBe(nb.stacked_shape.reduce((a, b) => a * b));
  expect(t.length).toBe(nb.PE.length);
  t.forEach((v, i) => expect(Math.abs(v - nb.PE[i])).toBeLessThanOrEqual(PRINTED));
  // the notebook's class prints the same table
  expect(nb.PE_class_forward).toEqual(nb.PE);
});

test('printed with 4 decimals, posenc gives the notebook text character for character', () => {
  const t = table();
  // torch prints -0.0000 for tiny negatives; the table has none at these sizes
  const text = Array.from(t, (v) => v.toFixed(4));
  const printed = nb.PE.map((v) => v.toFixed(4));
  expect(text).toEqual(printed);
});
