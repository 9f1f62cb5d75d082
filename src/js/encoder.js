// encoder.js: a tiny transformer encoder running in wasm (formulas, parameter
// layout and workspace in include/posenc.h, posenc_encoder_forward). This file
// validates options, maps named tensors onto the flat parameter buffer, and
// keeps the encoder's wasm buffers until dispose().
import { WasmArray, allocate, describe, heapCall, typeOf } from './heap.js';
import { wasm } from './wasm.js';
import { INT32_MAX, boolean, elementCount, integer, number, oneOf, readOptions, typedArray } from './params.js';
import { ROPE_LAYOUTS, ropeFrequencies } from './rope.js';
import { LAYOUTS } from './sinusoidal.js';
import { parseSafetensors, writeSafetensors } from './safetensors.js';

const POSENC_ERR_SIZE_OVERFLOW = -3; // posenc_status

/** Positional schemes, in the order of the C enum posenc_positional. */
export const POSITIONAL_TYPES = ['none', 'sinusoidal', 'rope', 'alibi', 't5', 'learned'];
/** The metadata key of a .safetensors file that holds the encoder's options as JSON. */
export const CONFIG_METADATA_KEY = 'posenc.config';
const NORMS = ['pre', 'post'];
const ACTIVATIONS = ['relu', 'gelu', 'gelu_tanh'];
const PRECISIONS = ['float64', 'float32'];
const FLT_MAX = 3.4028234663852886e38;

const fail = (Err, fn, name, allowed, v) => new Err(`posenc.${fn}: ${name} must be ${allowed}, got ${describe(v)}`);
const isPlainObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v) && !ArrayBuffer.isView(v);
const later = (extra = {}) => ({ ...extra, check: (fn, name, v) => v });

/**
 * A deep copy of a value made of plain objects, arrays and typed arrays, read
 * once: own enumerable properties only (an inherited `constructor` or a
 * prototype's keys never count), typed arrays as plain arrays (so the copy
 * can be frozen and written as JSON). Later edits of the caller's objects
 * change nothing.
 */
function snapshot(v) {
  if (Array.isArray(v) || (ArrayBuffer.isView(v) && typeOf(v) !== 'DataView')) return Array.from(v, snapshot);
  if (isPlainObject(v)) return Object.fromEntries(Object.keys(v).map((k) => [k, snapshot(v[k])]));
  return v;
}

/** Freezes a snapshot() and everything in it. */
function deepFreeze(v) {
  if (v !== null && typeof v === 'object') Object.values(v).forEach(deepFreeze);
  return Object.freeze(v);
}

// ---------------------------------------------------------------- options

const POSITIONAL = {
  none: {},
  sinusoidal: { base: number({ above: 1, default: 10000 }), layout: oneOf(LAYOUTS, { default: 'interleaved' }) },
  rope: {
    base: number({ above: 1, default: 10000 }),
    scaling: later({ optional: true }),
    rotaryDim: integer(2, INT32_MAX, { optional: true }),
    layout: oneOf(ROPE_LAYOUTS, { default: 'half' }),
    precision: oneOf(PRECISIONS, { default: 'float64' }),
  },
  alibi: { maxBias: number({ above: 0, default: 8 }) },
  t5: {
    numBuckets: integer(2, INT32_MAX, { default: 32 }),
    maxDistance: integer(1, INT32_MAX, { default: 128 }),
    bidirectional: boolean({ default: true }),
  },
  learned: { maxLength: integer(1, INT32_MAX) },
};

/**
 * Reads `positional` ({ type, ...options }) for an encoder with headDim
 * features per head: its own properties, once (a snapshot, nested objects
 * such as rope's scaling included).
 */
function readPositional(fn, given, dModel, headDim) {
  const types = POSITIONAL_TYPES.map((t) => `'${t}'`).join(', ');
  if (!isPlainObject(given)) {
    throw fail(TypeError, fn, 'positional', `an object { type, ... } with type one of ${types}`, given);
  }
  const positional = snapshot(given);
  if (positional.type === undefined) throw new TypeError(`posenc.${fn}: positional.type is required (one of ${types})`);
  const type = oneOf(POSITIONAL_TYPES).check(fn, 'positional.type', positional.type);
  const spec = POSITIONAL[type];
  for (const key of Object.keys(positional)) {
    if (key !== 'type' && !Object.hasOwn(spec, key)) {
      throw new TypeError(
        `posenc.${fn}: unknown option 'positional.${key}' for type '${type}' (known: ${['type', ...Object.keys(spec)].join(', ')})`,
      );
    }
  }
  const p = { type };
  for (const [key, checker] of Object.entries(spec)) {
    const v = positional[key];
    if (v !== undefined) p[key] = checker.check(fn, `positional.${key}`, v);
    else if ('default' in checker) p[key] = checker.default;
    else if (!checker.optional) throw new TypeError(`posenc.${fn}: positional.${key} is required for type '${type}'`);
  }
  if (type === 'sinusoidal' && p.layout === 'fairseq' && dModel < 4) {
    throw new RangeError(`posenc.${fn}: positional.layout 'fairseq' needs dModel >= 4 (its formula divides by zero below that), got dModel ${dModel}`);
  }
  if (type === 'rope') {
    p.rotaryDim ??= headDim;
    if (p.rotaryDim % 2 || p.rotaryDim > headDim) {
      throw new RangeError(`posenc.${fn}: positional.rotaryDim must be an even integer from 2 to headDim = dModel / heads = ${headDim}, got ${p.rotaryDim}`);
    }
    ropeFrequenciesFor(fn, p, 0); // validates base and scaling now
  }
  if (type === 't5') {
    if (p.bidirectional && (p.numBuckets % 2 || p.numBuckets < 4)) {
      throw new RangeError(`posenc.${fn}: positional.numBuckets must be even and >= 4 when bidirectional (half per direction), got ${p.numBuckets}`);
    }
    const maxExact = Math.floor((p.bidirectional ? p.numBuckets / 2 : p.numBuckets) / 2);
    if (p.maxDistance <= maxExact) {
      throw new RangeError(`posenc.${fn}: positional.maxDistance must be > ${maxExact} (the distances with a bucket each; log(maxDistance / ${maxExact}) must be > 0), got ${p.maxDistance}`);
    }
  }
  return p;
}

/** RoPE frequencies for `seq` tokens (dynamic and longrope depend on it); errors name fn. */
function ropeFrequenciesFor(fn, p, seq) {
  let scaling = p.scaling;
  if (isPlainObject(scaling) && (scaling.type === 'dynamic' || scaling.type === 'longrope') && scaling.seqLength === undefined) {
    scaling = { ...scaling, seqLength: Math.max(seq, 1) }; // HF: max(position_ids) + 1
  }
  try {
    return ropeFrequencies({ rotaryDim: p.rotaryDim, base: p.base, scaling });
  } catch (error) {
    const message = error.message.replace(/^posenc\.ropeFrequencies: /, '');
    throw new error.constructor(`posenc.${fn}: positional (rope): ${message}`);
  }
}

