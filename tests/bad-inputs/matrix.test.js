// The bad-input matrix, generated. One table describes every public function's
// parameters and their valid ranges; every parameter of every function gets
// every kind of bad value that applies (wrong type, NaN, +-Infinity, negative,
// non-integer, zero, huge, wrong typed-array type or length, detached buffers,
// freed or hand-made WasmArrays, views of freed wasm memory). Each must raise
// the documented class (TypeError: wrong type; RangeError: bad value or size)
// with a message naming the function and the parameter, leave every caller
// array untouched and leave the wasm heap where it was (posenc.memoryStats()).
import { posenc, posencEncoder, thrown } from '../helpers.js';

const I32 = 2 ** 31 - 1;
const I32_MIN = -(2 ** 31);
const FLT_MAX = 3.4028234663852886e38;

beforeAll(() => Promise.all([posenc.init(), posencEncoder.init()]));

// ------------------------------------------------------------------ bad values by kind
// Each kind lists [label, make(), error class]; make() builds a fresh value per case
// (detached buffers and freed WasmArrays are made right before the call).

const WRONG_TYPES = [
  ['a numeric string', '3'], ['true', true], ['null', null], ['an object', {}], ['a bigint', 3n],
  ['a symbol', Symbol('x')], ['an array', [3]], ['a boxed number', Object(3)], ['a function', () => 3],
];
const typeErrors = (list = WRONG_TYPES) => list.map(([label, v]) => [label, () => v, TypeError]);
const rangeErrors = (values) => values.map((v) => [String(v), () => v, RangeError]);
const NOT_FINITE = [NaN, Infinity, -Infinity];

/** An integer in [min, max]. */
const int = (min, max) => [
  ...typeErrors(),
  ...rangeErrors([...NOT_FINITE, min + 0.5, min - 1, max + 1, 2 ** 53, 1e308, -1e308].filter((v, i, a) => a.indexOf(v) === i)),
];
/** A finite number: above (exclusive), min, max (inclusive). */
const num = ({ above, min, max }) => [
  ...typeErrors(),
  ...rangeErrors([
    ...NOT_FINITE,
    ...(above !== undefined ? [above, above - 1, above - 1e6] : []),
    ...(min !== undefined ? [min - 1, min - 1e-9] : []),
    ...(max !== undefined ? [max * 2, -max * 2] : []),
  ]),
];
/** One of a set of strings. */
const oneOf = (values) => [
  ...typeErrors([[`0`, 0], ['null', null], ['true', true], ['an object', {}], ['an array', [values[0]]], ['a symbol', Symbol(values[0])]]),
  ...rangeErrors(['', values[0].toUpperCase(), ` ${values[0]}`, 'unknown']),
];
const bool = () => typeErrors([['0', 0], ['1', 1], ["'true'", 'true'], ['null', null], ['an object', {}]]);

const CTOR = { float32: Float32Array, int32: Int32Array, float64: Float64Array };
const OTHER = { float32: [Float64Array, Int32Array, Uint32Array], int32: [Uint32Array, Float32Array, Int16Array], float64: [Float32Array] };

function detached(Ctor, n) {
  const a = new Ctor(n);
  structuredClone(a.buffer, { transfer: [a.buffer] });
  return a;
}
// The entry of the function under test: bad WasmArrays are made by it (a
// WasmArray of the other entry is its own case, 'another copy of posenc').
let current = posenc;
const lib = () => current;
const ENCODER_FNS = new Set(['softmax', 'encoderTensorShapes', 'readSafetensors', 'writeSafetensors']);

const liveOwners = []; // WasmArrays whose views a case passes: freed after each test
afterEach(() => {
  for (const wa of liveOwners.splice(0)) wa.free();
});
function viewOfLive(type, n) {
  const wa = lib().allocate(type, n);
  liveOwners.push(wa);
  return wa.array;
}
function freedWasmArray(type, n) {
  const wa = lib().allocate(type, n);
  wa.free();
  return wa;
}
function viewOfFreed(type, n) {
  const wa = lib().allocate(type, n);
  const view = wa.array;
  wa.free();
  return view;
}

