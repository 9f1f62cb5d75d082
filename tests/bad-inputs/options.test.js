// Options objects are read once, into a snapshot, and only their own keys
// count: a getter runs once and before any check, so it cannot change, free or
// detach a value between its check and its use; 'constructor' or '__proto__'
// given as an option is an unknown option, not a match with Object.prototype.
// Also: a tensor named '__proto__' in .safetensors files.
import { posenc, posencEncoder, thrown } from '../helpers.js';

let encoder; // an encoder with RoPE, for its methods
beforeAll(async () => {
  await Promise.all([posenc.init(), posencEncoder.init()]);
  encoder = posencEncoder.createEncoder({ vocabSize: 10, dModel: 8, heads: 2, dFF: 16, layers: 1, positional: { type: 'rope' }, weights: { seed: 1 } });
});
afterAll(() => encoder.dispose());

const f32 = (n) => new Float32Array(n);
const linear = () => ({ type: 'linear', factor: 2 });

// Valid calls of every function that takes an options object: [name, call(options), options()].
// Nested option objects are listed by key: each is checked like the top level.
const CALLS = [
  ['sinusoidal', (o) => posenc.sinusoidal(o), () => ({ length: 3, dModel: 4 })],
  ['sinusoidalFrequencies', (o) => posenc.sinusoidalFrequencies(o), () => ({ dModel: 6 })],
  ['addSinusoidal', (o) => posenc.addSinusoidal(f32(8), o), () => ({ dModel: 4 })],
  ['relativePositions', (o) => posenc.relativePositions(o), () => ({ queryLength: 3 })],
  ['ropeFrequencies', (o) => posenc.ropeFrequencies(o), () => ({ rotaryDim: 8, scaling: linear() })],
  ['ropeCache', (o) => posenc.ropeCache(o), () => ({ length: 3, rotaryDim: 8, scaling: linear(), out: { cos: f32(12), sin: f32(12) } })],
  ['applyRope', (o) => posenc.applyRope(f32(16), o), () => ({ heads: 2, headDim: 8, scaling: linear() })],
  ['ropePermuteWeights', (o) => posenc.ropePermuteWeights(f32(16), o), () => ({ heads: 1, headDim: 8, from: 'half', to: 'interleaved' })],
  ['ropeFromConfig', (o) => posenc.ropeFromConfig({ head_dim: 8 }, o), () => ({})],
  ['alibiSlopes', (o) => posenc.alibiSlopes(o), () => ({ heads: 4 })],
  ['alibiBias', (o) => posenc.alibiBias(o), () => ({ heads: 2, queryLength: 3 })],
  ['t5Buckets', (o) => posenc.t5Buckets(o), () => ({ queryLength: 3 })],
  ['t5Bias', (o) => posenc.t5Bias(o), () => ({ heads: 2, queryLength: 3, weights: f32(64) })],
  ['debertaBuckets', (o) => posenc.debertaBuckets(o), () => ({ queryLength: 3 })],
  ['transformerXLEmbedding', (o) => posenc.transformerXLEmbedding(o), () => ({ keyLength: 3, dModel: 4 })],
  ['softmax', (o) => posencEncoder.softmax(Float32Array.of(1, 2, 3, 4), o), () => ({ cols: 2 })],
  ['encoderTensorShapes', (o) => posencEncoder.encoderTensorShapes(o), () => ({ vocabSize: 10, dModel: 8, heads: 2, dFF: 16, layers: 1, positional: { type: 'rope', scaling: linear() } })],
  ['createEncoder', (o) => posencEncoder.createEncoder(o).dispose(), () => ({ vocabSize: 10, dModel: 8, heads: 2, dFF: 16, layers: 1, positional: { type: 't5' }, weights: { seed: 1 } })],
  ['writeSafetensors', (o) => posencEncoder.writeSafetensors({ w: f32(2) }, o), () => ({ metadata: { a: 'b' } })],
  ['encoder.forward', (o) => encoder.forward([1, 2, 3], o), () => ({ causal: true })],
  ['encoder.toSafetensors', (o) => encoder.toSafetensors(o), () => ({ metadata: { a: 'b' } })],
];
// where nested option objects sit, and how messages name their keys
const NESTED = {
  scaling: (key) => `unknown option 'scaling.${key}'`,
  positional: (key) => `unknown option 'positional.${key}'`,
  out: (key) => `unknown key 'out.${key}'`,
};
const INHERITED = ['constructor', 'toString', 'hasOwnProperty', 'valueOf', '__proto__'];