const tokensAllowed = (vocab) => `an Int32Array or Array of integers from 0 to ${vocab - 1}`;

/** tokens -> Int32Array of ids < vocab, at least one. */
function readTokens(fn, tokens, vocab) {
  const ok = Array.isArray(tokens) || ['Int32Array', 'Uint8Array', 'Uint16Array', 'Uint32Array', 'Int16Array', 'Int8Array'].includes(typeOf(tokens));
  if (!ok) throw fail(TypeError, fn, 'tokens', tokensAllowed(vocab), tokens);
  if (tokens.length === 0) throw fail(RangeError, fn, 'tokens', `${tokensAllowed(vocab)}, at least one`, tokens);
  const ids = new Int32Array(tokens.length);
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (typeof t !== 'number') throw fail(TypeError, fn, `tokens[${i}]`, `an integer from 0 to ${vocab - 1}`, t);
    if (!Number.isInteger(t) || t < 0 || t >= vocab) throw fail(RangeError, fn, `tokens[${i}]`, `an integer from 0 to ${vocab - 1}`, t);
    ids[i] = t;
  }
  return ids;
}

/** mask -> Int32Array of 0/1 (1 = a real token, 0 = padding, Hugging Face's attention_mask). */
function readMask(fn, mask, seq) {
  const allowed = `an Array or typed array of ${seq} values 0 / 1 (or booleans): 1 keeps a token, 0 marks padding`;
  if (!Array.isArray(mask) && !(ArrayBuffer.isView(mask) && typeOf(mask) !== 'DataView')) throw fail(TypeError, fn, 'mask', allowed, mask);
  if (mask.length !== seq) throw new RangeError(`posenc.${fn}: mask must have length tokens.length = ${seq}, got ${mask.length}`);
  const out = new Int32Array(seq);
  for (let i = 0; i < seq; i++) {
    const m = mask[i];
    if (m !== 0 && m !== 1 && m !== true && m !== false && m !== 0n && m !== 1n) throw fail(RangeError, fn, `mask[${i}]`, '0, 1, true or false', m);
    out[i] = m === 1 || m === true || m === 1n ? 1 : 0;
  }
  return out;
}

// ---------------------------------------------------------------- tensors

/**
 * The tensors of an encoder, in the order of the flat parameter buffer
 * (include/posenc.h, posenc_encoder_sizes), then the classifier head (its own
 * buffer). Every tensor's element count is checked against what one buffer can
 * hold before anything is listed, drawn or allocated; the layers are described
 * once (a template) and walked by tensorsOf, so no list grows with `layers`.
 */
function tensorLayout(fn, c) {
  const d = c.dModel;
  const size = (shape) => shape.reduce((a, b) => a * b, 1);
  const place = (list, start = 0) => {
    let offset = start;
    for (const t of list) {
      t.offset = offset;
      t.size = size(t.shape);
      offset += t.size;
    }
    return offset - start;
  };
  // the element counts first, by the options that make them: vocabSize * dModel, classes * dModel, ...
  const counts = [{ vocabSize: c.vocabSize, dModel: d }, { dFF: c.dFF, dModel: d }, { classes: c.classes, dModel: d }];
  if (c.languages) counts.push({ languages: c.languages, dModel: d });
  if (c.positional.type === 't5') counts.push({ 'positional.numBuckets': c.positional.numBuckets, heads: c.heads });
  if (c.positional.type === 'learned') counts.push({ 'positional.maxLength': c.positional.maxLength, dModel: d });
  for (const factors of counts) elementCount(fn, factors);

  const before = [{ name: 'embed.weight', shape: [c.vocabSize, d], init: 'embed' }];
  if (c.positional.type === 'learned') before.push({ name: 'pos_embed.weight', shape: [c.positional.maxLength, d], init: 'embed' });
  if (c.languages) before.push({ name: 'language_embed.weight', shape: [c.languages, d], init: 'embed' });
  if (c.positional.type === 't5') before.push({ name: 'relative_attention_bias.weight', shape: [c.positional.numBuckets, c.heads], init: 'bias' });
  const layer = [];
  for (const proj of ['q_proj', 'k_proj', 'v_proj', 'out_proj']) {
    layer.push({ name: `self_attn.${proj}.weight`, shape: [d, d], init: 'linear', fanIn: d });
    layer.push({ name: `self_attn.${proj}.bias`, shape: [d], init: 'linear', fanIn: d });
  }
  layer.push({ name: 'norm1.weight', shape: [d], init: 'one' }, { name: 'norm1.bias', shape: [d], init: 'zero' });
  layer.push({ name: 'linear1.weight', shape: [c.dFF, d], init: 'linear', fanIn: d });
  layer.push({ name: 'linear1.bias', shape: [c.dFF], init: 'linear', fanIn: d });
  layer.push({ name: 'linear2.weight', shape: [d, c.dFF], init: 'linear', fanIn: c.dFF });
  layer.push({ name: 'linear2.bias', shape: [d], init: 'linear', fanIn: c.dFF });
  layer.push({ name: 'norm2.weight', shape: [d], init: 'one' }, { name: 'norm2.bias', shape: [d], init: 'zero' });
  const after = [];
  if (c.finalNorm) after.push({ name: 'norm.weight', shape: [d], init: 'one' }, { name: 'norm.bias', shape: [d], init: 'zero' });
  if (c.lmHead && !c.tieEmbeddings) after.push({ name: 'lm_head.weight', shape: [c.vocabSize, d], init: 'linear', fanIn: d });
  const head = c.classes
    ? [
        { name: 'head.weight', shape: [c.classes, d], init: 'linear', fanIn: d, head: true },
        { name: 'head.bias', shape: [c.classes], init: 'linear', fanIn: d, head: true },
      ]
    : [];

  const beforeLength = place(before);
  const layerLength = place(layer);
  const headLength = place(head);
  const afterLength = after.reduce((n, t) => n + size(t.shape), 0);
  elementCount(fn, { parameters: beforeLength + c.layers * layerLength + afterLength });
  elementCount(fn, { 'classes * (dModel + 1)': headLength });
  const layersStart = beforeLength;
  place(after, layersStart + c.layers * layerLength);
  return { before, layer, layerLength, layersStart, after, head, layers: c.layers, paramsLength: layersStart + c.layers * layerLength + afterLength, headLength };
}