/** A typed array of `type` and exactly n elements (an out, or an input array). */
const array = (type, n) => [
  ...typeErrors([
    ['an Array', Array(n).fill(0)], ['null', null], ['a string', 'out'], ['an ArrayBuffer', new ArrayBuffer(4 * n)],
    ['a DataView', new DataView(new ArrayBuffer(4 * n))], ['an array-like', { length: n }], ['a number', n],
  ]),
  ...OTHER[type].map((C) => [`a ${C.name}`, () => new C(n), TypeError]),
  [`a '${type === 'int32' ? 'float32' : 'int32'}' WasmArray`, () => lib().allocate(type === 'int32' ? 'float32' : 'int32', n), TypeError],
  ['a hand-made WasmArray', () => new (lib().WasmArray)(16, type, n), TypeError],
  ...[n - 1, n + 1, 0].filter((m) => m >= 0 && m !== n).map((m) => [`length ${m}`, () => new CTOR[type](m), RangeError]),
  ['a detached array', () => detached(CTOR[type], n), RangeError],
  ['a freed WasmArray', () => freedWasmArray(type, n), RangeError],
  ['a view of a freed WasmArray', () => viewOfFreed(type, n), TypeError],
  ['a view of a live WasmArray', () => viewOfLive(type, n), TypeError],
  [`a WasmArray of length ${n + 1}`, () => lib().allocate(type, n + 1), RangeError],
];
/** An in-place array whose length must be a positive multiple of `unit` (x, w). */
const inPlace = (type, unit, { zeroOk = true } = {}) => [
  ...typeErrors([['an Array', [0, 0]], ['null', null], ['undefined', undefined], ['a string', 'x'], ['an object', {}]]),
  ...OTHER[type].map((C) => [`a ${C.name}`, () => new C(unit), TypeError]),
  ['a hand-made WasmArray', () => new (lib().WasmArray)(16, type, unit), TypeError],
  [`length ${unit + 1}`, () => new CTOR[type](unit + 1), RangeError],
  ...(zeroOk ? [] : [['length 0', () => new CTOR[type](0), RangeError]]),
  ['a detached array', () => detached(CTOR[type], unit), RangeError],
  ['a freed WasmArray', () => freedWasmArray(type, unit), RangeError],
  ['a view of a freed WasmArray', () => viewOfFreed(type, unit), TypeError],
  ['a view of a live WasmArray', () => viewOfLive(type, unit), TypeError],
];
/** LongRoPE's factor list: an Array, Float64Array or Float32Array of n finite numbers > 0. */
const factorList = (n) => [
  ...typeErrors([['a number', 1], ['a string', '1,1'], ['null', null], ['an object', {}], ['an Int32Array', new Int32Array(n)]]),
  [`length ${n - 1}`, () => Array(n - 1).fill(1), RangeError],
  [`length ${n + 1}`, () => new Float64Array(n + 1).fill(1), RangeError],
  ...[0, -1, NaN, Infinity].map((v) => [`an entry ${v}`, () => [1, v, ...Array(n - 2).fill(1)], RangeError]),
  ["an entry '1'", () => [1, '1', ...Array(n - 2).fill(1)], TypeError],
];
/** Real timesteps: a Float32Array, Float64Array or Array of n finite numbers. */
const timestepList = (n) => [
  ...typeErrors([['a number', 1], ['a string', '1,2'], ['null', null], ['an object', {}], ['an Int32Array', new Int32Array(n)],
    ['a Uint8Array', new Uint8Array(n)]]),
  ["a 'float64' WasmArray (timesteps are read, not used in place)", () => lib().allocate('float64', n), TypeError],
  ...[NaN, Infinity, -Infinity].map((v) => [`an entry ${v}`, () => [1, v, 3], RangeError]),
  ...[NaN, Infinity].map((v) => [`a Float64Array entry ${v}`, () => Float64Array.from([1, v, 3]), RangeError]),
  ["an entry '1'", () => [1, '1', 3], TypeError],
  ['an entry null', () => [1, null, 3], TypeError],
  ['a detached Float64Array', () => detached(Float64Array, n), RangeError],
  ['a view of a freed WasmArray', () => viewOfFreed('float64', n), TypeError],
];
/** M-RoPE's sections: an array of 3 integers >= 0 adding up to rotaryDim / 2 (4 here). */
const mropeSection = () => [
  ...typeErrors([['a number', 4], ['a string', '2,1,1'], ['null', null], ['an object', {}], ['an Int32Array', new Int32Array(3)]]),
  ...[[2, 2], [1, 1, 1, 1], [2, -1, 3], [2, 1.5, 0.5], [NaN, 2, 2], [2, 1, 0], [8, 0, 0]].map((v) => [JSON.stringify(v), () => v, RangeError]),
  ["an entry '2'", () => ['2', 1, 1], TypeError],
];
/** mropePositions' spans. */
const spanList = () => [
  ...typeErrors([['a number', 3], ['a string', 'text'], ['null', null], ['an object', { text: 3 }]]),
  ...[
    ['a text count -1', [{ text: -1 }], RangeError], ['a text count 1.5', [{ text: 1.5 }], RangeError], ["a text count '3'", [{ text: '3' }], TypeError],
    ['an unknown kind', [{ audio: 3 }], TypeError], ['two kinds in one span', [{ text: 1, image: [1, 2, 2] }], TypeError], ['a number span', [3], TypeError],
    ['a grid of 2', [{ image: [1, 2] }], RangeError], ['a grid t of 0', [{ image: { t: 0, h: 2, w: 2 } }], RangeError], ['a grid h of 3', [{ image: [1, 3, 2] }], RangeError],
    ['a grid without w', [{ video: { t: 1, h: 2 } }], TypeError], ['an unknown grid key', [{ image: { t: 1, h: 2, w: 2, fps: 2 } }], TypeError],
    ['secondsPerGrid -1', [{ video: { t: 1, h: 2, w: 2, secondsPerGrid: -1 } }], RangeError], ['secondsPerGrid NaN', [{ video: { t: 1, h: 2, w: 2, secondsPerGrid: NaN } }], RangeError],
  ].map(([label, v, Err]) => [label, () => v, Err]),
];
/** A patch grid { height, width }. */
const patchGrid = () => [
  ...typeErrors([['a number', 4], ['a string', '2x2'], ['null', null], ['an array', [2, 2]], ['a Float32Array', new Float32Array(2)]]),
  ['an unknown key', () => ({ height: 2, width: 3, depth: 1 }), TypeError],
  ['no width', () => ({ height: 2 }), TypeError],
];
/** An options-like object (scaling, config): wrong types; `null` may be allowed. */
const object = ({ nullOk }) =>
  typeErrors([['a string', 'linear'], ['a number', 3], ['true', true], ['an array', []], ['a Float32Array', new Float32Array(2)], ...(nullOk ? [] : [['null', null]])]);

// ------------------------------------------------------------------ the table
// fn: the function; args(): valid arguments { x?, options, ... }; call(args);
// params: path in args -> kind. The path names the parameter in the message,
// less its leading 'options.' (positional arguments are named as such).

const f32 = (n, fill = 7) => new Float32Array(n).fill(fill);
const i32 = (n, fill = 7) => new Int32Array(n).fill(fill);
const LAYOUTS = ['interleaved', 'concatenated', 'tensor2tensor', 'fairseq'];
const SCALINGS = {
  linear: { type: 'linear', factor: 2 },
  dynamic: { type: 'dynamic', factor: 2, maxPositionEmbeddings: 16 },
  yarn: { type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 4096 },
  llama3: { type: 'llama3', factor: 8, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPositionEmbeddings: 8192 },
  longrope: { type: 'longrope', shortFactor: [1, 1, 1, 1], longFactor: [2, 2, 2, 2], originalMaxPositionEmbeddings: 4096, maxPositionEmbeddings: 8192 },
};
// Each scaling type's parameters (rotaryDim 8: factor lists of 4).
const SCALING_PARAMS = {
  linear: { factor: num({ above: 0 }) },
  dynamic: { factor: num({ above: 0 }), maxPositionEmbeddings: int(1, I32), seqLength: int(0, 2 ** 31) },
  yarn: {
    factor: num({ above: 0 }), originalMaxPositionEmbeddings: int(1, I32), maxPositionEmbeddings: int(1, I32),
    betaFast: num({ above: 0 }).concat(rangeErrors([0.5])), betaSlow: num({ above: 0 }), mscale: num({ min: 0 }), mscaleAllDim: num({ min: 0 }),
    attentionFactor: num({ above: 0 }), truncate: bool(),
  },
  llama3: {
    factor: num({ above: 0 }), lowFreqFactor: num({ above: 0 }).concat(rangeErrors([5])), highFreqFactor: num({ above: 0 }).concat(rangeErrors([0.5])),
    originalMaxPositionEmbeddings: int(1, I32), maxPositionEmbeddings: int(1, I32),
  },
  longrope: {
    shortFactor: factorList(4), longFactor: factorList(4), originalMaxPositionEmbeddings: int(1, I32),
    maxPositionEmbeddings: int(1, I32), factor: num({ above: 0 }), attentionFactor: num({ above: 0 }), seqLength: int(0, 2 ** 31),
  },
};
// scaling.<key> for every type, with the other keys of that type valid.
function scalingRows(prefix) {
  const rows = [];
  for (const [type, params] of Object.entries(SCALING_PARAMS)) {
    for (const [key, kind] of Object.entries(params)) rows.push({ path: `${prefix}.${key}`, kind, scaling: type });
  }
  return rows;
}
const scalingType = [...typeErrors([['a number', 1], ['null', null], ['true', true]]), ...rangeErrors(['ntk', '', 'Linear', 'mrope'])];

