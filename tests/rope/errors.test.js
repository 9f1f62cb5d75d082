// RoPE bad inputs: every parameter gets a TypeError (wrong type) or RangeError
// (bad value or size) whose message names posenc.<fn> and the parameter; the
// caller's arrays are untouched and nothing leaks in the wasm heap.
import { posenc, posencEncoder, thrown } from '../helpers.js';

beforeAll(() => Promise.all([posenc.init(), posencEncoder.init()]));

const linear = { type: 'linear', factor: 2 };
const yarn = { type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 4096 };
const llama3 = { type: 'llama3', factor: 8, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPositionEmbeddings: 8192 };
const longrope = { type: 'longrope', shortFactor: [1, 1, 1, 1], longFactor: [2, 2, 2, 2], maxPositionEmbeddings: 8192, originalMaxPositionEmbeddings: 4096 };

// [label, options, error type, parameter named in the message]
const scalingCases = [
  ['scaling a string', { scaling: 'linear' }, TypeError, 'scaling'],
  ['scaling an array', { scaling: [] }, TypeError, 'scaling'],
  ['unknown type', { scaling: { type: 'ntk', factor: 2 } }, RangeError, 'scaling.type'],
  ['type not a string', { scaling: { type: 3 } }, TypeError, 'scaling.type'],
  ['type missing', { scaling: { factor: 2 } }, TypeError, 'scaling.type'],
  ['factor missing', { scaling: { type: 'linear' } }, TypeError, 'scaling.factor'],
  ['factor 0', { scaling: { ...linear, factor: 0 } }, RangeError, 'scaling.factor'],
  ['factor negative', { scaling: { ...linear, factor: -2 } }, RangeError, 'scaling.factor'],
  ['factor NaN', { scaling: { ...linear, factor: NaN } }, RangeError, 'scaling.factor'],
  ['factor Infinity', { scaling: { ...linear, factor: Infinity } }, RangeError, 'scaling.factor'],
  ['factor a string', { scaling: { ...linear, factor: '2' } }, TypeError, 'scaling.factor'],
  ['parameter of another type', { scaling: { ...linear, mscale: 1 } }, TypeError, 'scaling.mscale'],
  ['dynamic without maxPositionEmbeddings', { scaling: { type: 'dynamic', factor: 2 } }, TypeError, 'scaling.maxPositionEmbeddings'],
  ['maxPositionEmbeddings not an integer', { scaling: { type: 'dynamic', factor: 2, maxPositionEmbeddings: 10.5 } }, RangeError, 'scaling.maxPositionEmbeddings'],
  ['maxPositionEmbeddings 0', { scaling: { type: 'dynamic', factor: 2, maxPositionEmbeddings: 0 } }, RangeError, 'scaling.maxPositionEmbeddings'],
  ['seqLength negative', { scaling: { type: 'dynamic', factor: 2, maxPositionEmbeddings: 10, seqLength: -1 } }, RangeError, 'scaling.seqLength'],
  ['seqLength non-integer', { scaling: { type: 'dynamic', factor: 2, maxPositionEmbeddings: 10, seqLength: 1.5 } }, RangeError, 'scaling.seqLength'],
  ['yarn without original or max', { scaling: { type: 'yarn', factor: 4 } }, TypeError, 'scaling.originalMaxPositionEmbeddings'],
  ['yarn without factor or max', { scaling: { type: 'yarn', originalMaxPositionEmbeddings: 4096 } }, TypeError, 'scaling.factor'],
  ['yarn betaFast < betaSlow', { scaling: { ...yarn, betaFast: 1, betaSlow: 2 } }, RangeError, 'scaling.betaFast'],
  ['yarn betaSlow NaN', { scaling: { ...yarn, betaSlow: NaN } }, RangeError, 'scaling.betaSlow'],
  ['yarn mscale negative', { scaling: { ...yarn, mscale: -1, mscaleAllDim: 1 } }, RangeError, 'scaling.mscale'],
  ['yarn attentionFactor 0', { scaling: { ...yarn, attentionFactor: 0 } }, RangeError, 'scaling.attentionFactor'],
  ['yarn truncate a string', { scaling: { ...yarn, truncate: 'no' } }, TypeError, 'scaling.truncate'],
  ['llama3 lowFreqFactor > highFreqFactor', { scaling: { ...llama3, lowFreqFactor: 5 } }, RangeError, 'scaling.highFreqFactor'],
  ['llama3 highFreqFactor < lowFreqFactor', { scaling: { ...llama3, highFreqFactor: 0.5 } }, RangeError, 'scaling.highFreqFactor'],
  ['llama3 without lowFreqFactor', { scaling: { ...llama3, lowFreqFactor: undefined } }, TypeError, 'scaling.lowFreqFactor'],
  ['llama3 without originalMaxPositionEmbeddings', { scaling: { ...llama3, originalMaxPositionEmbeddings: undefined } }, TypeError, 'scaling.originalMaxPositionEmbeddings'],
  ['longrope factors of the wrong length', { scaling: { ...longrope, shortFactor: [1, 1, 1] } }, RangeError, 'scaling.shortFactor'],
  ['longrope factor 0', { scaling: { ...longrope, longFactor: [2, 0, 2, 2] } }, RangeError, 'scaling.longFactor[1]'],
  ['longrope factor a string', { scaling: { ...longrope, longFactor: [2, '2', 2, 2] } }, TypeError, 'scaling.longFactor[1]'],
  ['longrope factors not a list', { scaling: { ...longrope, shortFactor: 1 } }, TypeError, 'scaling.shortFactor'],
  ['longrope without shortFactor', { scaling: { ...longrope, shortFactor: undefined } }, TypeError, 'scaling.shortFactor'],
  ['longrope ln(original) = 0', { scaling: { ...longrope, originalMaxPositionEmbeddings: 1 } }, RangeError, 'originalMaxPositionEmbeddings'],
];

