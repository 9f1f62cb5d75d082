// Parity with transformers' float32 RoPE pipeline (tools/reference/make_float32_parity.py
// ran it in torch 1.13: inv_freq formed in float32 with torch's own pow, the angle
// inv_freq * p as one float32 product, cos and sin in float32, times the attention
// factor in float32). posenc's default computes the exact values instead (angles in
// double, one rounding), and differs from that pipeline by what float32 angles lose:
// up to ~1e-2 at position 131071. Given the model's own inv_freq buffer (invFreq) and
// precision 'float32', posenc follows the pipeline to within the rounding of float32
// cos and sin (torch's and posenc's each within an ulp of the result): 2 ulps of the
// attention factor A, A * 2^-22. The fixture's LongRoPE rows are transformers' short
// factors (its buffer at init): posenc is given the same regime (seqLength = original).
import { readFileSync } from 'node:fs';
import { posenc, thrown } from '../helpers.js';

const fixtures = new URL('../fixtures/', import.meta.url);
const parity = JSON.parse(readFileSync(new URL('reference-rope/float32-parity.json', fixtures)));
const configOf = (file) => JSON.parse(readFileSync(new URL(`hf-configs/${file}`, fixtures)));

await posenc.init(); // ropeFromConfig checks its result in C: the describe blocks below call it

/** The largest |posenc - torch| over the sampled columns of a cache. */
function gap(cache, row, half) {
  let worst = 0;
  row.positions.forEach((_, p) => row.dims.forEach((k, j) => {
    const i = p * row.dims.length + j;
    worst = Math.max(worst, Math.abs(cache.cos[p * half + k] - row.cos[i]), Math.abs(cache.sin[p * half + k] - row.sin[i]));
  }));
  return worst;
}

describe.each(parity.rows.map((row) => [`${row.config} (${row.kind})`, row]))('%s', (_name, row) => {
  const read = posenc.ropeFromConfig(configOf(row.config));
  // LongRoPE: the short factors, as the fixture's buffer holds them
  const r = read.scaling?.type === 'longrope' ? { ...read, scaling: { ...read.scaling, seqLength: read.scaling.originalMaxPositionEmbeddings } } : read;
  const positions = Int32Array.from(row.positions);
  const half = r.rotaryDim / 2;

  test("invFreq (the model's float32 buffer) with precision 'float32' follows transformers' float32 pipeline", () => {
    const cache = posenc.ropeCache({ ...r, invFreq: Float32Array.from(row.invFreq32), precision: 'float32', positions });
    const worst = gap(cache, row, half);
    console.log(`${row.config}: float32 pipeline ${worst.toExponential(2)}`);
    expect(worst).toBeLessThanOrEqual(Math.max(1, row.attentionFactor) * 2 ** -22);
  });

  test('posenc\'s default (exact values) and float32 recipe differ from that pipeline by what its float32 angles lose', () => {
    const exact = gap(posenc.ropeCache({ ...r, positions }), row, half);
    const recipe = gap(posenc.ropeCache({ ...r, precision: 'float32', positions }), row, half);
    console.log(`${row.config}: vs float64 ${exact.toExponential(2)}, vs posenc's float32 recipe ${recipe.toExponential(2)}`);
    // an angle of ~1.3e5 radians in float32 is off by up to half an ulp, 2^-8: far more than 2^-23
    expect(exact).toBeLessThan(2e-2);
    expect(recipe).toBeLessThan(2e-2);
  });
});

test('invFreq is checked: its length, finite numbers, and not with rope2d', () => {
  const bad = [
    [() => posenc.ropeCache({ rotaryDim: 8, length: 2, invFreq: [1, 2, 3] }), RangeError, /invFreq must have rotaryDim \/ 2 = 4 values, got 3/],
    [() => posenc.ropeCache({ rotaryDim: 8, length: 2, invFreq: [1, 2, NaN, 4] }), RangeError, /invFreq\[2\] must be a finite number/],
    [() => posenc.ropeCache({ rotaryDim: 8, length: 2, invFreq: 'fast' }), TypeError, /invFreq must be a Float32Array, Float64Array or Array/],
    [() => posenc.ropeCache({ rotaryDim: 8, rope2d: "axial", grid: { height: 1, width: 2 }, invFreq: [1, 2, 3, 4] }), RangeError, /rope2d arranges the frequencies of base alone: no scaling, no invFreq/],
  ];
  for (const [call, Err, message] of bad) {
    const error = thrown(call);
    expect(error).toBeInstanceOf(Err);
    expect(error.message).toMatch(message);
  }
});