/** Every tensor of a layout in buffer order, the classifier head last: { name, shape, init, offset, size, head? }. */
function* tensorsOf(layout) {
  yield* layout.before;
  for (let i = 0; i < layout.layers; i++) {
    const start = layout.layersStart + i * layout.layerLength;
    for (const t of layout.layer) yield { ...t, name: `layers.${i}.${t.name}`, offset: start + t.offset };
  }
  yield* layout.after;
  yield* layout.head;
}

/** The tensor of a layout named `name`, or undefined. */
function findTensor(layout, name) {
  const m = /^layers\.(0|[1-9]\d*)\.(.+)$/.exec(name);
  if (m) {
    const i = Number(m[1]);
    const t = i < layout.layers ? layout.layer.find((x) => x.name === m[2]) : undefined;
    return t && { ...t, name, offset: layout.layersStart + i * layout.layerLength + t.offset };
  }
  return [...layout.before, ...layout.after, ...layout.head].find((t) => t.name === name);
}

/**
 * xorshift32 (Marsaglia 2003, "Xorshift RNGs"): shifts and xors only, so it
 * runs at full speed in every engine; uniform in [0, 1). The seed is mixed
 * with the golden ratio (seed 0 would otherwise stick at 0) and stepped 8 times.
 */
function xorshift32(seed) {
  let a = (seed ^ 0x9e3779b9) >>> 0 || 1;
  const next = () => {
    a ^= a << 13;
    a ^= a >>> 17;
    a ^= a << 5;
    return (a >>> 0) / 4294967296;
  };
  for (let i = 0; i < 8; i++) next(); // nearby seeds part ways
  return next;
}

/**
 * Seeded weights, tensor by tensor in the naming order: embeddings U(-a, a)
 * with a = sqrt(3 / dModel) (standard deviation dModel^-1/2, so that
 * E * sqrt(dModel) has unit scale like the sinusoidal table); linear weights
 * and biases U(-1/sqrt(fanIn), 1/sqrt(fanIn)) (torch nn.Linear's bounds);
 * layer norms 1 and 0; the T5 bias table U(-0.5, 0.5).
 */
function seededValues(seed, c, layout, into) {
  const random = xorshift32(seed);
  for (const t of tensorsOf(layout)) {
    const view = into[t.head ? 'head' : 'params'].subarray(t.offset, t.offset + t.size);
    const bound = t.init === 'embed' ? Math.sqrt(3 / c.dModel) : t.init === 'bias' ? 0.5 : 1 / Math.sqrt(t.fanIn);
    for (let i = 0; i < view.length; i++) {
      view[i] = t.init === 'one' ? 1 : t.init === 'zero' ? 0 : (2 * random() - 1) * bound;
    }
  }
}

const sameShape = (a, b) => a.length === b.length && a.every((v, i) => v === b[i]);

/** Copies a map { name: { shape, data } | Float32Array } onto the buffers; strict about names and shapes. */
function mapTensors(fn, c, source, layout, into) {
  const what = 'weights';
  const packed = (name) => /^layers\.(\d+)\.self_attn\.in_proj_(weight|bias)$/.exec(name);
  for (const name of Object.keys(source)) {
    const m = packed(name);
    if (!findTensor(layout, name) && !(m && Number(m[1]) < c.layers)) {
      const hint = name === 'head.weight' || name === 'head.bias' ? ' (set classes to load a classifier head)'
        : name === 'lm_head.weight' ? (c.tieEmbeddings ? ' (tieEmbeddings: true takes the output head from embed.weight)' : ' (set lmHead: true to load an LM head)')
          : name === 'pos_embed.weight' ? " (positional { type: 'learned', maxLength } reads it)" : '';
      throw new RangeError(
        `posenc.${fn}: ${what} has an unexpected tensor '${name}'${hint}; the names are embed.weight, layers.{i}.self_attn.{q,k,v,out}_proj.{weight,bias}, layers.{i}.{norm1,norm2,linear1,linear2}.{weight,bias}, ... (README, tensor names)`,
      );
    }
  }
  const read = (name, shape) => {
    const t = source[name];
    const tensor = typeOf(t) === 'Float32Array' ? { shape: [t.length], data: t } : t;
    if (!isPlainObject(tensor) || !Array.isArray(tensor.shape) || !(Array.isArray(tensor.data) || ['Float32Array', 'Float64Array'].includes(typeOf(tensor.data)))) {
      throw fail(TypeError, fn, `${what}['${name}']`, '{ shape, data } with data a Float32Array (or a Float32Array)', t);
    }
    if (tensor.dtype !== undefined && !['F32', 'F16', 'BF16', 'F64'].includes(tensor.dtype)) {
      throw new RangeError(`posenc.${fn}: ${what}['${name}'] has dtype ${describe(tensor.dtype)}; the encoder takes F32, F16, BF16 or F64`);
    }
    if (!sameShape(tensor.shape, shape)) {
      throw new RangeError(`posenc.${fn}: ${what}['${name}'] must have shape [${shape.join(', ')}], got [${tensor.shape.join(', ')}]`);
    }
    const n = shape.reduce((a, b) => a * b, 1);
    if (tensor.data.length !== n) {
      throw new RangeError(`posenc.${fn}: ${what}['${name}'] must have ${n} values (shape [${shape.join(', ')}]), got ${tensor.data.length}`);
    }
    return tensor.data;
  };
  for (const t of tensorsOf(layout)) {
    const target = into[t.head ? 'head' : 'params'];
    const m = /^(layers\.\d+\.self_attn\.)([qkv])_proj\.(weight|bias)$/.exec(t.name);
    const packedName = m && `${m[1]}in_proj_${m[3]}`;
    if (packedName && packedName in source) {
      if (t.name in source) throw new RangeError(`posenc.${fn}: ${what} has both '${t.name}' and '${packedName}'; give one`);
      // PyTorch's nn.MultiheadAttention packs q, k, v: in_proj_weight [3d][d], in_proj_bias [3d]
      const d = c.dModel;
      const data = read(packedName, m[3] === 'weight' ? [3 * d, d] : [3 * d]);
      const part = 'qkv'.indexOf(m[2]);
      target.set(data.slice(part * t.size, (part + 1) * t.size), t.offset);
      continue;
    }
    if (!(t.name in source)) {
      throw new RangeError(`posenc.${fn}: ${what} is missing the tensor '${t.name}' [${t.shape.join(', ')}]`);
    }
    const data = read(t.name, t.shape);
    target.set(data, t.offset);
  }
}

/**
 * What `weights` holds, read once: { seed } or { tensors, metadata } (the
 * bytes of a .safetensors file parsed, or readSafetensors' result, or a map
 * of tensors with no metadata).
 */