const frequencyCases = [
  ['options missing', undefined, TypeError, 'options'],
  ['rotaryDim missing', {}, TypeError, 'rotaryDim'],
  ['rotaryDim odd', { rotaryDim: 7 }, RangeError, 'rotaryDim'],
  ['rotaryDim 0', { rotaryDim: 0 }, RangeError, 'rotaryDim'],
  ['rotaryDim negative', { rotaryDim: -8 }, RangeError, 'rotaryDim'],
  ['rotaryDim non-integer', { rotaryDim: 8.5 }, RangeError, 'rotaryDim'],
  ['rotaryDim NaN', { rotaryDim: NaN }, RangeError, 'rotaryDim'],
  ['rotaryDim Infinity', { rotaryDim: Infinity }, RangeError, 'rotaryDim'],
  ['rotaryDim a string', { rotaryDim: '8' }, TypeError, 'rotaryDim'],
  ['dynamic with rotaryDim 2', { rotaryDim: 2, scaling: { type: 'dynamic', factor: 2, maxPositionEmbeddings: 8 } }, RangeError, 'rotaryDim'],
  ['base 1', { rotaryDim: 8, base: 1 }, RangeError, 'base'],
  ['base NaN', { rotaryDim: 8, base: NaN }, RangeError, 'base'],
  ['base -Infinity', { rotaryDim: 8, base: -Infinity }, RangeError, 'base'],
  ['base a string', { rotaryDim: 8, base: '10000' }, TypeError, 'base'],
  ['unknown option', { rotaryDim: 8, theta: 10000 }, TypeError, 'theta'],
  ...scalingCases.map(([l, o, E, p]) => [l, { rotaryDim: 8, ...o }, E, p]),
];

function expectError(call, fn, Err, param) {
  const e = thrown(call);
  expect(e).toBeInstanceOf(Err);
  expect(e.message).toContain(`posenc.${fn}:`);
  if (param !== 'options') expect(e.message).toContain(param);
}

describe('ropeFrequencies', () => {
  test.each(frequencyCases)('%s', (label, options, Err, param) => {
    const before = posenc.memoryStats().allocatedBytes;
    expectError(() => posenc.ropeFrequencies(options), 'ropeFrequencies', Err, param);
    expect(posenc.memoryStats().allocatedBytes).toBe(before);
  });

  test('a scaled base that overflows is a RangeError naming the parameters', () => {
    const scaling = { type: 'dynamic', factor: 1e300, maxPositionEmbeddings: 1, seqLength: 1000 };
    expectError(() => posenc.ropeFrequencies({ rotaryDim: 8, base: 1e300, scaling }), 'ropeFrequencies', RangeError, 'scaling.factor');
  });
});