const TABLE = [
  {
    fn: 'sinusoidal',
    args: () => ({ options: { length: 4, dModel: 6, out: f32(24) } }),
    call: (a) => posenc.sinusoidal(a.options),
    params: {
      length: int(0, I32), dModel: int(1, I32), base: num({ above: 1 }), offset: int(I32_MIN, I32),
      layout: oneOf(LAYOUTS), out: array('float32', 24),
    },
  },
  {
    fn: 'sinusoidalFrequencies',
    args: () => ({ options: { dModel: 6 } }),
    call: (a) => posenc.sinusoidalFrequencies(a.options),
    params: { dModel: int(1, I32), base: num({ above: 1 }), layout: oneOf(LAYOUTS) },
  },
  {
    fn: 'addSinusoidal',
    args: () => ({ x: f32(24), options: { dModel: 6, batch: 2 } }),
    call: (a) => posenc.addSinusoidal(a.x, a.options),
    params: {
      '#x': inPlace('float32', 12), dModel: int(1, I32), batch: int(1, I32), order: oneOf(['bsd', 'sbd']),
      scale: num({}).concat(rangeErrors([1e39, -1e39, FLT_MAX * 2])), base: num({ above: 1 }), offset: int(I32_MIN, I32), layout: oneOf(LAYOUTS),
    },
  },
  {
    fn: 'sinusoidal2d',
    args: () => ({ options: { height: 2, width: 3, dModel: 8, out: f32(48) } }),
    call: (a) => posenc.sinusoidal2d(a.options),
    params: {
      height: int(0, I32), width: int(0, I32), dModel: int(4, I32).concat(rangeErrors([6, 10])), base: num({ above: 1 }),
      clsToken: bool(), baseSize: num({ above: 0 }), interpolationScale: num({ above: 0 }), out: array('float32', 48),
    },
  },
  {
    fn: 'timestepEmbedding',
    args: () => ({ options: { timesteps: [1, 2.5, 999], dim: 8, out: f32(24) } }),
    call: (a) => posenc.timestepEmbedding(a.options),
    params: {
      timesteps: timestepList(3), dim: int(1, I32), flipSinToCos: bool(), downscaleFreqShift: num({}).concat(rangeErrors([4])),
      scale: num({}), maxPeriod: num({ above: 0 }), out: array('float32', 24),
    },
  },
  {
    fn: 'relativePositions',
    args: () => ({ options: { queryLength: 4, keyLength: 6, out: i32(24) } }),
    call: (a) => posenc.relativePositions(a.options),
    params: { queryLength: int(0, I32), keyLength: int(0, I32), shift: int(I32_MIN, I32), out: array('int32', 24) },
  },
  {
    fn: 'ropeFrequencies',
    args: () => ({ options: { rotaryDim: 8, base: 10000 } }),
    call: (a) => posenc.ropeFrequencies(a.options),
    params: {
      rotaryDim: int(2, I32 - 1).concat(rangeErrors([7, 0, -8])), base: num({ above: 1 }), scaling: object({ nullOk: true }), 'scaling.type': scalingType,
      mropeSection: mropeSection(), rope2d: oneOf(['pixtral', 'axial']),
    },
    rows: scalingRows('scaling'),
  },
  {
    fn: 'ropeCache',
    args: () => ({ options: { length: 4, rotaryDim: 8, out: { cos: f32(16), sin: f32(16) } } }),
    call: (a) => posenc.ropeCache(a.options),
    params: {
      length: int(0, I32), offset: int(I32_MIN, I32), rotaryDim: int(2, I32 - 1).concat(rangeErrors([7, 0])), base: num({ above: 1 }),
      precision: oneOf(['float64', 'float32']), scaling: object({ nullOk: true }), 'scaling.type': scalingType,
      out: object({ nullOk: false }).concat([['a Float32Array', () => f32(16), TypeError], ['a WasmArray', () => lib().allocate('float32', 16), TypeError]]),
      'out.cos': array('float32', 16), 'out.sin': array('float32', 16),
      mropeSection: mropeSection(), rope2d: oneOf(['pixtral', 'axial']), grid: patchGrid(),
      'grid.height': int(0, I32), 'grid.width': int(0, I32),
    },
    rows: [
      ...scalingRows('scaling'),
      // positions instead of offset: an Int32Array of `length` entries
      ...array('int32', 4).map((bad) => ({ path: 'positions', kind: [bad] })),
    ],
  },
  {
    fn: 'applyRope',
    args: () => ({ x: f32(2 * 3 * 8), options: { heads: 2, headDim: 8, batch: 1 } }),
    call: (a) => posenc.applyRope(a.x, a.options),
    params: {
      '#x': inPlace('float32', 16), heads: int(1, I32).concat(rangeErrors([5])), headDim: int(1, I32).concat(rangeErrors([7])),
      rotaryDim: int(2, I32 - 1).concat(rangeErrors([5, 10, 0])), layout: oneOf(['half', 'interleaved']), base: num({ above: 1 }),
      offset: int(I32_MIN, I32).concat(rangeErrors([I32 - 1])), batch: int(1, I32).concat(rangeErrors([2, 4])),
      order: oneOf(['bshd', 'bhsd']).concat(rangeErrors(['bsd', 'sbd', 'bshd '])),
      precision: oneOf(['float64', 'float32']), scaling: object({ nullOk: true }), 'scaling.type': scalingType,
      mropeSection: mropeSection(), rope2d: oneOf(['pixtral', 'axial']), grid: patchGrid(),
      'grid.height': int(0, I32), 'grid.width': int(0, I32),
    },
    rows: [
      ...scalingRows('scaling'),
      // positions: one per row (3) or per batch and row
      ...array('int32', 3).map((bad) => ({ path: 'positions', kind: [bad] })),
    ],
  },
  {
    fn: 'mropePositions',
    args: () => ({ options: { spans: [{ text: 5 }, { image: [1, 4, 4] }], out: i32(27) } }),
    call: (a) => posenc.mropePositions(a.options),
    params: {
      spans: spanList(), spatialMergeSize: int(1, I32).concat(rangeErrors([3])), tokensPerSecond: num({ min: 0 }), out: array('int32', 27),
    },
  },
  {
    fn: 'ropePermuteWeights',
    args: () => ({ w: Float32Array.from({ length: 2 * 8 * 3 }, (_, i) => i), options: { heads: 2, headDim: 8, from: 'interleaved', to: 'half', out: f32(48) } }),
    call: (a) => posenc.ropePermuteWeights(a.w, a.options),
    params: {
      '#w': inPlace('float32', 16, { zeroOk: false }), heads: int(1, I32).concat(rangeErrors([5])), headDim: int(1, I32).concat(rangeErrors([5])),
      rotaryDim: int(2, I32 - 1).concat(rangeErrors([3, 16])), from: oneOf(['half', 'interleaved']), to: oneOf(['half', 'interleaved']),
      out: array('float32', 48),
    },
  },
  {
    fn: 'ropeFromConfig',
    args: () => ({ config: { head_dim: 64, num_attention_heads: 8, num_hidden_layers: 32, max_position_embeddings: 4096, rope_theta: 10000 }, options: {} }),
    call: (a) => posenc.ropeFromConfig(a.config, a.options),
    params: {
      '#config': object({ nullOk: false }),
      '#config.rope_theta': typeErrors([['a string', '10000'], ['true', true], ['an object', {}]]).concat(rangeErrors([1, 0.5, NaN, Infinity, -1])),
      '#config.partial_rotary_factor': typeErrors([['a string', '0.5']]).concat(rangeErrors([0, 1.5, NaN, -0.5])),
      '#config.head_dim': typeErrors([['a string', '64']]).concat(rangeErrors([1.5, -1, 63.5])),
      '#config.rope_scaling': object({ nullOk: true }),
      '#config.rope_scaling.rope_type': typeErrors([['a number', 3], ['true', true]]).concat(rangeErrors(['ntk', 'mrope3d'])),
      'layerType': typeErrors([['a number', 3], ['null', null], ['an object', {}]]).concat(rangeErrors(['full_attention'])),
      'layer': int(0, I32).concat(rangeErrors([32])),
      '#config.model_type': typeErrors([['a number', 3], ['an object', {}]]),
      '#config.text_config': typeErrors([['a number', 3], ['a string', 'llama'], ['an Array', []]]),
    },
  },
  {
    fn: 'alibiFromConfig',
    args: () => ({ config: { model_type: 'bloom', n_head: 16, hidden_size: 1024 } }),
    call: (a) => posenc.alibiFromConfig(a.config),
    params: {
      '#config': object({ nullOk: false }),
      '#config.n_head': typeErrors([['a string', '16'], ['true', true]]).concat(rangeErrors([0, -1, 1.5, NaN])),
      '#config.model_type': typeErrors([['a number', 3], ['an object', {}]]),
    },
  },
  {
    fn: 'queryScalesFromConfig',
    args: () => ({ config: { model_type: 'llama4_text', num_hidden_layers: 8, hidden_size: 512, num_attention_heads: 4 }, options: { layer: 3, length: 4 } }),
    call: (a) => posenc.queryScalesFromConfig(a.config, a.options),
    params: {
      '#config': object({ nullOk: false }),
      'layer': int(0, I32).concat(rangeErrors([8])),
      'layerType': typeErrors([['a number', 3], ['null', null]]),
      'length': int(0, I32),
      'offset': int(0, I32),
      '#config.floor_scale': typeErrors([['a string', '8192']]).concat(rangeErrors([0, -1, NaN])),
    },
  },
  {
    fn: 'alibiSlopes',
    args: () => ({ options: { heads: 8, maxBias: 8 } }),
    call: (a) => posenc.alibiSlopes(a.options),
    params: { heads: int(1, I32), maxBias: num({ above: 0 }) },
  },
  {
    fn: 'alibiBias',
    args: () => ({ options: { heads: 2, queryLength: 3, keyLength: 4, out: f32(24) } }),
    call: (a) => posenc.alibiBias(a.options),
    params: {
      heads: int(1, I32), queryLength: int(0, I32), keyLength: int(0, I32), causal: bool(), queryOffset: int(0, I32),
      maxBias: num({ above: 0 }), out: array('float32', 24),
    },
  },
  {
    fn: 't5Buckets',
    args: () => ({ options: { queryLength: 3, keyLength: 4, out: i32(12) } }),
    call: (a) => posenc.t5Buckets(a.options),
    params: {
      queryLength: int(0, I32), keyLength: int(0, I32), bidirectional: bool(), numBuckets: int(2, I32).concat(rangeErrors([3, 2])),
      maxDistance: int(1, I32).concat(rangeErrors([8, 2])), queryOffset: int(0, I32), out: array('int32', 12),
    },
  },
  {
    fn: 't5Bias',
    args: () => ({ options: { heads: 2, queryLength: 3, keyLength: 4, weights: Float32Array.from({ length: 64 }, (_, i) => i / 8), out: f32(24) } }),
    call: (a) => posenc.t5Bias(a.options),
    params: {
      heads: int(1, I32), queryLength: int(0, I32), keyLength: int(0, I32), bidirectional: bool(),
      numBuckets: int(2, I32).concat(rangeErrors([3])), maxDistance: int(1, I32).concat(rangeErrors([8])), queryOffset: int(0, I32),
      weights: array('float32', 64), out: array('float32', 24),
    },
  },
  {
    fn: 'debertaBuckets',
    args: () => ({ options: { queryLength: 3, keyLength: 4, out: i32(12) } }),
    call: (a) => posenc.debertaBuckets(a.options),
    params: {
      queryLength: int(0, I32), keyLength: int(0, I32), bucketSize: int(2, I32).concat(rangeErrors([0])),
      maxPosition: int(1, I32).concat(rangeErrors([129, 2])), out: array('int32', 12),
    },
  },
  {
    fn: 'transformerXLEmbedding',
    args: () => ({ options: { keyLength: 4, dModel: 6, clampLength: 2, out: f32(24) } }),
    call: (a) => posenc.transformerXLEmbedding(a.options),
    params: { keyLength: int(0, I32), dModel: int(1, I32).concat(rangeErrors([5])), clampLength: int(0, I32), out: array('float32', 24) },
  },
  {
    fn: 'softmax',
    args: () => ({ x: Float32Array.from({ length: 8 }, (_, i) => i - 3), options: { cols: 4 } }),
    call: (a) => posencEncoder.softmax(a.x, a.options),
    params: { '#x': inPlace('float32', 4, { zeroOk: false }), cols: int(1, I32).concat(rangeErrors([3, 16])) },
  },
  {
    fn: 'encoderTensorShapes',
    args: () => ({ options: { vocabSize: 10, dModel: 8, heads: 2, dFF: 16, layers: 1 } }),
    call: (a) => posencEncoder.encoderTensorShapes(a.options),
    params: {
      vocabSize: int(1, I32), dModel: int(1, I32).concat(rangeErrors([7])), heads: int(1, I32).concat(rangeErrors([3])),
      dFF: int(1, I32), layers: int(0, I32), norm: oneOf(['pre', 'post']), activation: oneOf(['relu', 'gelu', 'gelu_tanh']),
      finalNorm: bool(), embedScale: num({}).concat(rangeErrors([1e39, -1e39])), normEps: num({ above: 0 }),
      languages: int(0, I32), classes: int(0, I32), keepAttention: bool(),
    },
  },
  {
    fn: 'readSafetensors',
    args: () => ({ bytes: posencEncoder.writeSafetensors({ w: { shape: [2], data: new Float32Array([1, 2]) } }) }),
    call: (a) => posencEncoder.readSafetensors(a.bytes),
    params: {
      '#bytes': typeErrors([['null', null], ['a string', 'safetensors'], ['a number', 8], ['an Array', [1, 2, 3]], ['a Float32Array', new Float32Array(4)]])
        .concat([['a detached Uint8Array', () => detached(Uint8Array, 32), RangeError], ['8 bytes', () => new Uint8Array(8), RangeError]]),
    },
  },
  {
    fn: 'writeSafetensors',
    args: () => ({ tensors: { w: { shape: [2], data: new Float32Array([1, 2]) } }, options: {} }),
    call: (a) => posencEncoder.writeSafetensors(a.tensors, a.options),
    params: {
      '#tensors': object({ nullOk: false }),
      '#tensors.w': typeErrors([['a number', 3], ['a string', 'w'], ['null', null], ['an Array', [1, 2]]]),
      '#tensors.w.shape': typeErrors([['a number', 2], ['a string', '2'], ['[1.5]', [1.5]], ['[-1]', [-1]]]),
      '#tensors.w.data': typeErrors([['a number', 2], ['an Int32Array', new Int32Array(2)], ['null', null]]).concat(rangeErrors([[1, 2, 3]])),
      '#tensors.w.dtype': rangeErrors(['F64', 'I32', '', 'f32']),
    },
  },
  {
    fn: 'allocate',
    args: () => ({ type: 'float32', length: 4 }),
    call: (a) => posenc.allocate(a.type, a.length),
    params: {
      '#type': typeErrors([['a number', 4], ['null', null], ['Float32Array', Float32Array], ['an object', {}]]).concat(rangeErrors(['float16', 'Float32', ''])),
      '#length': typeErrors([['a string', '4'], ['null', null]]).concat(rangeErrors([0, -1, 1.5, NaN, Infinity, 2 ** 40])),
    },
  },
];

