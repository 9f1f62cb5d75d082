// The encoder's bad-input matrix: every error names the function and the
// parameter, uses TypeError for wrong types and RangeError for bad values,
// and leaves posenc's wasm heap as it was (nothing allocated on failure, once
// an encoder's own buffers have the call's size).
import { posencEncoder as posenc, rejectsCleanly, thrown } from '../helpers.js';

beforeAll(() => posenc.init());

const BASE = { vocabSize: 20, dModel: 8, heads: 2, dFF: 16, layers: 1 };

const rejects = (fn, Err, message) => rejectsCleanly(posenc, fn, Err, message);

const create = (extra) => () => posenc.createEncoder({ ...BASE, weights: { seed: 1 }, ...extra });

describe('createEncoder options', () => {
  test.each([
    ['not an object', () => posenc.createEncoder(5), TypeError, /^posenc\.createEncoder: expects an options object/],
    ['unknown option', create({ dmodel: 8 }), TypeError, /unknown option 'dmodel'/],
    ['missing vocabSize', () => posenc.createEncoder({ dModel: 8, heads: 2, dFF: 4, layers: 1, weights: { seed: 1 } }), TypeError, /vocabSize is required/],
    ['dModel not a multiple of heads', create({ heads: 3 }), RangeError, /^posenc\.createEncoder: dModel must be a multiple of heads = 3/],
    ['heads 0', create({ heads: 0 }), RangeError, /heads must be an integer from 1/],
    ['norm', create({ norm: 'sandwich' }), RangeError, /norm must be one of 'pre', 'post', got "sandwich"/],
    ['activation', create({ activation: 'swish' }), RangeError, /activation must be one of 'relu', 'gelu', 'gelu_tanh'/],
    ['normEps', create({ normEps: 0 }), RangeError, /normEps must be a finite number > 0/],
    ['embedScale', create({ embedScale: NaN }), RangeError, /embedScale must be a finite number/],
    ['positional not an object', create({ positional: 'rope' }), TypeError, /positional must be an object \{ type, \.\.\. \}/],
    ['positional.type', create({ positional: { type: 'xpos' } }), RangeError, /positional\.type must be one of 'none', 'sinusoidal', 'rope', 'alibi', 't5'/],
    ['positional.type missing', create({ positional: { base: 10 } }), TypeError, /positional\.type is required/],
    ['positional unknown key', create({ positional: { type: 'alibi', base: 10 } }), TypeError, /unknown option 'positional\.base' for type 'alibi'/],
    ['sinusoidal base', create({ positional: { type: 'sinusoidal', base: 1 } }), RangeError, /positional\.base must be a finite number > 1/],
    ['fairseq on a narrow model', create({ dModel: 2, heads: 1, positional: { type: 'sinusoidal', layout: 'fairseq' } }), RangeError, /'fairseq' needs dModel >= 4/],
    ['rope rotaryDim odd', create({ positional: { type: 'rope', rotaryDim: 3 } }), RangeError, /positional\.rotaryDim must be an even integer from 2 to headDim = dModel \/ heads = 4, got 3/],
    ['rope rotaryDim too wide', create({ positional: { type: 'rope', rotaryDim: 6 } }), RangeError, /headDim = dModel \/ heads = 4, got 6/],
    ['rope scaling', create({ positional: { type: 'rope', scaling: { type: 'linear', factor: -1 } } }), RangeError, /^posenc\.createEncoder: positional\.scaling\.factor must be a finite number > 0/],
    ['rope layout', create({ positional: { type: 'rope', layout: 'neox' } }), RangeError, /positional\.layout must be one of 'half', 'interleaved'/],
    ['alibi maxBias', create({ positional: { type: 'alibi', maxBias: 0 } }), RangeError, /positional\.maxBias must be a finite number > 0/],
    ['t5 odd buckets', create({ positional: { type: 't5', numBuckets: 31 } }), RangeError, /positional\.numBuckets must be an even integer from 4 to 2147483646 \(half of them per direction when bidirectional/],
    ['t5 maxDistance', create({ positional: { type: 't5', numBuckets: 32, maxDistance: 8 } }), RangeError, /positional\.maxDistance must be an integer from 9 to 2147483647 \(above positional\.numBuckets \/ 4 when bidirectional/],
    ['weights missing', () => posenc.createEncoder({ ...BASE }), TypeError, /weights is required/],
    ['weights a number', create({ weights: 42 }), TypeError, /weights must be \{ seed \}/],
    ['weights.seed', create({ weights: { seed: -1 } }), RangeError, /weights\.seed must be an integer from 0 to 4294967295/],
    ['weights not a file', create({ weights: new Uint8Array(4) }), RangeError, /^posenc\.createEncoder: weights is not a valid \.safetensors file/],
  ])('%s', (name, fn, Err, message) => rejects(fn, Err, message));
});

describe('createEncoder weights: names, shapes and dtypes', () => {
  const good = () => {
    const e = posenc.createEncoder({ ...BASE, weights: { seed: 3 } });
    const t = e.tensors();
    e.dispose();
    return t;
  };

  test('a missing tensor, a wrong shape, an unexpected name, a head without classes, a duplicate q', () => {
    const missing = good();
    delete missing['layers.0.norm2.bias'];
    rejects(create({ weights: missing }), RangeError, /^posenc\.createEncoder: weights is missing the tensor 'layers\.0\.norm2\.bias' \[8\]/);
    const shape = good();
    shape['layers.0.linear1.weight'] = { shape: [8, 16], data: new Float32Array(128) };
    rejects(create({ weights: posenc.writeSafetensors(shape) }), RangeError, /weights\['layers\.0\.linear1\.weight'\] must have shape \[16, 8\], got \[8, 16\]/);
    const extra = { ...good(), 'layers.1.norm1.weight': { shape: [8], data: new Float32Array(8) } };
    rejects(create({ weights: extra }), RangeError, /unexpected tensor 'layers\.1\.norm1\.weight'/);
    const head = { ...good(), 'head.weight': { shape: [2, 8], data: new Float32Array(16) } };
    rejects(create({ weights: head }), RangeError, /unexpected tensor 'head\.weight' \(set classes/);
    const both = { ...good(), 'layers.0.self_attn.in_proj_weight': { shape: [24, 8], data: new Float32Array(192) } };
    rejects(create({ weights: both }), RangeError, /has both 'layers\.0\.self_attn\.q_proj\.weight' and 'layers\.0\.self_attn\.in_proj_weight'/);
    const data = good();
    data['embed.weight'] = { shape: [20, 8], data: 'nope' };
    rejects(create({ weights: data }), TypeError, /weights\['embed\.weight'\] must be \{ shape, data \}/);
  });

  test('a file with an integer tensor, and F16 / BF16 files (converted)', () => {
    const bytes = posenc.writeSafetensors(good());
    // rewrite the first tensor's dtype in the header: F32 -> I32 (same width)
    const n = Number(new DataView(bytes.buffer).getBigUint64(0, true));
    const text = new TextDecoder().decode(bytes.subarray(8, 8 + n)).replace('"F32"', '"I32"');
    bytes.set(new TextEncoder().encode(text), 8);
    rejects(create({ weights: bytes }), RangeError, /weights tensor 'embed\.weight' has dtype I32/);
    const t = good();
    const half = Object.fromEntries(Object.entries(t).map(([k, v]) => [k, { shape: v.shape, data: v.data, dtype: 'F16' }]));
    const e16 = posenc.createEncoder({ ...BASE, weights: posenc.writeSafetensors(half) });
    const e32 = posenc.createEncoder({ ...BASE, weights: t });
    const a = e16.forward([1, 2, 3]);
    const b = e32.forward([1, 2, 3]);
    expect(Math.max(...a.map((v, i) => Math.abs(v - b[i])))).toBeLessThan(0.05); // f16 weights: ~1e-3 relative each
    e16.dispose();
    e32.dispose();
  });
});

describe('encoder methods', () => {
  let encoder;
  beforeAll(() => {
    encoder = posenc.createEncoder({ ...BASE, languages: 2, keepAttention: true, weights: { seed: 5 } });
    // the encoder's own buffers are sized by its first passes (C checks a
    // call's values inside the pass): a refused call then takes nothing
    encoder.forward([1, 2, 3]);
  });
  afterAll(() => encoder.dispose());

  test('attention before any forward pass', () => {
    const fresh = posenc.createEncoder({ ...BASE, keepAttention: true, weights: { seed: 5 } });
    rejects(() => fresh.attention(0), Error, /^posenc\.encoder\.attention: no forward pass yet/);
    fresh.dispose();
  });

  test.each([
    ['tokens not an array', () => encoder.forward('abc'), TypeError, /^posenc\.encoder\.forward: tokens must be an Int32Array or Array of integers from 0 to 19/],
    ['tokens empty', () => encoder.forward([]), RangeError, /tokens must be .*at least one/],
    ['token out of range', () => encoder.forward([1, 20]), RangeError, /tokens\[1\] must be an integer from 0 to 19, got 20/],
    ['token not an integer', () => encoder.forward([1.5]), RangeError, /tokens\[0\] must be an integer/],
    ['token not a number', () => encoder.forward(['1']), TypeError, /tokens\[0\]/],
    ['mask length', () => encoder.forward([1, 2], { mask: [1] }), RangeError, /mask must have length tokens\.length = 2, got 1/],
    ['mask values', () => encoder.forward([1, 2], { mask: [1, 2] }), RangeError, /mask\[1\] must be 0, 1, true or false, got 2/],
    ['mask type', () => encoder.forward([1, 2], { mask: 'ab' }), TypeError, /mask must be an Array or typed array/],
    ['language out of range', () => encoder.forward([1], { language: 2 }), RangeError, /language must be an integer from -1 to languages - 1 = 1 \(-1: none\), got 2/],
    ['causal', () => encoder.forward([1], { causal: 1 }), TypeError, /causal must be true or false/],
    ['unknown option', () => encoder.forward([1], { maks: [1] }), TypeError, /unknown option 'maks'/],
    ['out length', () => encoder.forward([1, 2], { out: new Float32Array(8) }), RangeError, /out must have length 16, got 8/],
    ['pool out length', () => encoder.pool([1, 2], { out: new Float32Array(16) }), RangeError, /^posenc\.encoder\.pool: out must have length 8/],
    ['classify without a head', () => encoder.classify([1]), Error, /^posenc\.encoder\.classify: the encoder has no classifier head/],
  ])('%s', (name, fn, Err, message) => rejects(fn, Err, message));

  test('attention(layer) range; keepAttention off by default', () => {
    encoder.forward([1, 2, 3]);
    rejects(() => encoder.attention(1), RangeError, /^posenc\.encoder\.attention: layer must be an integer from 0 to 0, got 1/);
    const lean = posenc.createEncoder({ ...BASE, weights: { seed: 5 } });
    expect(lean.config.keepAttention).toBe(false);
    lean.forward([1, 2, 3]);
    rejects(() => lean.attention(0), Error, /^posenc\.encoder\.attention: the encoder keeps no attention probabilities \(create it with keepAttention: true; the default is false\)$/);
    lean.dispose();
  });

  test('language on an encoder without languages', () => {
    const plain = posenc.createEncoder({ ...BASE, weights: { seed: 5 } });
    plain.forward([1]);
    rejects(() => plain.forward([1], { language: 0 }), RangeError, /language needs a config with languages > 0, got 0/);
    plain.dispose();
  });

  test('dispose frees everything; later calls throw; a second dispose is harmless', () => {
    const before = posenc.memoryStats();
    const e = posenc.createEncoder({ ...BASE, positional: { type: 'alibi' }, weights: { seed: 9 } });
    e.forward(Array.from({ length: 40 }, (_, i) => i % 20));
    e.forward([1, 2]);
    expect(posenc.memoryStats().liveArrays).toBeGreaterThan(before.liveArrays);
    e.dispose();
    e.dispose();
    const after = posenc.memoryStats();
    expect([after.allocatedBytes, after.liveArrays]).toEqual([before.allocatedBytes, before.liveArrays]);
    expect(thrown(() => e.forward([1])).message).toMatch(/^posenc\.encoder\.forward: the encoder was disposed/);
    expect(thrown(() => e.attention(0)).message).toMatch(/disposed/);
  });
});

describe('language-model options and self-contained files: named errors, nothing changed', () => {
  const LM = { ...BASE, positional: { type: 'learned', maxLength: 4 }, tieEmbeddings: true };
  let lm;
  let file;
  beforeAll(() => {
    lm = posenc.createEncoder({ ...LM, weights: { seed: 6 } });
    file = lm.toSafetensors();
  });
  afterAll(() => lm.dispose());

  /** The file's tensors with posenc.config replaced by `text`. */
  const withConfig = (text) => posenc.writeSafetensors(posenc.readSafetensors(file).tensors, { metadata: { 'posenc.config': text } });

  test.each([
    ['learned without maxLength', create({ positional: { type: 'learned' } }), TypeError, /^posenc\.createEncoder: positional\.maxLength is required for type 'learned'/],
    ['learned maxLength 0', create({ positional: { type: 'learned', maxLength: 0 } }), RangeError, /positional\.maxLength must be an integer from 1 to 2147483647, got 0/],
    ['tieEmbeddings with lmHead: false', create({ tieEmbeddings: true, lmHead: false }), RangeError, /tieEmbeddings: true is an LM head .* got lmHead: false/],
    ['lmHead not a boolean', create({ lmHead: 1 }), TypeError, /lmHead must be true or false, got 1/],
    ['lmHead without lm_head.weight', () => posenc.createEncoder({ ...LM, tieEmbeddings: false, lmHead: true, weights: lm.tensors() }), RangeError, /weights is missing the tensor 'lm_head\.weight' \[20, 8\]/],
    ['lm_head.weight with tieEmbeddings', () => posenc.createEncoder({ ...LM, weights: { ...lm.tensors(), 'lm_head.weight': { shape: [20, 8], data: new Float32Array(160) } } }), RangeError, /unexpected tensor 'lm_head\.weight' \(tieEmbeddings: true takes the output head from embed\.weight\)/],
    ['pos_embed.weight without learned positions', () => posenc.createEncoder({ ...BASE, weights: lm.tensors() }), RangeError, /unexpected tensor 'pos_embed\.weight' \(positional \{ type: 'learned', maxLength \} reads it\)/],
    ['a truncated model file', () => posenc.createEncoder({ weights: file.subarray(0, file.length - 3) }), RangeError, /^posenc\.createEncoder: weights is not a valid \.safetensors file/],
    ['a foreign file', () => posenc.createEncoder({ weights: new TextEncoder().encode('\x89PNG\r\n\x1a\n not a model at all') }), RangeError, /weights is not a valid \.safetensors file/],
    ['a file without options, and none given', () => posenc.createEncoder({ weights: posenc.writeSafetensors(lm.tensors()) }), TypeError, /^posenc\.createEncoder: vocabSize is required/],
    ['posenc.config not JSON', () => posenc.createEncoder({ weights: withConfig('{dModel: 8') }), RangeError, /^posenc\.createEncoder: weights' metadata 'posenc\.config' must be the encoder's options as JSON/],
    ['posenc.config an array', () => posenc.createEncoder({ weights: withConfig('[1, 2]') }), RangeError, /'posenc\.config' must be a JSON object of encoder options, got/],
    ['posenc.config with an unknown option', () => posenc.createEncoder({ weights: withConfig(JSON.stringify({ ...LM, dmodel: 8 })) }), TypeError, /^posenc\.createEncoder: weights' metadata 'posenc\.config': unknown option 'dmodel'/],
    ['posenc.config naming weights', () => posenc.createEncoder({ weights: withConfig(JSON.stringify({ ...LM, weights: { seed: 1 } })) }), TypeError, /'posenc\.config': unknown option 'weights'/],
    ['posenc.config with a bad value', () => posenc.createEncoder({ weights: withConfig(JSON.stringify({ ...LM, heads: 3 })) }), RangeError, /dModel must be a multiple of heads = 3/],
    ['posenc.config that disagrees with the tensors', () => posenc.createEncoder({ weights: withConfig(JSON.stringify({ ...LM, dModel: 16 })) }), RangeError, /^posenc\.createEncoder: the options in weights' metadata 'posenc\.config' \(with the caller's over them\) disagree with the file's tensors: weights\['embed\.weight'\] must have shape \[20, 16\], got \[20, 8\]/],
    ['posenc.config with a shorter table', () => posenc.createEncoder({ weights: withConfig(JSON.stringify({ ...LM, positional: { type: 'learned', maxLength: 3 } })) }), RangeError, /disagree with the file's tensors: weights\['pos_embed\.weight'\] must have shape \[3, 8\], got \[4, 8\]/],
    ['a caller option that disagrees with the file', () => posenc.createEncoder({ weights: file, vocabSize: 21 }), RangeError, /disagree with the file's tensors: weights\['embed\.weight'\] must have shape \[21, 8\]/],
    ['toSafetensors metadata over posenc.config', () => lm.toSafetensors({ metadata: { 'posenc.config': '{}' } }), RangeError, /^posenc\.encoder\.toSafetensors: metadata must not set 'posenc\.config'/],
    ['toSafetensors metadata values', () => lm.toSafetensors({ metadata: { a: 1 } }), TypeError, /metadata must be an object mapping strings to strings/],
  ])('%s', (name, fn, Err, message) => rejects(fn, Err, message));

  test.each([
    ['forward', (out) => lm.forward([1, 2, 3, 4, 5], { out })],
    ['logits', (out) => lm.logits([1, 2, 3, 4, 5], { out, causal: true })],
  ])('%s: more tokens than maxLength is a RangeError naming maxLength; out untouched', (name, call) => {
    const out = new Float32Array(5 * (name === 'forward' ? 8 : 20)).fill(7);
    rejects(() => call(out), RangeError, new RegExp(`^posenc\\.encoder\\.${name}: tokens\\.length must be an integer from 0 to positional\\.maxLength = 4 \\(learned positions stop there\\), got 5`));
    expect(out.every((v) => v === 7)).toBe(true);
  });

  test.each([
    ['a token outside the vocabulary', () => lm.logits([1, 20], { causal: true }), RangeError, /^posenc\.encoder\.logits: tokens\[1\] must be an integer from 0 to 19, got 20/],
    ['logits out length', () => lm.logits([1, 2], { out: new Float32Array(16) }), RangeError, /^posenc\.encoder\.logits: out must have length 40, got 16/],
    ['logits without an LM head', () => {
      const plain = posenc.createEncoder({ ...BASE, weights: { seed: 5 } });
      try {
        plain.logits([1, 2]);
      } finally {
        plain.dispose();
      }
    }, Error, /^posenc\.encoder\.logits: the encoder has no LM head \(create it with lmHead: true and an lm_head\.weight tensor, or tieEmbeddings: true\)/],
  ])('%s', (name, fn, Err, message) => rejects(fn, Err, message));
});

describe('softmax', () => {
  test('softmax errors', () => {
    rejects(() => posenc.softmax([1, 2]), TypeError, /^posenc\.softmax: x must be a Float32Array/);
    rejects(() => posenc.softmax(Float32Array.from([1, NaN])), RangeError, /x\[1\] must be finite or -Infinity/);
    rejects(() => posenc.softmax(Float32Array.from([1, Infinity])), RangeError, /x\[1\]/);
    rejects(() => posenc.softmax(Float32Array.from([1, 2, 3]), { cols: 2 }), RangeError, /x\.length must be a positive multiple of cols = 2/);
    const x = Float32Array.from([1, NaN]);
    thrown(() => posenc.softmax(x));
    expect(x[0]).toBe(1); // nothing written
  });

});