describe('applyRope', () => {
  const good = { heads: 2, headDim: 8 };
  const x0 = Float32Array.from({ length: 2 * 3 * 2 * 8 }, (_, i) => i / 7 - 3); // batch 2, seq 3 (or batch 1, seq 6)
  const cases = [
    ['x an Array', Array.from(x0), good, TypeError, 'x'],
    ['x a Float64Array', Float64Array.from(x0), good, TypeError, 'x'],
    ['options missing', x0, undefined, TypeError, 'options'],
    ['heads missing', x0, { headDim: 8 }, TypeError, 'heads'],
    ['heads 0', x0, { ...good, heads: 0 }, RangeError, 'heads'],
    ['heads NaN', x0, { ...good, heads: NaN }, RangeError, 'heads'],
    ['heads a string', x0, { ...good, heads: '2' }, TypeError, 'heads'],
    ['headDim negative', x0, { ...good, headDim: -8 }, RangeError, 'headDim'],
    ['headDim non-integer', x0, { ...good, headDim: 7.5 }, RangeError, 'headDim'],
    ['rotaryDim odd', x0, { ...good, rotaryDim: 5 }, RangeError, 'rotaryDim'],
    ['rotaryDim > headDim', x0, { ...good, rotaryDim: 10 }, RangeError, 'rotaryDim'],
    ['odd headDim as the default rotaryDim', x0, { heads: 4, headDim: 3 }, RangeError, 'rotaryDim'],
    ['rotaryDim Infinity', x0, { ...good, rotaryDim: Infinity }, RangeError, 'rotaryDim'],
    ['x.length not a multiple of batch * heads * headDim', x0, { ...good, heads: 5 }, RangeError, 'x.length'],
    ['x.length not a multiple (batch)', x0, { ...good, batch: 5 }, RangeError, 'x.length'],
    ['batch 0', x0, { ...good, batch: 0 }, RangeError, 'batch'],
    ['batch non-integer', x0, { ...good, batch: 1.5 }, RangeError, 'batch'],
    ['layout unknown', x0, { ...good, layout: 'neox' }, RangeError, 'layout'],
    ['layout not a string', x0, { ...good, layout: 1 }, TypeError, 'layout'],
    ['precision unknown', x0, { ...good, precision: 'bfloat16' }, RangeError, 'precision'],
    ['offset NaN', x0, { ...good, offset: NaN }, RangeError, 'offset'],
    ['offset beyond int32', x0, { ...good, offset: 2 ** 31 }, RangeError, 'offset'],
    ['last position beyond int32', x0, { ...good, offset: 2 ** 31 - 2 }, RangeError, 'offset'],
    ['offset a string', x0, { ...good, offset: '1' }, TypeError, 'offset'],
    ['positions of the wrong length', x0, { ...good, batch: 2, positions: new Int32Array(4) }, RangeError, 'positions'],
    ['positions a Float32Array', x0, { ...good, positions: new Float32Array(6) }, TypeError, 'positions'],
    ['positions an Array', x0, { ...good, positions: [0, 1, 2, 3, 4, 5] }, TypeError, 'positions'],
    ['positions and offset', x0, { ...good, positions: new Int32Array(6), offset: 3 }, RangeError, 'offset'],
    ['base 0.5', x0, { ...good, base: 0.5 }, RangeError, 'base'],
    ['unknown option', x0, { ...good, dim: 8 }, TypeError, 'dim'],
    ...scalingCases.map(([l, o, E, p]) => [l, x0, { ...good, ...o }, E, p]),
  ];
  test.each(cases)('%s', (label, x, options, Err, param) => {
    const copy = Array.from(x);
    const before = posenc.memoryStats().allocatedBytes;
    expectError(() => posenc.applyRope(x, options), 'applyRope', Err, param);
    expect(Array.from(x)).toEqual(copy);
    expect(posenc.memoryStats().allocatedBytes).toBe(before);
  });

  test('a WasmArray x is untouched by a failing call', () => {
    const x = posenc.allocate('float32', 32);
    x.array.fill(0.5);
    expectError(() => posenc.applyRope(x, { heads: 2, headDim: 8, positions: new Int32Array(3) }), 'applyRope', RangeError, 'positions');
    expectError(() => posenc.applyRope(x, { heads: 2, headDim: 8, scaling: { type: 'llama3' } }), 'applyRope', TypeError, 'scaling.factor');
    expect(x.array.every((v) => v === 0.5)).toBe(true);
    x.free();
  });
});