// ------------------------------------------------------------------ expansion

const setPath = (root, path, value) => {
  const keys = path.split('.');
  let at = root;
  for (const k of keys.slice(0, -1)) at = at[k];
  at[keys.at(-1)] = value;
};
// '#x' -> x (a positional argument); 'scaling.factor' -> options.scaling.factor
const argPath = (p) => (p.startsWith('#') ? p.slice(1) : `options.${p}`);
// names as the messages spell them, where they differ from the path
const NAMES = { '#tensors.w': "tensors['w']", '#tensors.w.shape': "tensors['w'].shape", '#tensors.w.data': "tensors['w'].data", '#tensors.w.dtype': "tensors['w'].dtype" };
const nameOf = (p) => NAMES[p] ?? (p.startsWith('#') ? p.slice(1) : p);

const cases = [];
for (const entry of TABLE) {
  const rows = Object.entries(entry.params).map(([path, kind]) => ({ path, kind })).concat(entry.rows ?? []);
  for (const row of rows) {
    for (const [label, make, Err] of row.kind) {
      cases.push({ entry, row, label, make, Err });
    }
  }
}

/** Every typed array and WasmArray reachable from the arguments, with a copy of its values. */
function snapshot(args) {
  const seen = [];
  const visit = (v, depth) => {
    if (v instanceof lib().WasmArray) {
      if (lib().WasmArray.state(v) === 'live') seen.push([v, Array.from(v.array)]);
    } else if (ArrayBuffer.isView(v) && !(v instanceof DataView)) {
      if (v.length > 0) seen.push([v, Array.from(v)]); // a detached array has nothing to compare
    } else if (Array.isArray(v)) {
      seen.push([v, v.slice()]);
    } else if (v && typeof v === 'object' && depth < 3) {
      for (const k of Object.keys(v)) visit(v[k], depth + 1);
    }
  };
  visit(args, 0);
  return seen;
}
const valuesOf = (v) => (v instanceof lib().WasmArray ? Array.from(v.array) : Array.from(v));