/** Adds an own enumerable key (an assignment to '__proto__' would set the prototype instead). */
const withOwn = (object, key, value) => Object.defineProperty(object, key, { value, enumerable: true, configurable: true, writable: true });

test('every function runs with the options of this table (the table is valid)', () => {
  for (const [, call, options] of CALLS) call(options());
});

describe.each(CALLS.map(([name, call, options]) => [name, call, options]))('%s', (name, call, options) => {
  test.each(INHERITED)("an own option '%s' is unknown: a TypeError naming it", (key) => {
    const before = posenc.memoryStats();
    const error = thrown(() => call(withOwn(options(), key, 5)));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toContain(`posenc.${name}: unknown option '${key}'`);
    expect(posenc.memoryStats()).toEqual(before);
  });

  const nested = Object.keys(NESTED).filter((k) => options()[k] !== undefined && typeof options()[k] === 'object');
  if (nested.length > 0) {
    test.each(nested.flatMap((k) => INHERITED.map((key) => [k, key])))("an own key '%s.%s' is unknown", (at, key) => {
      const o = options();
      withOwn(o[at], key, 5);
      const error = thrown(() => call(o));
      expect(error).toBeInstanceOf(TypeError);
      expect(error.message).toContain(NESTED[at](key));
    });
  }

  test('each option, nested ones included, is read once', () => {
    const reads = {};
    const counted = (object, path) =>
      new Proxy(object, {
        get(target, key, receiver) {
          if (typeof key === 'string') reads[`${path}${key}`] = (reads[`${path}${key}`] ?? 0) + 1;
          return Reflect.get(target, key, receiver);
        },
      });
    const o = options();
    const keys = Object.keys(o);
    for (const k of Object.keys(NESTED)) {
      if (o[k] && typeof o[k] === 'object') {
        keys.push(...Object.keys(o[k]).map((key) => `${k}.${key}`));
        o[k] = counted(o[k], `${k}.`);
      }
    }
    call(counted(o, ''));
    expect(reads).toEqual(Object.fromEntries(keys.map((k) => [k, 1])));
  });
});

test('writeSafetensors: an own key named like an Object.prototype member in a tensor is unknown', () => {
  for (const key of INHERITED) {
    const error = thrown(() => posencEncoder.writeSafetensors({ w: withOwn({ shape: [1], data: [1] }, key, 5) }));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toContain(`unknown key '${key}' in tensors['w']`);
  }
});

// ------------------------------------------------------------------ getters

/** Grows wasm memory (detaching every view of it) by allocating more than it holds. */
function growMemory() {
  const before = posenc.memoryStats().memoryBytes;
  posenc.allocate('float32', before / 4 + (1 << 20)).free();
  expect(posenc.memoryStats().memoryBytes).toBeGreaterThan(before);
}

test('a getter answering differently each time is read once: its first answer is checked and used', () => {
  let reads = 0;
  const scaling = { get type() { return reads++ === 0 ? 'linear' : 'yarn'; }, factor: 2 };
  const { invFreq } = posenc.ropeFrequencies({ rotaryDim: 4, scaling });
  expect(reads).toBe(1);
  expect(Array.from(invFreq)).toEqual([1 / 2, 10000 ** -0.5 / 2]); // linear: base^(-2k/4) / factor

  let outReads = 0;
  const [first, second] = [f32(4), f32(4)];
  const out = { get cos() { return outReads++ === 0 ? first : second; }, sin: f32(4) };
  const result = posenc.ropeCache({ length: 2, rotaryDim: 4, out });
  expect(result).toBe(out);
  expect(outReads).toBe(1);
  expect(first[2]).toBe(Math.fround(Math.cos(1))); // row 1, k = 0: cos(1 * 1)
  expect(Array.from(second)).toEqual([0, 0, 0, 0]);
});