function readWeightsSource(fn, weights) {
  const allowed = "{ seed } (seeded initialisation), the bytes of a .safetensors file, or { name: { shape, data } } tensors";
  if (isPlainObject(weights) && Object.keys(weights).length === 1 && Object.hasOwn(weights, 'seed')) {
    return { seed: integer(0, 2 ** 32 - 1).check(fn, 'weights.seed', weights.seed) };
  }
  if (typeOf(weights) === 'ArrayBuffer' || typeOf(weights) === 'Uint8Array' || typeOf(weights) === 'Buffer') {
    return parseSafetensors(fn, 'weights', weights);
  }
  if (isPlainObject(weights)) {
    const isFile = isPlainObject(weights.tensors) && Object.keys(weights).every((k) => k === 'tensors' || k === 'metadata');
    return isFile ? { tensors: weights.tensors, metadata: isPlainObject(weights.metadata) ? weights.metadata : {} } : { tensors: weights, metadata: {} };
  }
  throw fail(TypeError, fn, 'weights', allowed, weights);
}

/** The parameter and head buffers (host memory) for a layout, from the weights' source. */
function readWeights(fn, c, source, layout) {
  const into = { params: new Float32Array(layout.paramsLength), head: new Float32Array(layout.headLength) };
  if (source.seed !== undefined) seededValues(source.seed, c, layout, into);
  else mapTensors(fn, c, source.tensors, layout, into);
  return into;
}

// ---------------------------------------------------------------- the encoder

const createSpec = {
  vocabSize: integer(1, INT32_MAX),
  dModel: integer(1, INT32_MAX),
  heads: integer(1, INT32_MAX),
  dFF: integer(1, INT32_MAX),
  layers: integer(0, INT32_MAX),
  positional: later({ default: { type: 'sinusoidal' } }),
  norm: oneOf(NORMS, { default: 'pre' }),
  activation: oneOf(ACTIVATIONS, { default: 'relu' }),
  finalNorm: boolean({ default: false }),
  embedScale: number({ min: -FLT_MAX, max: FLT_MAX, optional: true }),
  normEps: number({ above: 0, default: 1e-5 }),
  languages: integer(0, INT32_MAX, { default: 0 }),
  classes: integer(0, INT32_MAX, { default: 0 }),
  lmHead: boolean({ optional: true }),
  tieEmbeddings: boolean({ default: false }),
  keepAttention: boolean({ default: true }),
  weights: later(),
};
const { weights: _weights, ...modelSpec } = createSpec;

/**
 * posenc_encoder_config (include/posenc.h), field by field in declaration
 * order, with the value each takes from a resolved config `c` and the RoPE
 * frequencies `rope` ({ pointer, attentionFactor } or null). The byte offsets
 * follow from the order and the wasm32 sizes (size_t, int and pointers 4
 * bytes, double 8, each aligned to its size); src/encoder.c asserts every one,
 * and tests/encoder-config.test.js checks this table against the header.
 */
export const CONFIG_FIELDS = [
  ['vocab_size', 'size_t', (c) => c.vocabSize],
  ['d_model', 'size_t', (c) => c.dModel],
  ['heads', 'size_t', (c) => c.heads],
  ['d_ff', 'size_t', (c) => c.dFF],
  ['layers', 'size_t', (c) => c.layers],
  ['languages', 'size_t', (c) => c.languages],
  ['positional', 'int', (c) => POSITIONAL_TYPES.indexOf(c.positional.type)],
  ['norm', 'int', (c) => NORMS.indexOf(c.norm)],
  ['activation', 'int', (c) => ACTIVATIONS.indexOf(c.activation)],
  ['final_norm', 'int', (c) => (c.finalNorm ? 1 : 0)],
  ['embed_scale', 'double', (c) => c.embedScale],
  ['norm_eps', 'double', (c) => c.normEps],
  ['sinusoidal_base', 'double', ({ positional: p }) => (p.type === 'sinusoidal' ? p.base : 0)],
  ['sinusoidal_layout', 'int', ({ positional: p }) => (p.type === 'sinusoidal' ? LAYOUTS.indexOf(p.layout) : 0)],
  ['rope_layout', 'int', ({ positional: p }) => (p.type === 'rope' ? ROPE_LAYOUTS.indexOf(p.layout) : 0)],
  ['rotary_dim', 'size_t', ({ positional: p }) => (p.type === 'rope' ? p.rotaryDim : 0)],
  ['rope_precision', 'int', ({ positional: p }) => (p.type === 'rope' ? PRECISIONS.indexOf(p.precision) : 0)],
  ['rope_inv_freq', 'pointer', (c, rope) => (rope ? rope.pointer : 0)],
  ['rope_attention_factor', 'double', (c, rope) => (rope ? rope.attentionFactor : 0)],
  ['alibi_max_bias', 'double', ({ positional: p }) => (p.type === 'alibi' ? p.maxBias : 0)],
  ['t5_num_buckets', 'size_t', ({ positional: p }) => (p.type === 't5' ? p.numBuckets : 0)],
  ['t5_max_distance', 'size_t', ({ positional: p }) => (p.type === 't5' ? p.maxDistance : 0)],
  ['t5_unidirectional', 'int', ({ positional: p }) => (p.type === 't5' && !p.bidirectional ? 1 : 0)],
  ['max_length', 'size_t', ({ positional: p }) => (p.type === 'learned' ? p.maxLength : 0)],
  ['lm_head', 'int', (c) => (c.tieEmbeddings ? 2 : c.lmHead ? 1 : 0)], // posenc_lm_head
];

/** The wasm32 size and DataView setter of each C type in CONFIG_FIELDS. */
const WASM32_TYPES = { size_t: [4, 'setUint32'], int: [4, 'setInt32'], pointer: [4, 'setUint32'], double: [8, 'setFloat64'] };

/** CONFIG_FIELDS with byte offsets, and the struct's size (a multiple of its widest field). */
export const CONFIG_LAYOUT = (() => {
  let at = 0;
  const fields = CONFIG_FIELDS.map(([name, type, value]) => {
    const [bytes, setter] = WASM32_TYPES[type];
    at = Math.ceil(at / bytes) * bytes;
    const field = { name, type, offset: at, setter, value };
    at += bytes;
    return field;
  });
  const align = Math.max(...fields.map((f) => WASM32_TYPES[f.type][0]));
  return { fields, bytes: Math.ceil(at / align) * align };
})();
const CONFIG_BYTES = CONFIG_LAYOUT.bytes;

function writeConfig(view, c, rope) {
  for (const f of CONFIG_LAYOUT.fields) view[f.setter](f.offset, f.value(c, rope), true);
}