function expectRejected({ fn, call }, args, Err, names) {
  const arrays = snapshot(args);
  const before = lib().memoryStats();
  const error = thrown(() => call(args));
  expect(error).toBeInstanceOf(Err);
  expect(error.message).toContain(`posenc.${fn}:`);
  for (const name of names) expect(error.message).toContain(name);
  for (const [a, values] of arrays) expect(valuesOf(a)).toEqual(values);
  expect(lib().memoryStats()).toEqual(before);
}

/** Frees the WasmArrays a case made (live ones only), so cases do not add up. */
function freeMade(value) {
  if (value instanceof lib().WasmArray && lib().WasmArray.state(value) === 'live') value.free();
}

const generic = [];
const NO_OPTIONS = ['allocate', 'readSafetensors', 'alibiFromConfig'];
for (const entry of TABLE) {
  if (NO_OPTIONS.includes(entry.fn)) continue;
  const optional = ['ropeFromConfig', 'softmax', 'writeSafetensors'].includes(entry.fn); // options = {} by default
  for (const o of [null, 5, 'x', [], new Float32Array(2), ...(optional ? [] : [undefined])]) {
    if (entry.fn === 'alibiSlopes' && o === 5) continue; // alibiSlopes(5): the number-of-heads shorthand
    // writeSafetensors reads a typed array's indices as option keys: "unknown option '0'"
    const names = entry.fn === 'writeSafetensors' && ArrayBuffer.isView(o) ? ['option'] : ['options'];
    generic.push({ entry, what: `options ${o === undefined ? 'undefined' : ArrayBuffer.isView(o) ? 'a Float32Array' : JSON.stringify(o) ?? String(o)}`, patch: (a) => { a.options = o; }, Err: TypeError, names });
  }
  generic.push({ entry, what: 'an unknown option (a typo)', patch: (a) => { a.options.dmodel = 6; }, Err: TypeError, names: ["'dmodel'"] });
  const required = Object.keys(entry.args().options).filter((k) => !['out', 'batch', 'keyLength', 'base', 'maxBias', 'clampLength', 'cols', 'layer'].includes(k));
  for (const k of required) {
    generic.push({ entry, what: `${k} missing`, patch: (a) => { delete a.options[k]; }, Err: TypeError, names: [k, 'required'] });
  }
}

const TOTAL = cases.length + generic.length;

afterAll(() => {
  console.log(`bad-input matrix: ${TOTAL} cases (${cases.length} parameter values, ${generic.length} option-object cases) over ${TABLE.length} functions`);
});

test(`the matrix has ${TOTAL} cases over ${TABLE.length} functions`, () => {
  expect(cases.length).toBeGreaterThan(1000);
  // every function the package exports that takes arguments is in the table or tested below
  const covered = new Set([...TABLE.map((e) => e.fn), 'init', 'memoryStats', 'isReady', 'WasmArray', 'simdSupported', 'wasmBuild']);
  const core = ['sinusoidal', 'sinusoidalFrequencies', 'addSinusoidal', 'sinusoidal2d', 'timestepEmbedding', 'relativePositions', 'ropeFrequencies', 'ropeFromConfig', 'alibiFromConfig', 'queryScalesFromConfig',
    'ropeCache', 'applyRope', 'ropePermuteWeights', 'alibiSlopes', 'alibiBias', 't5Buckets', 't5Bias', 'debertaBuckets',
    'transformerXLEmbedding', 'allocate', 'mropePositions'];
  for (const fn of core) expect(covered.has(fn)).toBe(true);
});

describe.each(TABLE.map((e) => [e.fn, e]))('%s', (_fn, entry) => {
  const mine = cases.filter((c) => c.entry === entry);
  test.each(mine.map((c) => [c.row.path + (c.row.scaling ? ` (${c.row.scaling})` : ''), c.label, c.Err.name, c]))(
    '%s = %s -> %s',
    (_path, _label, _cls, { row, make, Err }) => {
      current = ENCODER_FNS.has(entry.fn) ? posencEncoder : posenc;
      const args = entry.args();
      if (row.scaling) setPath(args, argPath('scaling'), structuredClone(SCALINGS[row.scaling]));
      if (row.path.startsWith('scaling.') && !row.scaling) setPath(args, argPath('scaling'), structuredClone(SCALINGS.linear));
      if (row.path.startsWith('out.') && !args.options.out) args.options.out = {};
      if (row.path.startsWith('grid.')) Object.assign(args.options, { grid: { height: 2, width: 2 } });
      if (row.path.startsWith('#config.rope_scaling.')) args.config.rope_scaling = { rope_type: 'linear', factor: 2 };
      const value = make();
      setPath(args, argPath(row.path), value);
      try {
        expectRejected(entry, args, Err, [nameOf(row.path)]);
      } finally {
        freeMade(value);
      }
    },
  );
});

describe.each(TABLE.filter((e) => !NO_OPTIONS.includes(e.fn)).map((e) => [e.fn, e]))('%s: the options object', (_fn, entry) => {
  test.each(generic.filter((g) => g.entry === entry).map((g) => [g.what, g]))('%s', (_what, { patch, Err, names }) => {
    current = ENCODER_FNS.has(entry.fn) ? posencEncoder : posenc;
    const args = entry.args();
    patch(args);
    expectRejected(entry, args, Err, names);
  });
});

// ------------------------------------------------------------------ rules across parameters