test('a getter that frees a WasmArray given as another option: the check sees it freed (RangeError), nothing runs', () => {
  const weights = posenc.allocate('float32', 64);
  const before = posenc.memoryStats();
  // t5Bias checks weights before out: the getter on out used to free weights between its check and its use
  const error = thrown(() => posenc.t5Bias({ heads: 2, queryLength: 3, weights, get out() { weights.free(); return undefined; } }));
  expect(error).toBeInstanceOf(RangeError);
  expect(error.message).toContain('posenc.t5Bias: weights is a WasmArray used after free()');
  expect(posenc.memoryStats().liveArrays).toBe(before.liveArrays - 1);
  expect(posenc.memoryStats().allocatedBytes).toBe(before.allocatedBytes - 64 * 4);
});

test('a getter that grows wasm memory after a view was given: the check sees the view detached', () => {
  const positions = posenc.allocate('int32', 2);
  try {
    const view = positions.array;
    // applyRope checks positions before precision: the getter used to detach the view after its check
    const x = Float32Array.of(1, 0, 1, 0);
    const error = thrown(() => posenc.applyRope(x, { heads: 1, headDim: 2, positions: view, get precision() { growMemory(); return 'float64'; } }));
    expect(error).toBeInstanceOf(RangeError);
    expect(error.message).toContain("posenc.applyRope: positions's buffer is detached");
    expect(Array.from(x)).toEqual([1, 0, 1, 0]);
  } finally {
    positions.free();
  }
});

test('a typed array is recognised by its internal type, not by a Symbol.toStringTag an object claims', () => {
  const fake = { [Symbol.toStringTag]: 'Float32Array', length: 4, buffer: new ArrayBuffer(16), byteOffset: 0 };
  const error = thrown(() => posenc.sinusoidal({ length: 2, dModel: 2, out: fake }));
  expect(error).toBeInstanceOf(TypeError);
  expect(error.message).toContain('posenc.sinusoidal: out must be a Float32Array');
});

// ------------------------------------------------------------------ '__proto__' in .safetensors files

describe("a tensor named '__proto__'", () => {
  test('round-trips through writeSafetensors and readSafetensors as an own key; the result keeps its prototype', () => {
    const tensors = { ['__proto__']: { shape: [2], data: [1.5, -2] }, w: Float32Array.of(3) };
    expect(Object.keys(tensors)).toEqual(['__proto__', 'w']); // a computed key is an own property
    const bytes = posencEncoder.writeSafetensors(tensors, { metadata: { ['__proto__']: 'p', constructor: 'c' } });
    const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + Number(new DataView(bytes.buffer).getBigUint64(0, true)))));
    expect(Object.keys(header)).toEqual(['__metadata__', '__proto__', 'w']);
    const read = posencEncoder.readSafetensors(bytes);
    expect(Object.getPrototypeOf(read.tensors)).toBe(Object.prototype);
    expect(Object.keys(read.tensors)).toEqual(['__proto__', 'w']);
    expect(Object.hasOwn(read.tensors, '__proto__')).toBe(true);
    expect(Array.from(read.tensors['__proto__'].data)).toEqual([1.5, -2]);
    expect(read.tensors['__proto__'].shape).toEqual([2]);
    expect(Object.keys(read.metadata)).toEqual(['__proto__', 'constructor']);
    expect(read.metadata['__proto__']).toBe('p');
  });

  test('in a file written elsewhere, it is read as a tensor, never as the prototype of the result', () => {
    const json = '{"__proto__":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}';
    const bytes = new Uint8Array(8 + json.length + 4);
    new DataView(bytes.buffer).setBigUint64(0, BigInt(json.length), true);
    bytes.set(new TextEncoder().encode(json), 8);
    new DataView(bytes.buffer).setFloat32(8 + json.length, 0.25, true);
    const { tensors } = posencEncoder.readSafetensors(bytes);
    expect(Object.getPrototypeOf(tensors)).toBe(Object.prototype);
    expect(Object.keys(tensors)).toEqual(['__proto__']);
    expect(Array.from(tensors['__proto__'].data)).toEqual([0.25]);
  });
});