/** Reads the encoder options of the caller, over those in the weights file's metadata when it has them. */
function readCreateOptions(fn, options) {
  if (!isPlainObject(options)) throw new TypeError(`posenc.${fn}: expects an options object, got ${describe(options)}`);
  const given = Object.fromEntries(Object.keys(options).map((k) => [k, options[k]])); // own keys, read once
  const source = given.weights === undefined ? undefined : readWeightsSource(fn, given.weights);
  const text = source?.metadata && Object.hasOwn(source.metadata, CONFIG_METADATA_KEY) ? source.metadata[CONFIG_METADATA_KEY] : undefined;
  if (text === undefined) return { o: readOptions(fn, given, createSpec), source, fromFile: false };
  const where = `weights' metadata '${CONFIG_METADATA_KEY}'`;
  let file;
  try {
    file = JSON.parse(text);
  } catch (error) {
    throw new RangeError(`posenc.${fn}: ${where} must be the encoder's options as JSON (encoder.toSafetensors() writes it), got unparsable text (${error.message})`);
  }
  if (!isPlainObject(file)) throw new RangeError(`posenc.${fn}: ${where} must be a JSON object of encoder options, got ${describe(file)}`);
  try {
    readOptions(fn, file, modelSpec); // alone, so that its errors name the file
  } catch (error) {
    throw new error.constructor(error.message.replace(`posenc.${fn}: `, `posenc.${fn}: ${where}: `));
  }
  // the caller's options win, key by key (keepAttention: false over a file, say)
  const merged = { ...file };
  for (const [key, v] of Object.entries(given)) if (v !== undefined) merged[key] = v;
  return { o: readOptions(fn, merged, createSpec), source, fromFile: true };
}

/**
 * Creates a tiny transformer encoder (include/posenc.h, posenc_encoder_forward):
 * x = embed[tokens] * embedScale (+ the sinusoidal table or a learned position
 * row) (+ a language row), then `layers` pre-norm (x + MHA(LN(x)),
 * x + FF(LN(x))) or post-norm layers, each with multi-head self-attention
 * (RoPE on q and k, or an ALiBi / T5 bias on the scores, as `positional`
 * says) and a ReLU / GELU feed-forward block; with an LM head, next-token
 * logits (encoder.logits).
 * @param {object} options
 *   vocabSize, dModel, heads (dModel a multiple of heads), dFF, layers;
 *   positional: { type: 'none' } | { type: 'sinusoidal', base?, layout? } |
 *     { type: 'rope', base?, scaling?, rotaryDim?, layout?, precision? } |
 *     { type: 'alibi', maxBias? } | { type: 't5', numBuckets?, maxDistance?, bidirectional? } |
 *     { type: 'learned', maxLength } (default sinusoidal); norm 'pre' (default) | 'post';
 *   activation 'relu' (default) | 'gelu' | 'gelu_tanh'; finalNorm (default false);
 *   embedScale (default, or 0: sqrt(dModel)); normEps (default 1e-5); languages (rows
 *   of a language embedding, default 0); classes (a linear head on the pooled output,
 *   default 0); lmHead (an LM head lm_head.weight, default false); tieEmbeddings (the
 *   LM head is embed.weight, default false); keepAttention (default true:
 *   attention(layer) after each call); weights: { seed } | .safetensors bytes |
 *   { name: { shape, data } } (names: README, or encoderTensorShapes()). A file
 *   whose metadata has 'posenc.config' (encoder.toSafetensors()) brings its own
 *   options: createEncoder({ weights: bytes }) is enough, and options given
 *   beside it win key by key.
 * @returns {Encoder} call dispose() when done: the encoder holds wasm memory
 */
export function createEncoder(options) {
  const fn = 'createEncoder';
  const { o, source, fromFile } = readCreateOptions(fn, options);
  const config = resolveConfig(fn, o);
  const layout = tensorLayout(fn, config);
  let host;
  try {
    host = readWeights(fn, config, source, layout);
  } catch (error) {
    if (!fromFile || !(error instanceof RangeError)) throw error;
    const message = error.message.replace(`posenc.${fn}: `, '');
    throw new RangeError(`posenc.${fn}: the options in weights' metadata '${CONFIG_METADATA_KEY}' (with the caller's over them) disagree with the file's tensors: ${message}`);
  }
  return new Encoder(config, layout, host);
}

/** Checks what one option says about another, fills derived defaults: the config an Encoder keeps. */
function resolveConfig(fn, o) {
  const { weights: _, ...c } = o;
  if (c.dModel % c.heads) {
    throw new RangeError(`posenc.${fn}: dModel must be a multiple of heads = ${c.heads} (each head takes dModel / heads features), got ${c.dModel}`);
  }
  c.positional = readPositional(fn, c.positional, c.dModel, c.dModel / c.heads);
  if (!c.embedScale) c.embedScale = Math.sqrt(c.dModel); // zero means default, as in C
  if (c.tieEmbeddings && c.lmHead === false) {
    throw new RangeError(`posenc.${fn}: tieEmbeddings: true is an LM head (its weight is embed.weight), got lmHead: false beside it`);
  }
  c.lmHead = c.tieEmbeddings || c.lmHead === true;
  return c;
}

/**
 * A tiny encoder created by createEncoder. Its methods are synchronous and
 * copy their results out of wasm memory. dispose() frees its wasm memory.
 */
class Encoder {
  #config;
  #layout;
  #buffers = {}; // name -> WasmArray: params, head, config, invFreq, sizes, hidden, work, attention, ...
  #invFreqSeq = -1; // the sequence length the RoPE frequencies were computed for
  #last = null; // { seq, mask } of the last forward pass
  #disposed = false;

  /** @internal use createEncoder() */
  constructor(config, layout, host) {
    this.#config = deepFreeze(snapshot(config));
    this.#layout = layout;
    const fn = 'createEncoder';
    const p = this.#config.positional;
    // all validation is done: only now does wasm memory get allocated
    const rope = p.type === 'rope' ? ropeFrequenciesFor(fn, p, 0) : null;
    try {
      this.#buffers.params = allocate('float32', Math.max(layout.paramsLength, 1));
      this.#buffers.params.array.set(host.params);
      if (layout.headLength) {
        this.#buffers.head = allocate('float32', layout.headLength);
        this.#buffers.head.array.set(host.head);
      }
      this.#buffers.config = allocate('float64', CONFIG_BYTES / 8);
      this.#buffers.sizes = allocate('int32', 2); // posenc_encoder_sizes' two size_t
      if (rope) this.#buffers.invFreq = allocate('float64', p.rotaryDim / 2);
    } catch (error) {
      this.dispose();
      throw error;
    }
    this.#writeConfig(rope);
  }