const byFn = Object.fromEntries(TABLE.map((e) => [e.fn, e]));
// [fn, what, patch(args), class, names]
const crossCases = [
  ['sinusoidal', 'offset + length - 1 past int32', (a) => Object.assign(a.options, { offset: I32 - 2, out: undefined }), RangeError, ['offset']],
  ['sinusoidal', "layout 'fairseq' with dModel 3", (a) => Object.assign(a.options, { dModel: 3, layout: 'fairseq', out: f32(12) }), RangeError, ['dModel', 'fairseq']],
  ['sinusoidal', 'length * dModel past 2 GiB', (a) => Object.assign(a.options, { length: 2 ** 20, dModel: 2 ** 12, out: undefined }), RangeError, ['length * dModel']],
  ['sinusoidal', 'length * dModel = INT32_MAX^2', (a) => Object.assign(a.options, { length: I32, dModel: I32, out: undefined }), RangeError, ['length * dModel']],
  ['addSinusoidal', 'x.length not a multiple of batch * dModel', (a) => { a.x = f32(13); }, RangeError, ['batch * dModel = 12']],
  ['addSinusoidal', 'offset + seq - 1 past int32', (a) => Object.assign(a.options, { offset: I32 }), RangeError, ['offset']],
  ['sinusoidal2d', 'coordinates that overflow (1 / interpolationScale is inf)', (a) => Object.assign(a.options, { interpolationScale: 5e-324 }), RangeError, ['interpolationScale']],
  ['sinusoidal2d', 'baseSize / width / interpolationScale that overflows', (a) => Object.assign(a.options, { baseSize: 1e308, interpolationScale: 1e-10 }), RangeError, ['baseSize']],
  ['sinusoidal2d', '(1 + height * width) * dModel past 2 GiB', (a) => Object.assign(a.options, { height: 2 ** 14, width: 2 ** 14, clsToken: true, out: undefined }), RangeError, ['(1 + height * width) * dModel']],
  ['timestepEmbedding', 'scale * timestep overflows', (a) => Object.assign(a.options, { timesteps: [1, 1e300, 2], scale: 1e10 }), RangeError, ['scale', 'overflows']],
  ['timestepEmbedding', 'w_k overflows (downscaleFreqShift just past half)', (a) => Object.assign(a.options, { dim: 400, downscaleFreqShift: 200.001, out: f32(1200) }), RangeError, ['downscaleFreqShift', 'overflows']],
  ['timestepEmbedding', 'timesteps.length * dim past 2 GiB', (a) => Object.assign(a.options, { dim: 2 ** 30, out: undefined }), RangeError, ['timesteps.length * dim']],
  ['relativePositions', 'shift past int32 at the extremes', (a) => Object.assign(a.options, { shift: I32, out: undefined }), RangeError, ['shift']],
  ['relativePositions', 'queryLength * keyLength past 2 GiB', (a) => Object.assign(a.options, { queryLength: 2 ** 16, keyLength: 2 ** 16 + 1, out: undefined }), RangeError, ['queryLength * keyLength']],
  ['ropeFrequencies', 'a linear factor so small that frequencies pass 2^64', (a) => { a.options.scaling = { type: 'linear', factor: 1e-300 }; }, RangeError, ['factor: 1e-300']],
  ['ropeFrequencies', 'a YaRN attention factor past FLT_MAX', (a) => { a.options.scaling = { ...SCALINGS.yarn, attentionFactor: 1e300 }; }, RangeError, ['attentionFactor']],
  ['ropeFrequencies', 'LongRoPE factors so small that frequencies pass 2^64', (a) => { a.options.scaling = { ...SCALINGS.longrope, shortFactor: [1e-300, 1, 1, 1] }; }, RangeError, ['shortFactor']],
  ['ropeFrequencies', "dynamic with rotaryDim 2", (a) => Object.assign(a.options, { rotaryDim: 2, scaling: SCALINGS.dynamic }), RangeError, ['rotaryDim']],
  ['ropeCache', 'offset and positions', (a) => Object.assign(a.options, { offset: 0, positions: i32(4) }), RangeError, ['offset']],
  ['ropeCache', 'out.cos === out.sin', (a) => { const s = f32(16); a.options.out = { cos: s, sin: s }; }, RangeError, ['out.cos']],
  ['ropeCache', 'out.cos overlaps out.sin', (a) => { const s = f32(24); a.options.out = { cos: s.subarray(0, 16), sin: s.subarray(8) }; }, RangeError, ['out.cos']],
  ['ropeCache', 'positions inside out.cos', (a) => { const s = f32(20); a.options.out.cos = s.subarray(0, 16); a.options.positions = new Int32Array(s.buffer, 16, 4); delete a.options.length; }, RangeError, ['positions']],
  ['ropeCache', 'an extra key in out', (a) => { a.options.out.tan = f32(16); }, TypeError, ['out.tan']],
  ['ropeCache', 'a linear factor so small that frequencies pass 2^64', (a) => { a.options.scaling = { type: 'linear', factor: 1e-300 }; a.options.precision = 'float32'; }, RangeError, ['factor: 1e-300']],
  ['ropeCache', 'last position past int32', (a) => Object.assign(a.options, { offset: I32 - 2 }), RangeError, ['offset']],
  ['applyRope', 'positions inside x', (a) => { a.options.positions = new Int32Array(a.x.buffer, 0, 3); }, RangeError, ['positions']],
  ['applyRope', 'positions and offset', (a) => Object.assign(a.options, { offset: 1, positions: i32(3) }), RangeError, ['offset']],
  ['applyRope', 'odd headDim as the default rotaryDim', (a) => Object.assign(a.options, { heads: 16, headDim: 3 }), RangeError, ['rotaryDim']],
  ['applyRope', 'a linear factor so small that frequencies pass 2^64', (a) => { a.options.scaling = { type: 'linear', factor: 1e-300 }; }, RangeError, ['factor: 1e-300']],
  ['ropeCache', 'mropeInterleaved without mropeSection', (a) => Object.assign(a.options, { mropeInterleaved: true }), TypeError, ['mropeInterleaved', 'mropeSection']],
  ['ropeCache', 'M-RoPE positions not a multiple of 3', (a) => Object.assign(a.options, { mropeSection: [2, 1, 1], positions: i32(10), length: undefined, out: undefined }), RangeError, ['positions']],
  ['ropeCache', 'M-RoPE positions of another length', (a) => Object.assign(a.options, { mropeSection: [2, 1, 1], positions: i32(15) }), RangeError, ['positions']],
  ['ropeCache', 'rope2d with a rotaryDim not a multiple of 4', (a) => Object.assign(a.options, { rotaryDim: 6, rope2d: 'pixtral', grid: { height: 2, width: 2 }, out: undefined }), RangeError, ['rotaryDim', 'multiple of 4']],
  ['ropeCache', 'rope2d with a scaling', (a) => Object.assign(a.options, { rope2d: 'axial', grid: { height: 2, width: 2 }, scaling: { type: 'linear', factor: 2 } }), RangeError, ['scaling']],
  ['ropeCache', 'rope2d with grid and positions', (a) => Object.assign(a.options, { rope2d: 'axial', grid: { height: 2, width: 2 }, positions: i32(8), length: undefined }), RangeError, ['grid', 'positions']],
  ['ropeCache', 'rope2d with offset', (a) => Object.assign(a.options, { rope2d: 'axial', grid: { height: 2, width: 2 }, offset: 3 }), RangeError, ['offset']],
  ['ropeCache', 'grid without rope2d', (a) => Object.assign(a.options, { grid: { height: 2, width: 2 } }), RangeError, ['grid', 'rope2d']],
  ['ropeCache', 'mropeSection and rope2d', (a) => Object.assign(a.options, { mropeSection: [2, 1, 1], rope2d: 'pixtral', positions: i32(12), length: undefined }), RangeError, ['mropeSection', 'rope2d']],
  ['ropeCache', 'a grid of another length', (a) => Object.assign(a.options, { rope2d: 'pixtral', grid: { height: 2, width: 3 } }), RangeError, ['length', 'grid.height * grid.width = 6']],
  ['applyRope', 'a grid that is not the patches of x', (a) => Object.assign(a.options, { rope2d: 'pixtral', grid: { height: 2, width: 2 } }), RangeError, ['grid.height * grid.width']],
  ['applyRope', 'M-RoPE positions of another length', (a) => Object.assign(a.options, { mropeSection: [2, 1, 1], positions: i32(8) }), RangeError, ['positions', '3 * seq = 9']],
  ['applyRope', 'M-RoPE positions inside x', (a) => { a.options.mropeSection = [2, 1, 1]; a.options.positions = new Int32Array(a.x.buffer, 0, 9); }, RangeError, ['positions']],
  ['ropeFrequencies', 'mropeSection and rope2d', (a) => Object.assign(a.options, { mropeSection: [2, 1, 1], rope2d: 'axial' }), RangeError, ['not both']],
  ['mropePositions', 'temporal positions past int32', (a) => { a.options.spans = [{ video: { t: 3, h: 2, w: 2, secondsPerGrid: 1e9 } }]; a.options.tokensPerSecond = 100; a.options.out = undefined; }, RangeError, ['int32']],
  ['mropePositions', 'text past int32', (a) => { a.options.spans = [{ text: I32 }, { text: 2 }]; a.options.out = undefined; }, RangeError, ['spans[1] puts a position past int32']],
  ['ropeFromConfig', 'mrope_section that does not add up', (a) => { Object.assign(a.config, { model_type: 'qwen2_vl', rope_scaling: { type: 'mrope', mrope_section: [16, 16, 16] } }); }, RangeError, ['mrope_section']],
  ['ropeFromConfig', "rope_type 'mrope' without mrope_section", (a) => { Object.assign(a.config, { model_type: 'qwen2_vl', rope_scaling: { type: 'mrope' } }); }, TypeError, ['mrope_section']],
  ['ropeFromConfig', 'mrope_section without a model_type that reads it', (a) => { a.config.rope_scaling = { rope_type: 'default', mrope_section: [8, 12, 12] }; }, TypeError, ['mrope_section', 'model_type']],
  ['ropeFromConfig', 'mrope_section on a model_type that does not read it', (a) => { Object.assign(a.config, { model_type: 'llama', rope_scaling: { rope_type: 'default', mrope_section: [8, 12, 12] } }); }, RangeError, ['mrope_section', 'llama']],
  ['ropeFromConfig', 'interleaved mrope_section with too many pairs on an axis', (a) => { Object.assign(a.config, { model_type: 'qwen3_vl_text', head_dim: 32, rope_scaling: { rope_type: 'default', mrope_section: [0, 8, 8] } }); }, RangeError, ['mrope_section']],
  ['ropePermuteWeights', 'out is w', (a) => { a.options.out = a.w; }, RangeError, ['out']],
  ['ropePermuteWeights', 'out overlaps w', (a) => { const s = f32(60); a.w = s.subarray(0, 48); a.options.out = s.subarray(12); }, RangeError, ['out']],
  ['alibiBias', 'queryOffset + queryLength - 1 past int32', (a) => Object.assign(a.options, { queryOffset: I32, out: undefined }), RangeError, ['queryOffset']],
  ['alibiBias', 'heads * queryLength * keyLength past 2 GiB', (a) => Object.assign(a.options, { heads: 2 ** 12, queryLength: 2 ** 10, keyLength: 2 ** 10, out: undefined }), RangeError, ['heads * queryLength * keyLength']],
  ['t5Buckets', 'an odd numBuckets when bidirectional', (a) => Object.assign(a.options, { numBuckets: 33 }), RangeError, ['numBuckets']],
  ['t5Buckets', 'maxDistance <= numBuckets / 4', (a) => Object.assign(a.options, { maxDistance: 8 }), RangeError, ['maxDistance']],
  ['t5Buckets', 'queryOffset + queryLength - 1 past int32', (a) => Object.assign(a.options, { queryOffset: I32 - 1 }), RangeError, ['queryOffset']],
  ['t5Bias', 'weights of another numBuckets', (a) => Object.assign(a.options, { numBuckets: 16 }), RangeError, ['weights']],
  ['debertaBuckets', 'maxPosition <= bucketSize / 2 + 1', (a) => Object.assign(a.options, { bucketSize: 256, maxPosition: 129 }), RangeError, ['maxPosition']],
  ['debertaBuckets', 'buckets past int32', (a) => Object.assign(a.options, { bucketSize: I32, maxPosition: I32, queryLength: 2 ** 31 - 1, keyLength: 0, out: undefined }), RangeError, ['queryLength']],
  ['transformerXLEmbedding', 'an odd dModel', (a) => Object.assign(a.options, { dModel: 5, out: f32(20) }), RangeError, ['dModel', 'even']],
  ['transformerXLEmbedding', 'clampLength -1 (the reference spelling of no clamping)', (a) => Object.assign(a.options, { clampLength: -1 }), RangeError, ['clampLength', 'pass 0']],
  ['ropeFromConfig', 'an odd rotary dimension', (a) => { a.config = { head_dim: 10, partial_rotary_factor: 0.5 }; }, RangeError, ['partial_rotary_factor']],
  ['ropeFromConfig', 'neither head_dim nor hidden_size', (a) => { a.config = { num_attention_heads: 8 }; }, TypeError, ['config.head_dim']],
  ['ropeFromConfig', 'llama3 high < low', (a) => { a.config.rope_scaling = { rope_type: 'llama3', factor: 8, low_freq_factor: 2, high_freq_factor: 1, original_max_position_embeddings: 1024 }; }, RangeError, ['high_freq_factor']],
  ['ropeFromConfig', 'layerType for a per-layer config, unknown', (a) => { a.config = { head_dim: 8, rope_parameters: { full_attention: { rope_type: 'default' } } }; a.options = { layerType: 'sliding' }; }, RangeError, ['layerType']],
];

