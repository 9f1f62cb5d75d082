// posenc's encoder against PyTorch's own nn.TransformerEncoder
// (tests/fixtures/reference-torch/encoder.json, tools/reference/torch_encoder.py):
// the module run in float64 on float32 weights, with what the trained copy-task
// models (pre-norm, GELU, final norm, causal; tests/encoder/trained-models.test.js) leave out:
// post-norm, ReLU, the tanh GELU, padding masks, bidirectional attention, and the
// ALiBi (MPT's build_alibi_bias) and T5 (HF's compute_bias) biases passed as the
// float attention mask. posenc reads the state_dict's names unchanged.
import { readFileSync } from 'node:fs';
import { posencEncoder as posenc } from '../helpers.js';

const fixture = JSON.parse(readFileSync(new URL('../fixtures/reference-torch/encoder.json', import.meta.url)));

beforeAll(() => posenc.init());

const maxAbs = (a) => a.reduce((m, v) => Math.max(m, Math.abs(v)), 0);

// posenc computes every product in float32 (dot products of at most dFF = 16 terms, each
// rounding within 16u ~ 1e-6 relative of its sum of magnitudes) and its statistics in double;
// include/posenc.h states its forward pass within ~1e-6 of the same maths in double. torch's
// float64 run is that maths, on the same float32 weights; torch's own float32 run
// (outputFloat32) lands within 2.6e-7 of it. Allowed: twice the header's 1e-6, of the largest
// output.
const TOLERANCE = 2e-6;

describe('nn.TransformerEncoder (float64) against createEncoder(...).forward', () => {
  test('the fixture covers post- and pre-norm, every activation, padding, causal, ALiBi and T5', () => {
    const cases = fixture.cases;
    expect(new Set(cases.map((c) => c.config.norm))).toEqual(new Set(['pre', 'post']));
    expect(new Set(cases.map((c) => c.config.activation))).toEqual(new Set(['relu', 'gelu', 'gelu_tanh']));
    expect(new Set(cases.map((c) => c.config.positional.type))).toEqual(new Set(['none', 'alibi', 't5']));
    expect(cases.some((c) => c.masks?.flat().includes(0))).toBe(true);
    expect(new Set(cases.map((c) => c.causal))).toEqual(new Set([true, false]));
  });

  test.each(fixture.cases.map((c) => [c.name, c]))('%s', (_name, c) => {
    const tensors = Object.fromEntries(Object.entries(c.tensors).map(([name, t]) => [name, { shape: t.shape, data: Float32Array.from(t.data) }]));
    const encoder = posenc.createEncoder({ ...c.config, weights: tensors });
    const d = c.config.dModel;
    const seq = c.tokens[0].length;
    const scale = maxAbs(c.output);
    let worst = 0;
    let worst32 = 0;
    c.tokens.forEach((tokens, b) => {
      const out = encoder.forward(tokens, { causal: c.causal, mask: c.masks?.[b] });
      expect(out.length).toBe(seq * d);
      out.forEach((v, i) => {
        const want = c.output[b * seq * d + i];
        worst = Math.max(worst, Math.abs(v - want));
        worst32 = Math.max(worst32, Math.abs(Math.fround(c.outputFloat32[b * seq * d + i]) - want));
      });
    });
    encoder.dispose();
    console.log(`${c.name}: posenc ${(worst / scale).toExponential(1)}, torch float32 ${(worst32 / scale).toExponential(1)} of the largest output`);
    expect(worst).toBeLessThanOrEqual(TOLERANCE * scale);
  });
});