  /** The resolved options (defaults filled in), frozen. */
  get config() {
    return this.#config;
  }

  /** The number of parameters (floats), the classifier head included. */
  get parameterCount() {
    return this.#layout.paramsLength + this.#layout.headLength;
  }

  #writeConfig(rope) {
    const fn = 'createEncoder';
    const { memory } = wasm(fn);
    if (rope) this.#buffers.invFreq.array.set(rope.invFreq);
    const ptr = this.#buffers.config.pointer(fn);
    const at = rope && { pointer: this.#buffers.invFreq.pointer(fn), attentionFactor: rope.attentionFactor };
    writeConfig(new DataView(memory.buffer, ptr, CONFIG_BYTES), this.#config, at);
  }

  #alive(fn) {
    if (this.#disposed) throw new Error(`posenc.${fn}: the encoder was disposed`);
  }

  /** A wasm buffer of at least n floats under `name`, reallocated when too small. */
  #buffer(name, n) {
    const b = this.#buffers[name];
    if (b && b.length >= n) return b;
    if (b) b.free();
    this.#buffers[name] = null;
    this.#buffers[name] = allocate('float32', Math.max(n, 1));
    return this.#buffers[name];
  }

  /**
   * The workspace floats posenc_encoder_sizes asks for seq tokens (the C
   * decides: one formula, in include/posenc.h).
   */
  #workLength(fn, seq) {
    const { exports } = wasm(fn);
    const sizes = this.#buffers.sizes;
    const at = sizes.pointer(fn);
    const status = exports.posenc_encoder_sizes(this.#buffers.config.pointer(fn), seq, at, at + 4);
    if (status === POSENC_ERR_SIZE_OVERFLOW) {
      throw new RangeError(`posenc.${fn}: the workspace for tokens.length = ${seq} does not fit in wasm32's size_t (it grows as seq * seq * heads)`);
    }
    if (status !== 0) throw new Error(`posenc.${fn}: internal error ${status} from posenc_encoder_sizes`);
    return elementCount(fn, { workspace: sizes.array[1] >>> 0 });
  }

  /**
   * Validates (tokens, options) and runs one pass: 'forward' into the
   * `hidden` buffer ([seq][dModel]), or 'logits' into `lmLogits` ([seq][vocabSize]).
   */
  #run(fn, tokens, options, outLength, entry = 'forward') {
    this.#alive(fn);
    const c = this.#config;
    const ids = readTokens(fn, tokens, c.vocabSize);
    const seq = ids.length;
    const o = readOptions(fn, options, {
      mask: later({ optional: true }),
      causal: boolean({ default: false }),
      language: c.languages ? integer(0, c.languages - 1, { optional: true }) : later({ optional: true }),
      out: typedArray('float32', { optional: true }),
    });
    if (o.language !== undefined && !c.languages) {
      throw new RangeError(`posenc.${fn}: language needs an encoder created with languages > 0, got ${describe(o.language)}`);
    }
    const p = c.positional;
    if (p.type === 'learned' && seq > p.maxLength) {
      throw new RangeError(`posenc.${fn}: tokens must number at most positional.maxLength = ${p.maxLength} (the rows of pos_embed.weight), got ${seq} tokens`);
    }
    const mask = o.mask === undefined ? null : readMask(fn, o.mask, seq);
    const act = elementCount(fn, { seq, dModel: c.dModel });
    const outCount = entry === 'logits' ? elementCount(fn, { seq, vocabSize: c.vocabSize }) : act;
    const probs = c.keepAttention ? elementCount(fn, { layers: c.layers, heads: c.heads, 'seq * seq': seq * seq }) : 0;
    if (o.out !== undefined && o.out.length !== outLength(seq)) {
      throw new RangeError(`posenc.${fn}: out must have length ${outLength(seq)}, got ${o.out.length}`);
    }
    if (p.type === 'rope' && this.#invFreqSeq !== seq && isPlainObject(p.scaling) &&
        (p.scaling.type === 'dynamic' || p.scaling.type === 'longrope')) {
      this.#writeConfig(ropeFrequenciesFor(fn, p, seq));
      this.#invFreqSeq = seq;
    }
    const work = this.#workLength(fn, seq);
    const target = this.#buffer(entry === 'logits' ? 'lmLogits' : 'hidden', outCount);
    const workspace = this.#buffer('work', work);
    const attention = probs ? this.#buffer('attention', probs) : null;
    const { exports } = wasm(fn);
    const buffers = [
      { array: target, type: 'float32', length: outCount },
      { array: this.#buffers.config, type: 'float64', length: CONFIG_BYTES / 8 },
      { array: this.#buffers.params, type: 'float32', length: this.#layout.paramsLength },
      { array: workspace, type: 'float32', length: work },
      { array: ids, type: 'int32', length: seq, copyIn: true },
    ];
    if (attention) buffers.push({ array: attention, type: 'float32', length: probs });
    if (mask) buffers.push({ array: mask, type: 'int32', length: seq, copyIn: true });
    const call = entry === 'logits' ? exports.posenc_encoder_logits : exports.posenc_encoder_forward;
    heapCall(fn, buffers, (pOut, pConfig, pParams, pWork, pTokens, ...rest) => {
      const pAttention = attention ? rest.shift() : 0;
      const pMask = mask ? rest.shift() : 0;
      return call(
        pOut, outCount, pConfig, pParams, this.#layout.paramsLength, pTokens, seq, pMask, o.causal ? 1 : 0,
        o.language ?? -1, pAttention, probs, pWork, work,
      );
    });
    this.#last = { seq, mask };
    return { o, seq, act, mask, outCount };
  }

  /**
   * The encoder's output for tokens: a Float32Array [seq][dModel] (row s is
   * token s), or `options.out` filled.
   * @param {Int32Array | number[]} tokens ids in [0, vocabSize), at least one
   * @param {{ mask?: ArrayLike<number | boolean>, causal?: boolean, language?: number, out?: Float32Array }} [options]
   *   mask: 1 = token, 0 = padding (never attended to); causal: token i sees keys j <= i;
   *   language: a row of language_embed added to every token (the seed's translation encoder)
   * @returns {Float32Array}
   */
  forward(tokens, options = {}) {
    const fn = 'encoder.forward';
    const { o, act } = this.#run(fn, tokens, options, (seq) => seq * this.#config.dModel);
    return this.#copyOut(fn, 'hidden', act, o.out);
  }

  /**
   * Next-token logits at every position (posenc_encoder_logits): a
   * Float32Array [seq][vocabSize], row s = forward(tokens)[s] W^T with W
   * lm_head.weight, or embed.weight when tieEmbeddings. A language model
   * passes causal: true. Needs lmHead or tieEmbeddings.
   * @param {Int32Array | number[]} tokens ids in [0, vocabSize), at least one
   * @param {{ mask?, causal?: boolean, language?: number, out?: Float32Array }} [options] as forward; out has seq * vocabSize elements
   * @returns {Float32Array}
   */
  logits(tokens, options = {}) {
    const fn = 'encoder.logits';
    this.#alive(fn);
    const c = this.#config;
    if (!c.lmHead) throw new Error(`posenc.${fn}: the encoder has no LM head (create it with lmHead: true and an lm_head.weight tensor, or tieEmbeddings: true)`);
    const { o, outCount } = this.#run(fn, tokens, options, (seq) => seq * c.vocabSize, 'logits');
    return this.#copyOut(fn, 'lmLogits', outCount, o.out);
  }

  #copyOut(fn, name, n, out) {
    const view = this.#buffers[name].array.subarray(0, n);
    if (out === undefined) return view.slice();
    if (out instanceof WasmArray) out.array.set(view);
    else out.set(view);
    return out;
  }