test.each(crossCases)('%s: %s', (fn, _what, patch, Err, names) => {
  const entry = byFn[fn];
  const args = entry.args();
  patch(args);
  expectRejected(entry, args, Err, names);
});

// ------------------------------------------------------------------ the other exports

test('init: options that are not an object are a TypeError, before and after loading', async () => {
  for (const bad of [5, 'x', null, true]) {
    await expect(posenc.init(bad)).rejects.toThrow(TypeError);
  }
});

test('WasmArray: double free, use after free, hand-made arrays raise errors and touch nothing', () => {
  const before = lib().memoryStats();
  const wa = lib().allocate('float32', 8);
  wa.free();
  expect(thrown(() => wa.free()).message).toContain('already freed');
  expect(thrown(() => wa.array).message).toContain('after free');
  const forged = new (lib().WasmArray)(16, 'float32', 8);
  expect(thrown(() => forged.array)).toBeInstanceOf(TypeError);
  expect(thrown(() => forged.free())).toBeInstanceOf(TypeError);
  expect(lib().memoryStats()).toEqual(before);
});

// ------------------------------------------------------------------ inputs that must work

// No work proportional to the huge dimension: that work would take minutes (Jest's timeout
// reports it); how long the calls take is bench/budgets.mjs's measurement, not this test's.
test('empty results with huge other dimensions return at once (no work proportional to them)', () => {
  expect(posenc.sinusoidal({ length: 0, dModel: I32 }).length).toBe(0);
  expect(posenc.addSinusoidal(new Float32Array(0), { dModel: I32 }).length).toBe(0);
  expect(posenc.alibiBias({ heads: I32, queryLength: 0, keyLength: 4 }).length).toBe(0);
  expect(posenc.alibiBias({ heads: I32, queryLength: 4, keyLength: 0 }).length).toBe(0);
  expect(posenc.applyRope(new Float32Array(0), { heads: 1, headDim: 2, batch: 2 ** 28, positions: new Int32Array(0) }).length).toBe(0);
  expect(posenc.t5Bias({ heads: 1, queryLength: 0, keyLength: I32, weights: new Float32Array(32) }).length).toBe(0);
});