describe('ropeCache', () => {
  const n = 4 * 4;
  const fresh = () => ({ cos: new Float32Array(n).fill(9), sin: new Float32Array(n).fill(9) });
  const good = { length: 4, rotaryDim: 8 };
  const shared = new Float32Array(2 * n);
  const cases = [
    ['length and positions missing', { rotaryDim: 8 }, TypeError, 'length'],
    ['length negative', { ...good, length: -1 }, RangeError, 'length'],
    ['length non-integer', { ...good, length: 2.5 }, RangeError, 'length'],
    ['positions of the wrong length', { ...good, positions: new Int32Array(3) }, RangeError, 'positions'],
    ['positions a Uint32Array', { rotaryDim: 8, positions: new Uint32Array(4) }, TypeError, 'positions'],
    ['positions and offset', { rotaryDim: 8, positions: new Int32Array(4), offset: 0 }, RangeError, 'offset'],
    ['last position beyond int32', { ...good, offset: 2 ** 31 - 3 }, RangeError, 'offset'],
    ['rotaryDim odd', { ...good, rotaryDim: 9 }, RangeError, 'rotaryDim'],
    ['precision unknown', { ...good, precision: 'double' }, RangeError, 'precision'],
    ['out a Float32Array', { ...good, out: new Float32Array(n) }, TypeError, 'out'],
    ['out.sin missing', { ...good, out: { cos: new Float32Array(n) } }, TypeError, 'out.sin'],
    ['out.cos a Float64Array', { ...good, out: { cos: new Float64Array(n), sin: new Float32Array(n) } }, TypeError, 'out.cos'],
    ['out.cos of the wrong length', { ...good, out: { cos: new Float32Array(n + 1), sin: new Float32Array(n) } }, RangeError, 'out.cos'],
    ['out.sin of the wrong length', { ...good, out: { cos: new Float32Array(n), sin: new Float32Array(n - 1) } }, RangeError, 'out.sin'],
    ['out.cos === out.sin', { ...good, out: { cos: shared.subarray(0, n), sin: shared.subarray(0, n) } }, RangeError, 'out.cos'],
    ['out.cos overlaps out.sin', { ...good, out: { cos: shared.subarray(0, n), sin: shared.subarray(n / 2, n / 2 + n) } }, RangeError, 'out.cos'],
    ['out with another key', { ...good, out: { ...fresh(), tan: new Float32Array(n) } }, TypeError, 'out.tan'],
    ...scalingCases.map(([l, o, E, p]) => [l, { ...good, ...o, out: fresh() }, E, p]),
  ];
  test.each(cases)('%s', (label, options, Err, param) => {
    const out = options.out && options.out.cos ? [Array.from(options.out.cos), Array.from(options.out.sin ?? [])] : null;
    const before = posenc.memoryStats().allocatedBytes;
    expectError(() => posenc.ropeCache(options), 'ropeCache', Err, param);
    if (out) expect([Array.from(options.out.cos), Array.from(options.out.sin ?? [])]).toEqual(out);
    expect(posenc.memoryStats().allocatedBytes).toBe(before);
  });
});