  /**
   * Mean pooling of the output over the unmasked tokens (the seed's sentiment
   * sketch, x.mean(axis=1)): a Float32Array [dModel].
   * @param {Int32Array | number[]} tokens
   * @param {{ mask?, causal?, language?, out?: Float32Array }} [options] as forward; out has dModel elements
   * @returns {Float32Array}
   */
  pool(tokens, options = {}) {
    const fn = 'encoder.pool';
    const d = this.#config.dModel;
    const { o, seq, act, mask } = this.#run(fn, tokens, options, () => d);
    this.#pool(fn, seq, act, mask);
    return this.#copyOut(fn, 'pooled', d, o.out);
  }

  #pool(fn, seq, act, mask) {
    const d = this.#config.dModel;
    const pooled = this.#buffer('pooled', d);
    const { exports } = wasm(fn);
    const buffers = [
      { array: pooled, type: 'float32', length: d },
      { array: this.#buffers.hidden, type: 'float32', length: act },
    ];
    if (mask) buffers.push({ array: mask, type: 'int32', length: seq, copyIn: true });
    heapCall(fn, buffers, (pOut, pX, pMask = 0) => exports.posenc_mean_pool(pOut, d, pX, act, seq, d, pMask));
  }

  /**
   * The classifier head on the pooled output: logits = pool(tokens) W^T + b,
   * a Float32Array [classes] (needs classes > 0 and head.weight, head.bias).
   * @returns {Float32Array}
   */
  classify(tokens, options = {}) {
    const fn = 'encoder.classify';
    this.#alive(fn);
    const c = this.#config;
    if (!c.classes) throw new Error(`posenc.${fn}: the encoder has no classifier head (create it with classes > 0)`);
    const { o, seq, act, mask } = this.#run(fn, tokens, options, () => c.classes);
    this.#pool(fn, seq, act, mask);
    const logits = this.#buffer('logits', c.classes);
    const d = c.dModel;
    const { exports } = wasm(fn);
    heapCall(
      fn,
      [
        { array: logits, type: 'float32', length: c.classes },
        { array: this.#buffers.pooled, type: 'float32', length: d },
        { array: this.#buffers.head, type: 'float32', length: this.#layout.headLength },
      ],
      (pOut, pX, pHead) => exports.posenc_linear(pOut, c.classes, pX, d, 1, d, pHead, c.classes * d, c.classes, pHead + 4 * c.classes * d),
    );
    return this.#copyOut(fn, 'logits', c.classes, o.out);
  }

  /**
   * The attention probabilities of the last forward (or pool, classify) call
   * in layer `layer`: a Float32Array [heads][seq][seq], row i the query token,
   * column j the key; each row sums to 1 (0 for a query with every key masked).
   * @param {number} layer 0 .. layers - 1
   * @returns {Float32Array}
   */
  attention(layer) {
    const fn = 'encoder.attention';
    this.#alive(fn);
    const c = this.#config;
    if (!c.keepAttention) throw new Error(`posenc.${fn}: the encoder was created with keepAttention: false`);
    if (!this.#last) throw new Error(`posenc.${fn}: no forward pass yet (call forward(tokens) first)`);
    if (c.layers === 0) throw new RangeError(`posenc.${fn}: the encoder has no layers, got layer ${describe(layer)}`);
    integer(0, c.layers - 1).check(fn, 'layer', layer);
    const n = c.heads * this.#last.seq * this.#last.seq;
    return this.#buffers.attention.array.slice(layer * n, (layer + 1) * n);
  }

  /**
   * Every tensor of the encoder by name (the naming scheme of README and
   * include/posenc.h), copied: { name: { dtype: 'F32', shape, data } }, ready
   * for writeSafetensors().
   */
  tensors() {
    this.#alive('encoder.tensors');
    const out = {};
    const params = this.#buffers.params.array;
    const head = this.#buffers.head?.array;
    for (const t of tensorsOf(this.#layout)) {
      out[t.name] = { dtype: 'F32', shape: [...t.shape], data: (t.head ? head : params).slice(t.offset, t.offset + t.size) };
    }
    return out;
  }

  /**
   * A self-contained model file: the tensors as .safetensors bytes, with the
   * options (this.config as JSON) under the metadata key 'posenc.config', so
   * that createEncoder({ weights: bytes }) needs nothing else.
   * @param {{ metadata?: Record<string, string> }} [options] more metadata entries to write
   * @returns {Uint8Array}
   */
  toSafetensors(options = {}) {
    const fn = 'encoder.toSafetensors';
    this.#alive(fn);
    const o = readOptions(fn, options, { metadata: later({ optional: true }) });
    if (o.metadata !== undefined && (!isPlainObject(o.metadata) || !Object.values(o.metadata).every((v) => typeof v === 'string'))) {
      throw fail(TypeError, fn, 'metadata', 'an object mapping strings to strings', o.metadata);
    }
    if (o.metadata && Object.hasOwn(o.metadata, CONFIG_METADATA_KEY)) {
      throw new RangeError(`posenc.${fn}: metadata must not set '${CONFIG_METADATA_KEY}' (the encoder writes its own options there)`);
    }
    const metadata = { ...o.metadata, [CONFIG_METADATA_KEY]: JSON.stringify(this.#config) };
    return writeSafetensors(this.tensors(), { metadata });
  }

  /** Frees the encoder's wasm memory; later calls throw. Calling it again does nothing. */
  dispose() {
    for (const [name, b] of Object.entries(this.#buffers)) {
      if (b && !b.freed) b.free();
      this.#buffers[name] = null;
    }
    this.#disposed = true;
  }
}

/**
 * The tensor names and shapes createEncoder expects for these options (the
 * same options, without weights), in the order of the parameter buffer.
 * @returns {Record<string, number[]>}
 */
export function encoderTensorShapes(options) {
  const fn = 'encoderTensorShapes';
  const c = resolveConfig(fn, readOptions(fn, options, modelSpec));
  return Object.fromEntries(Array.from(tensorsOf(tensorLayout(fn, c)), (t) => [t.name, t.shape]));
}

// ---------------------------------------------------------------- softmax

/**
 * Softmax of each row of x [rows][cols], in place, numerically stable:
 * exp(x - max) / sum exp(x - max). -Infinity entries (masked) get 0, a row of
 * only -Infinity becomes zeros; NaN or +Infinity entries are a RangeError.
 * The seed article's exp(x) / sum(exp(x)) turns scores above ~88.7 into NaN.
 * @param {Float32Array | WasmArray} x
 * @param {{ cols?: number }} [options] the row length; default x.length (one row)
 * @returns x
 */
export function softmax(x, options = {}) {
  const fn = 'softmax';
  typedArray('float32').check(fn, 'x', x);
  const o = readOptions(fn, options, { cols: integer(1, INT32_MAX, { optional: true }) });
  const cols = o.cols ?? x.length;
  if (x.length === 0 || x.length % cols) throw new RangeError(`posenc.${fn}: x.length must be a positive multiple of cols = ${cols}, got ${x.length}`);
  const values = x instanceof WasmArray ? x.array : x;
  for (let i = 0; i < values.length; i++) {
    if (Number.isNaN(values[i]) || values[i] === Infinity) {
      throw new RangeError(`posenc.${fn}: x[${i}] must be finite or -Infinity (a masked score), got ${values[i]}`);
    }
  }
  const { exports } = wasm(fn);
  heapCall(fn, [{ array: x, type: 'float32', length: x.length, copyIn: true, copyOut: true }], (p) =>
    exports.posenc_softmax(p, x.length, x.length / cols, cols),
  );
  return x;
}

// ---------------------------------------------------------------- a previous-token head

const previousSpec = {
  heads: integer(1, INT32_MAX),
  positional: later({ default: { type: 'rope' } }),
  layer: integer(0, INT32_MAX, { default: 0 }),
  head: integer(0, INT32_MAX, { default: 0 }),
  margin: number({ above: 0, default: 10 }),
  maxLength: integer(2, 1 << 20, { default: 512 }),
};

/**
 * Turns one attention head into a "previous-token" head built from RoPE alone,
 * for a demo of what rotary positions give attention. The head's q and k
 * ignore the tokens (their weight rows are zeroed) and are constant biases,
 * per rotary pair k: key (a, 0), query a (cos f_k, -sin f_k) = the key rotated
 * by -f_k. After RoPE, q_i . k_j = a^2 A^2 sum_k cos((j - i + 1) f_k): largest
 * exactly at j = i - 1, whatever the tokens. a is chosen so that the logit of
 * j = i - 1 beats every other j within maxLength by at least `margin`: each
 * query attends to its previous token with probability ~1 - seq e^-margin
 * (query 0, which has none, attends to itself and its right neighbour).
 * @param {Record<string, { shape: number[], data: Float32Array }>} tensors an
 *   encoder's tensors (encoder.tensors(), readSafetensors().tensors); not modified
 * @param {{ heads: number, positional?: object, layer?: number, head?: number, margin?: number, maxLength?: number }} options
 *   positional: the encoder's { type: 'rope', ... } options (default { type: 'rope' })
 * @returns a new tensors object with layers.{layer}.self_attn.{q,k}_proj replaced
 */
export function previousTokenHead(tensors, options) {
  const fn = 'previousTokenHead';
  if (!isPlainObject(tensors)) throw fail(TypeError, fn, 'tensors', 'an object of tensors (encoder.tensors())', tensors);
  const o = readOptions(fn, options, previousSpec);
  const prefix = `layers.${o.layer}.self_attn.`;
  const get = (name) => {
    const t = tensors[name];
    if (!isPlainObject(t) || !Array.isArray(t.shape) || !ArrayBuffer.isView(t.data)) {
      throw new RangeError(`posenc.${fn}: tensors must hold '${name}' as { shape, data } (layer ${o.layer} of an encoder), got ${describe(t)}`);
    }
    return t;
  };
  const qw = get(`${prefix}q_proj.weight`);
  const d = qw.shape[0];
  if (d % o.heads) throw new RangeError(`posenc.${fn}: heads must divide dModel = ${d}, got ${o.heads}`);
  if (o.head >= o.heads) throw new RangeError(`posenc.${fn}: head must be an integer from 0 to ${o.heads - 1}, got ${o.head}`);
  const headDim = d / o.heads;
  const p = readPositional(fn, o.positional, d, headDim);
  if (p.type !== 'rope') throw new RangeError(`posenc.${fn}: positional.type must be 'rope' (the head is built from rotary positions alone), got '${p.type}'`);
  const { invFreq, attentionFactor } = ropeFrequenciesFor(fn, p, o.maxLength);
  const half = p.rotaryDim / 2;
  // the smallest gap sum_k (1 - cos(n f_k)) over n = j - i + 1 != 0 within maxLength
  let minGap = Infinity;
  for (let n = 1; n <= o.maxLength; n++) {
    let gap = 0;
    for (let k = 0; k < half; k++) gap += 1 - Math.cos(n * invFreq[k]);
    minGap = Math.min(minGap, gap);
  }
  if (!(minGap > 1e-9)) throw new RangeError(`posenc.${fn}: these RoPE frequencies cannot tell positions 1 .. maxLength = ${o.maxLength} apart`);
  const a = Math.sqrt((o.margin * Math.sqrt(headDim)) / (attentionFactor * attentionFactor * minGap));
  const out = { ...tensors };
  const replace = (name, fill) => {
    const t = get(name);
    const data = Float32Array.from(t.data);
    fill(data);
    out[name] = { ...t, dtype: 'F32', shape: [...t.shape], data };
  };
  const base = o.head * headDim;
  const pair = (k) => (p.layout === 'half' ? [k, k + half] : [2 * k, 2 * k + 1]);
  for (const which of ['q', 'k']) {
    replace(`${prefix}${which}_proj.weight`, (w) => w.fill(0, base * d, (base + headDim) * d));
    replace(`${prefix}${which}_proj.bias`, (b) => {
      b.fill(0, base, base + headDim);
      for (let k = 0; k < half; k++) {
        const [i, j] = pair(k);
        b[base + i] = which === 'k' ? a : a * Math.cos(invFreq[k]);
        b[base + j] = which === 'k' ? 0 : -a * Math.sin(invFreq[k]);
      }
    });
  }
  return out;
}