describe('shared, frozen, non-extensible and resizable inputs', () => {
  // Decision: a SharedArrayBuffer-backed array is an ordinary caller array.
  // posenc computes into its own memory and copies the result in once, so it
  // works like any other array (another thread writing it meanwhile sees the
  // old values, then the new ones).
  const shared = (C, n) => new C(new SharedArrayBuffer(n * C.BYTES_PER_ELEMENT));
  const calls = [
    ['sinusoidal', (out) => posenc.sinusoidal({ length: 5, dModel: 6, offset: 3, out }), Float32Array, 30],
    ['relativePositions', (out) => posenc.relativePositions({ queryLength: 3, keyLength: 5, shift: 2, out }), Int32Array, 15],
    ['alibiBias', (out) => posenc.alibiBias({ heads: 3, queryLength: 4, causal: false, out }), Float32Array, 48],
    ['t5Buckets', (out) => posenc.t5Buckets({ queryLength: 4, keyLength: 40, out }), Int32Array, 160],
    ['t5Bias', (out) => posenc.t5Bias({ heads: 2, queryLength: 3, weights: Float32Array.from({ length: 64 }, (_, i) => i), out }), Float32Array, 18],
    ['debertaBuckets', (out) => posenc.debertaBuckets({ queryLength: 3, keyLength: 300, out }), Int32Array, 900],
    ['transformerXLEmbedding', (out) => posenc.transformerXLEmbedding({ keyLength: 5, dModel: 4, out }), Float32Array, 20],
    ['ropePermuteWeights', (out) => posenc.ropePermuteWeights(Float32Array.from({ length: 32 }, (_, i) => i), { heads: 1, headDim: 8, from: 'interleaved', to: 'half', out }), Float32Array, 32],
  ];
  test.each(calls)('%s: a SharedArrayBuffer-backed out is filled exactly like a plain one', (_fn, call, C, n) => {
    const before = lib().memoryStats();
    const plain = call(new C(n));
    const out = shared(C, n);
    expect(call(out)).toBe(out);
    expect(Array.from(out)).toEqual(Array.from(plain));
    expect(lib().memoryStats()).toEqual(before);
  });

  test('SharedArrayBuffer-backed x, positions, ropeCache out, weights', () => {
    const x = shared(Float32Array, 48);
    x.set(Float32Array.from({ length: 48 }, (_, i) => i / 7 - 3));
    const plain = Float32Array.from(x);
    const positions = shared(Int32Array, 3);
    positions.set([5, 9, 2]);
    posenc.applyRope(x, { heads: 2, headDim: 8, positions });
    posenc.applyRope(plain, { heads: 2, headDim: 8, positions: Int32Array.from(positions) });
    expect(Array.from(x)).toEqual(Array.from(plain));
    const addX = shared(Float32Array, 24).fill(1);
    posenc.addSinusoidal(addX, { dModel: 6 });
    expect(Array.from(addX)).toEqual(Array.from(posenc.addSinusoidal(f32(24, 1), { dModel: 6 })));
    const out = { cos: shared(Float32Array, 12), sin: shared(Float32Array, 12) };
    posenc.ropeCache({ positions, rotaryDim: 8, out });
    const ref = posenc.ropeCache({ positions: Int32Array.from(positions), rotaryDim: 8 });
    expect([Array.from(out.cos), Array.from(out.sin)]).toEqual([Array.from(ref.cos), Array.from(ref.sin)]);
  });

  test('frozen options, scaling objects and factor lists are read, never written', () => {
    const scaling = Object.freeze({ type: 'longrope', shortFactor: Object.freeze([1, 1.5, 2, 3]), longFactor: Object.freeze([2, 2, 2, 2]), originalMaxPositionEmbeddings: 64, maxPositionEmbeddings: 128 });
    const options = Object.freeze({ rotaryDim: 8, length: 4, scaling });
    const a = posenc.ropeCache(options);
    const b = posenc.ropeCache({ rotaryDim: 8, length: 4, scaling: { ...scaling, shortFactor: [1, 1.5, 2, 3], longFactor: [2, 2, 2, 2] } });
    expect(Array.from(a.cos)).toEqual(Array.from(b.cos));
    expect(posenc.sinusoidal(Object.freeze({ length: 2, dModel: 4 }))).toEqual(posenc.sinusoidal({ length: 2, dModel: 4 }));
    const config = Object.freeze({ head_dim: 64, rope_scaling: Object.freeze({ rope_type: 'linear', factor: 2 }) });
    expect(posenc.ropeFromConfig(config).scaling).toEqual({ type: 'linear', factor: 2 });
  });

  test('a non-extensible out and a length-tracking view of a resizable buffer are filled', () => {
    const out = Object.preventExtensions(new Float32Array(8));
    expect(posenc.sinusoidal({ length: 2, dModel: 4, out })[4]).toBe(Math.fround(Math.sin(1)));
    const tracking = new Float32Array(new ArrayBuffer(32, { maxByteLength: 64 }));
    expect(posenc.sinusoidal({ length: 2, dModel: 4, out: tracking })[4]).toBe(Math.fround(Math.sin(1)));
  });

  test('a view left out of bounds by shrinking its resizable buffer is a RangeError naming out', () => {
    const buffer = new ArrayBuffer(32, { maxByteLength: 64 });
    const out = new Float32Array(buffer, 0, 8);
    buffer.resize(8);
    const e = thrown(() => posenc.sinusoidal({ length: 2, dModel: 4, out }));
    expect(e).toBeInstanceOf(RangeError);
    expect(e.message).toContain('out must have length 8');
  });
});

test('length 0 is an empty result, not an error', () => {
  expect(posenc.sinusoidal({ length: 0, dModel: 6 })).toEqual(new Float32Array(0));
  expect(posenc.relativePositions({ queryLength: 0, keyLength: 5 })).toEqual(new Int32Array(0));
  const x = new Float32Array(0);
  expect(posenc.addSinusoidal(x, { dModel: 4 })).toBe(x);
  expect(posenc.ropeCache({ length: 0, rotaryDim: 4 }).cos.length).toBe(0);
});