describe('ropePermuteWeights', () => {
  const w = Float32Array.from({ length: 2 * 8 * 3 }, (_, i) => i);
  const good = { heads: 2, headDim: 8, from: 'interleaved', to: 'half' };
  const cases = [
    ['w an Array', Array.from(w), good, TypeError, 'w'],
    ['from missing', w, { heads: 2, headDim: 8, to: 'half' }, TypeError, 'from'],
    ['to unknown', w, { ...good, to: 'neox' }, RangeError, 'to'],
    ['heads 0', w, { ...good, heads: 0 }, RangeError, 'heads'],
    ['headDim NaN', w, { ...good, headDim: NaN }, RangeError, 'headDim'],
    ['rotaryDim odd', w, { ...good, rotaryDim: 3 }, RangeError, 'rotaryDim'],
    ['rotaryDim > headDim', w, { ...good, rotaryDim: 16 }, RangeError, 'rotaryDim'],
    ['w.length not a multiple of heads * headDim', w, { ...good, headDim: 10 }, RangeError, 'w.length'],
    ['out of the wrong length', w, { ...good, out: new Float32Array(10) }, RangeError, 'out'],
    ['out a Float64Array', w, { ...good, out: new Float64Array(w.length) }, TypeError, 'out'],
    ['out is w', w, { ...good, out: w }, RangeError, 'out'],
    ['unknown option', w, { ...good, inFeatures: 3 }, TypeError, 'inFeatures'],
  ];
  test.each(cases)('%s', (label, weights, options, Err, param) => {
    const copy = Array.from(weights);
    expectError(() => posenc.ropePermuteWeights(weights, options), 'ropePermuteWeights', Err, param);
    expect(Array.from(weights)).toEqual(copy);
  });
});

describe('ropeFromConfig', () => {
  const base = { head_dim: 64, num_attention_heads: 8, max_position_embeddings: 4096 };
  const cases = [
    ['config null', null, TypeError, 'config'],
    ['config an array', [], TypeError, 'config'],
    ['rope_scaling a string', { ...base, rope_scaling: 'linear' }, TypeError, 'config.rope_scaling'],
    ['unknown rope_type', { ...base, rope_scaling: { rope_type: 'xpos' } }, RangeError, 'config.rope_scaling.rope_type'],
    // 'mrope' is Qwen2-VL's: known, with its mrope_section
    ["rope_type 'mrope' without mrope_section", { ...base, model_type: 'qwen2_vl', rope_scaling: { rope_type: 'mrope' } }, TypeError, 'config.rope_scaling.mrope_section'],
    ['linear without factor', { ...base, rope_scaling: { type: 'linear' } }, TypeError, 'config.rope_scaling.factor'],
    ['llama3 high < low', { ...base, rope_scaling: { rope_type: 'llama3', factor: 8, low_freq_factor: 2, high_freq_factor: 1, original_max_position_embeddings: 1024 } }, RangeError, 'config.rope_scaling.high_freq_factor'],
    ['attention_factor 0', { ...base, rope_scaling: { rope_type: 'yarn', factor: 4, attention_factor: 0 } }, RangeError, 'config.rope_scaling.attention_factor'],
    ['dynamic without max_position_embeddings (no model_type: no class default)', { head_dim: 64, rope_scaling: { type: 'dynamic', factor: 2 } }, TypeError, 'config.max_position_embeddings'],
    ['no head_dim nor hidden_size', { num_attention_heads: 8 }, TypeError, 'config.head_dim'],
    ['rope_theta a string', { ...base, rope_theta: '10000' }, TypeError, 'config.rope_theta'],
    ['rope_theta 1', { ...base, rope_theta: 1 }, RangeError, 'config.rope_theta'],
    ['partial_rotary_factor 0', { ...base, partial_rotary_factor: 0 }, RangeError, 'config.partial_rotary_factor'],
    ['odd rotary dim', { head_dim: 10, partial_rotary_factor: 0.5 }, RangeError, 'partial_rotary_factor'],
    ['rope_ratio 0 (ChatGLM)', { ...base, model_type: 'chatglm', rope_ratio: 0 }, RangeError, 'config.rope_ratio'],
    ['rope_ratio a string', { ...base, model_type: 'chatglm', rope_ratio: '500' }, TypeError, 'config.rope_ratio'],
    ['rope_ratio without a model_type that reads it', { ...base, rope_ratio: 500 }, TypeError, 'config.rope_ratio'],
    ['qk_rope_head_dim a string (DeepSeek)', { model_type: 'deepseek_v3', hidden_size: 7168, num_attention_heads: 128, qk_rope_head_dim: '64' }, TypeError, 'config.qk_rope_head_dim'],
    ['qk_rope_head_dim 63.5', { model_type: 'deepseek_v3', hidden_size: 7168, num_attention_heads: 128, qk_rope_head_dim: 63.5 }, RangeError, 'config.qk_rope_head_dim'],
    ['an unknown model_type', { ...base, model_type: 'not-a-model' }, TypeError, 'config.model_type'],
    ['a model without RoPE (BLOOM: ALiBi)', { model_type: 'bloom', n_head: 16, hidden_size: 1024 }, TypeError, 'alibiFromConfig'],
    ['longrope factors of the wrong length', { ...base, rope_scaling: { type: 'longrope', short_factor: [1], long_factor: [1] } }, RangeError, 'config.rope_scaling.short_factor'],
  ];
  test.each(cases)('%s', (label, config, Err, param) => {
    expectError(() => posenc.ropeFromConfig(config), 'ropeFromConfig', Err, param);
  });

  test('layerType: only for per-layer rope_parameters, and one of its keys', () => {
    const nested = { head_dim: 8, rope_parameters: { full_attention: { rope_type: 'default' } } };
    expectError(() => posenc.ropeFromConfig(nested, { layerType: 'sliding' }), 'ropeFromConfig', RangeError, 'layerType');
    expectError(() => posenc.ropeFromConfig({ head_dim: 8 }, { layerType: 'full_attention' }), 'ropeFromConfig', RangeError, 'layerType');
    expectError(() => posenc.ropeFromConfig({ head_dim: 8 }, { layerType: 3 }), 'ropeFromConfig', TypeError, 'layerType');
    expectError(() => posenc.ropeFromConfig({ head_dim: 8 }, { layer: 'x' }), 'ropeFromConfig', TypeError, 'layer');
  });
});

