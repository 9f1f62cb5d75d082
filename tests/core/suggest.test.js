// The hint after an unknown name (src/js/core/suggest.js), shared by the JS
// option readers and the CLI: a typo gets "did you mean", a whole Hugging
// Face config.json given where options go names the reader that takes it.
// Also the article before a type's name: "an Int32Array", "an 'int32' WasmArray".
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { closest, unknownOptionHint } from '../../src/js/core/suggest.js';
import { posenc, posencEncoder, thrown } from '../helpers.js';

beforeAll(() => Promise.all([posenc.init(), posencEncoder.init()]));

describe('closest', () => {
  const known = ['length', 'dModel', 'base', 'offset', 'layout', 'out'];
  test.each([
    ['dmodel', 'dModel'], ['d_model', 'dModel'], ['d-model', 'dModel'], ['DMODEL', 'dModel'],
    ['lenght', 'length'], ['lengh', 'length'], ['lenth', 'length'], ['layuot', 'layout'], ['offest', 'offset'],
    ['bsae', 'base'], ['bas', 'base'], ['ot', 'out'],
  ])('%s -> %s', (typo, name) => {
    expect(closest(typo, known)).toBe(name);
  });
  test.each(['theta', 'heads', 'x', 'dim', 'architectures', ''])('%p: nothing close', (name) => {
    expect(closest(name, known)).toBeUndefined();
  });
});

describe('the JS option readers say "did you mean"', () => {
  test.each([
    ['sinusoidal', () => posenc.sinusoidal({ length: 2, dmodel: 4 }), "unknown option 'dmodel' (known: length, dModel, base, offset, layout, out): did you mean 'dModel'?"],
    ['ropeCache', () => posenc.ropeCache({ rotaryDim: 4, lenght: 2 }), "did you mean 'length'?"],
    ['applyRope', () => posenc.applyRope(new Float32Array(8), { heads: 1, headDim: 8, ofset: 1 }), "did you mean 'offset'?"],
    ['alibiBias', () => posenc.alibiBias({ heads: 2, query_length: 2 }), "did you mean 'queryLength'?"],
    ['createEncoder', () => posencEncoder.createEncoder({ vocabSize: 4, dModel: 4, heads: 1, dFF: 4, layers: 1, weigths: { seed: 1 } }), "did you mean 'weights'?"],
    ['init', () => posenc.init({ wsam: new Uint8Array(0) }), "did you mean 'wasm'?"],
  ])('%s', async (_fn, call, text) => {
    const e = await Promise.resolve().then(call).then(() => null, (error) => error);
    expect(e).toBeInstanceOf(TypeError);
    expect(e.message).toContain(text);
  });
  test('tagged options (a scaling, a positional scheme) too, named with their prefix', () => {
    expect(thrown(() => posenc.ropeCache({ rotaryDim: 8, length: 2, scaling: { type: 'linear', factr: 2 } })).message)
      .toMatch(/unknown option 'scaling\.factr' for scaling type 'linear' \(known: type, factor, maxPositionEmbeddings\): did you mean 'scaling\.factor'\?$/);
    expect(thrown(() => posencEncoder.createEncoder({ vocabSize: 4, dModel: 4, heads: 1, dFF: 4, layers: 1, positional: { type: 'alibi', maxbias: 4 }, weights: { seed: 1 } })).message)
      .toMatch(/did you mean 'positional\.maxBias'\?$/);
  });
  test('no hint when nothing is close', () => {
    expect(thrown(() => posenc.sinusoidal({ length: 2, dModel: 4, theta: 5 })).message).toMatch(/\(known: length, dModel, base, offset, layout, out\)$/);
  });
});

describe("a whole config.json given where options go names the function that reads one", () => {
  const llama = {
    architectures: ['LlamaForCausalLM'], model_type: 'llama', hidden_size: 4096, num_attention_heads: 32, rope_theta: 500000,
    rope_scaling: { rope_type: 'llama3', factor: 8, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 8192 },
  };
  test.each([
    ['ropeCache', () => posenc.ropeCache(llama), 'ropeFromConfig'],
    ['applyRope', () => posenc.applyRope(new Float32Array(8), llama), 'ropeFromConfig'],
    ['ropeFrequencies', () => posenc.ropeFrequencies(llama), 'ropeFromConfig'],
    ['alibiBias', () => posenc.alibiBias({ n_head: 8, alibi: true, model_type: 'bloom', hidden_size: 64 }), 'alibiFromConfig'],
  ])('%s', (fn, call, reader) => {
    const e = thrown(call);
    expect(e).toBeInstanceOf(TypeError);
    expect(e.message).toMatch(new RegExp(`^posenc\\.${fn}: unknown option '\\w+' \\(known: .*\\): that is a Hugging Face config\\.json, which ${fn} does not read: pass \\{ \\.\\.\\.${reader}\\(config\\), \\.\\.\\. \\}`));
  });
  test('the advice works: ropeCache({ ...ropeFromConfig(config), length })', () => {
    const { cos } = posenc.ropeCache({ ...posenc.ropeFromConfig(llama), length: 2 });
    expect(cos.length).toBe(2 * 64);
  });
  test('elsewhere the hint names the readers', () => {
    expect(unknownOptionHint('sinusoidal', 'architectures', ['length'], ['architectures'])).toMatch(/ropeFromConfig, alibiFromConfig and queryScalesFromConfig/);
  });
});

test('the CLI uses the same helper: a flag within two edits gets "did you mean"', () => {
  const cli = fileURLToPath(new URL('../../bin/posenc.js', import.meta.url));
  const r = spawnSync(process.execPath, [cli, 'sinusoidal', '--lenght', '4', '--d-model', '4'], { encoding: 'utf8' });
  expect(r.status).toBe(2);
  expect(r.stderr).toBe("posenc sinusoidal: unknown flag --lenght for 'sinusoidal' (did you mean --length?) (see 'posenc sinusoidal --help')\n");
  const c = spawnSync(process.execPath, [cli, 'sinusiodal', '--length', '4'], { encoding: 'utf8' });
  expect(c.status).toBe(2);
  expect(c.stderr).toMatch(/^posenc: unknown command 'sinusiodal' \(did you mean 'sinusoidal'\?/);
});

describe('a type name takes its article', () => {
  test.each([
    ['relativePositions out', () => posenc.relativePositions({ queryLength: 2, out: new Float32Array(4) }), "out must be an Int32Array or an 'int32' WasmArray, got Float32Array(4)"],
    ['applyRope positions', () => posenc.applyRope(new Float32Array(8), { heads: 1, headDim: 8, positions: new Float32Array(1) }), "positions must be an Int32Array or an 'int32' WasmArray"],
    ['sinusoidal out', () => posenc.sinusoidal({ length: 1, dModel: 2, out: new Int32Array(2) }), "out must be a Float32Array or a 'float32' WasmArray, got Int32Array(2)"],
  ])('%s', (_what, call, text) => {
    expect(thrown(call).message).toContain(text);
  });
});