describe("a config.json rope_scaling pasted as scaling: refused, with the camelCase form and ropeFromConfig named", () => {
  // DeepSeek-V3's rope_scaling, as its config.json has it
  const pasted = { beta_fast: 32, beta_slow: 1, factor: 40, mscale: 1.0, mscale_all_dim: 1.0, original_max_position_embeddings: 4096, type: 'yarn' };
  const hfNew = { rope_type: 'linear', factor: 2 };
  const camel = "write { betaFast: 32, betaSlow: 1, factor: 40, mscale: 1, mscaleAllDim: 1, originalMaxPositionEmbeddings: 4096, type: \"yarn\" }, or pass the whole config.json to ropeFromConfig";
  const x = () => new Float32Array(2 * 64);
  test.each([
    ['ropeFrequencies', () => posenc.ropeFrequencies({ rotaryDim: 64, scaling: pasted }), 'posenc.ropeFrequencies: scaling'],
    ['ropeCache', () => posenc.ropeCache({ rotaryDim: 64, length: 4, scaling: pasted }), 'posenc.ropeCache: scaling'],
    ['applyRope', () => posenc.applyRope(x(), { heads: 2, headDim: 64, scaling: pasted }), 'posenc.applyRope: scaling'],
    ['createEncoder positional.scaling', () => posencEncoder.createEncoder({
      vocabSize: 8, dModel: 128, heads: 2, dFF: 8, layers: 1, weights: { seed: 1 }, positional: { type: 'rope', scaling: pasted },
    }), 'posenc.createEncoder: positional.scaling'],
  ])('%s', (_, call, where) => {
    const before = posenc.memoryStats();
    const e = thrown(call);
    expect(e).toBeInstanceOf(TypeError);
    expect(e.message).toBe(`${where} takes camelCase keys, got Hugging Face's snake_case 'beta_fast', 'beta_slow', 'mscale_all_dim', 'original_max_position_embeddings': ${camel}`);
    expect(posenc.memoryStats().allocatedBytes).toBe(before.allocatedBytes);
  });

  test("rope_type becomes type; the message shows it", () => {
    const e = thrown(() => posenc.ropeFrequencies({ rotaryDim: 8, scaling: hfNew }));
    expect(e.message).toContain("snake_case 'rope_type': write { type: \"linear\", factor: 2 }");
  });
});
