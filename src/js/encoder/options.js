// options.js: reading createEncoder's options, the positional scheme, tokens
// and masks: their types, keys and shapes. Each option's meaning and range:
// include/posenc_encoder.h, posenc_encoder_config, checked there (C validates:
// native-config.js checkConfig).
import { activation, attention_bias, mlp_kind, norm_kind, norm_placement, positional as POSITIONAL_NAMES, rope_precision } from '../../../build/abi.js';
import { describe, fail, isPlainObject, typedArrayType } from '../core/describe.js';
import { INT32_MAX, INT32_MIN, boolean, integer, later, oneOf, readOptions, readTagged } from '../core/options.js';
import { param, row } from './rows.js';
import { lengthOf } from '../core/typed.js';
import { ROPE_LAYOUTS, ropeFrequenciesOf } from '../rope.js';
import { sectionList } from '../rope-axes.js';
import { evenDim } from '../rope-scaling.js';
import { LAYOUTS } from '../sinusoidal.js';
import { checkConfig, configContext, scalingOf } from './native-config.js';
import { readWeightsSource } from './weights.js';

/** Positional schemes (posenc_positional). */
export const POSITIONAL_TYPES = POSITIONAL_NAMES;
/** The metadata key of a .safetensors file that holds the encoder's options as JSON. */
export const CONFIG_METADATA_KEY = 'posenc.config';
/** How deep options may nest (positional.scaling.longFactor is 3): deeper is an error, never a stack overflow. */
const MAX_DEPTH = 16;
/** The default of a parameter: what its row's 0 selects (include/posenc.h's tables). */
const zero = (id) => row(id).zero;

/**
 * A deep copy of a value made of plain objects, arrays and typed arrays, read
 * once: own enumerable properties only (an inherited `constructor` or a
 * prototype's keys never count), typed arrays as plain arrays (so the copy
 * can be frozen and written as JSON). Later edits of the caller's objects
 * change nothing.
 */
export function deepSnapshot(fn, v, name, depth = 0) {
  const array = Array.isArray(v) || typedArrayType(v) !== undefined;
  if (!array && !isPlainObject(v)) return v;
  if (depth === MAX_DEPTH) throw new RangeError(`posenc.${fn}: ${name} nests deeper than ${MAX_DEPTH} levels (encoder options are a few levels deep)`);
  if (array) return Array.from({ length: Array.isArray(v) ? v.length : lengthOf(v) }, (_, i) => deepSnapshot(fn, v[i], name, depth + 1));
  return Object.fromEntries(Object.keys(v).map((k) => [k, deepSnapshot(fn, v[k], name, depth + 1)]));
}

/** Freezes a deepSnapshot() and everything in it. */
export function deepFreeze(v) {
  if (v !== null && typeof v === 'object') Object.values(v).forEach(deepFreeze);
  return Object.freeze(v);
}

// ---------------------------------------------------------------- options

/** Each positional scheme's options, besides `type`. */
export const POSITIONAL = {
  none: {},
  sinusoidal: { base: param('BASE', 'double', { default: zero('BASE') }), layout: oneOf(LAYOUTS, { default: 'interleaved' }) },
  rope: {
    base: param('BASE', 'double', { default: zero('BASE') }),
    scaling: later({ optional: true }),
    rotaryDim: evenDim({ optional: true }),
    layout: oneOf(ROPE_LAYOUTS, { default: 'half' }),
    precision: oneOf(rope_precision, { default: 'float64' }),
    // what ropeFromConfig returns for M-RoPE: a text encoder's positions are equal on
    // every axis, which is plain RoPE bit for bit (checked, then nothing more to do)
    mropeSection: sectionList({ optional: true }),
    mropeInterleaved: boolean({ optional: true }),
  },
  alibi: { maxBias: param('MAX_BIAS', 'double', { default: zero('MAX_BIAS') }) },
  t5: {
    numBuckets: param('NUM_BUCKETS', 'size', { default: zero('NUM_BUCKETS') }),
    maxDistance: param('MAX_DISTANCE', 'size', { default: zero('MAX_DISTANCE') }),
    bidirectional: boolean({ default: true }),
  },
  learned: { maxLength: param('MAX_LENGTH', 'size') },
};

/**
 * Reads `positional` ({ type, ...options }): its own properties, once (a
 * snapshot, nested objects such as rope's scaling included); RoPE's
 * rotaryDim defaults to headDim.
 */
export function readPositional(fn, given, headDim) {
  if (!isPlainObject(given)) {
    const types = POSITIONAL_TYPES.map((t) => `'${t}'`).join(', ');
    throw fail(TypeError, fn, 'positional', `an object { type, ... } with type one of ${types}`, given);
  }
  const p = readTagged(fn, deepSnapshot(fn, given, 'positional'), POSITIONAL, (key) => `positional.${key}`);
  if (p.type === 'rope') {
    scalingOf(p); // its keys and types now; its values are C's
    p.rotaryDim ??= headDim;
  }
  return p;
}

/** Each query scale's options, besides `type` (include/posenc_encoder.h, posenc_query_scale). */
export const QUERY_SCALES = {
  none: {},
  // transformers' Llama4TextConfig defaults: floor_scale 8192, attn_scale 0.1;
  // attnScale 0 scales nothing (1 at every position)
  llama4: { floorScale: param('FLOOR_SCALE', 'double', { default: zero('FLOOR_SCALE') }), attnScale: param('ATTN_SCALE', 'double', { default: zero('ATTN_SCALE'), zeroAllowed: true }) },
  ministral3: { beta: param('BETA', 'double'), originalMaxPositionEmbeddings: param('ORIGINAL_MAX_POSITION_Q', 'double') },
};
/** Query scale types (posenc_query_scale). */
export const QUERY_SCALE_TYPES = Object.keys(QUERY_SCALES);

/**
 * Reads `queryScale` ({ type, ...options }): the per-position multiplier of
 * every query (Llama 4's temperature tuning, Ministral 3's beta); undefined
 * stays undefined (none). Its multipliers' range is C's.
 */
export function readQueryScale(fn, given) {
  if (given === undefined) return undefined;
  if (!isPlainObject(given)) {
    const types = QUERY_SCALE_TYPES.map((t) => `'${t}'`).join(', ');
    throw fail(TypeError, fn, 'queryScale', `an object { type, ... } with type one of ${types}`, given);
  }
  return readTagged(fn, deepSnapshot(fn, given, 'queryScale'), QUERY_SCALES, (key) => `queryScale.${key}`);
}

const TOKEN_ARRAYS = ['Int32Array', 'Uint8Array', 'Uint16Array', 'Uint32Array', 'Int16Array', 'Int8Array'];
const tokensAllowed = (vocab) => `an Int32Array or Array of integers from 0 to ${vocab - 1}`;

/** tokens (or the array `name`) -> Int32Array of ids < vocab, at least `least` of them. */
export function readTokens(fn, tokens, vocab, name = 'tokens', least = 1) {
  const ok = Array.isArray(tokens) || TOKEN_ARRAYS.includes(typedArrayType(tokens));
  if (!ok) throw fail(TypeError, fn, name, tokensAllowed(vocab), tokens);
  const length = Array.isArray(tokens) ? tokens.length : lengthOf(tokens);
  if (length < least) throw fail(RangeError, fn, name, `${tokensAllowed(vocab)}, at least one`, tokens);
  const ids = new Int32Array(length);
  for (let i = 0; i < length; i++) {
    const t = tokens[i];
    if (typeof t !== 'number') throw fail(TypeError, fn, `${name}[${i}]`, `an integer from 0 to ${vocab - 1}`, t);
    if (!Number.isInteger(t) || t < 0 || t >= vocab) throw fail(RangeError, fn, `${name}[${i}]`, `an integer from 0 to ${vocab - 1}`, t);
    ids[i] = t;
  }
  return ids;
}

/**
 * positions -> Int32Array of seq explicit position ids (C checks their range:
 * >= 0, below positional.maxLength for 'learned'); JS only what C cannot
 * see: an array of seq integers that int32 holds.
 */
export function readPositions(fn, positions, seq) {
  const allowed = `an Int32Array or Array of ${seq} integers (the position of each token)`;
  if (!Array.isArray(positions) && !TOKEN_ARRAYS.includes(typedArrayType(positions))) throw fail(TypeError, fn, 'positions', allowed, positions);
  const length = Array.isArray(positions) ? positions.length : lengthOf(positions);
  if (length !== seq) throw new RangeError(`posenc.${fn}: positions must have length tokens.length = ${seq}, got ${length}`);
  const out = new Int32Array(seq);
  for (let i = 0; i < seq; i++) {
    const p = positions[i];
    if (typeof p !== 'number') throw fail(TypeError, fn, `positions[${i}]`, 'an integer', p);
    if (!Number.isInteger(p) || p < INT32_MIN || p > INT32_MAX) throw fail(RangeError, fn, `positions[${i}]`, `an integer from 0 to ${INT32_MAX}`, p);
    out[i] = p;
  }
  return out;
}

/** mask -> Int32Array of 0/1 (1 = a real token, 0 = padding, Hugging Face's attention_mask). */
export function readMask(fn, mask, seq) {
  const allowed = `an Array or typed array of ${seq} values 0 / 1 (or booleans): 1 keeps a token, 0 marks padding`;
  if (!Array.isArray(mask) && typedArrayType(mask) === undefined) throw fail(TypeError, fn, 'mask', allowed, mask);
  const length = Array.isArray(mask) ? mask.length : lengthOf(mask);
  if (length !== seq) throw new RangeError(`posenc.${fn}: mask must have length tokens.length = ${seq}, got ${length}`);
  const out = new Int32Array(seq);
  for (let i = 0; i < seq; i++) {
    const m = mask[i];
    if (m !== 0 && m !== 1 && m !== true && m !== false && m !== 0n && m !== 1n) throw fail(RangeError, fn, `mask[${i}]`, '0, 1, true or false', m);
    out[i] = m === 1 || m === true || m === 1n ? 1 : 0;
  }
  return out;
}

/** createEncoder's options. */
export const createSpec = {
  vocabSize: param('VOCAB_SIZE', 'size'),
  dModel: param('ENCODER_D_MODEL', 'size'),
  heads: param('ENCODER_HEADS', 'size'),
  dFF: param('D_FF', 'size'),
  layers: param('LAYERS', 'size'),
  positional: later({ default: { type: 'sinusoidal' } }),
  norm: oneOf(norm_placement, { default: 'pre' }),
  activation: oneOf(activation, { default: 'relu' }),
  finalNorm: boolean({ default: false }),
  embedScale: param('EMBED_SCALE', 'double', { optional: true }),
  normEps: param('NORM_EPS', 'double', { default: zero('NORM_EPS') }),
  languages: param('LANGUAGES', 'size', { default: 0 }),
  classes: integer(0, INT32_MAX, { default: 0 }),
  lmHead: boolean({ optional: true }),
  tieEmbeddings: boolean({ default: false }),
  keepAttention: boolean({ default: false }),
  queryScale: later({ optional: true }),
  // the block's parts (posenc_encoder_config: a Llama-style decoder's; the defaults are the copy models')
  normKind: oneOf(norm_kind, { default: 'layer' }),
  mlp: oneOf(mlp_kind, { default: 'plain' }),
  kvHeads: param('KV_HEADS', 'size', { optional: true }),
  headDim: param('BLOCK_HEAD_DIM', 'size', { optional: true }),
  attentionBias: oneOf(attention_bias, { default: 'all' }),
  qkNorm: boolean({ default: false }),
  window: param('WINDOW', 'size', { default: 0, zeroAllowed: true }),
  weights: later(),
};
/** The options that describe a model: createEncoder's, without weights. */
export const { weights: _weights, ...modelSpec } = createSpec;

/** Reads the encoder options of the caller, over those in the weights file's metadata when it has them. */
export function readCreateOptions(fn, options) {
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
  // the caller's options win, key by key (keepAttention: false over a file, say);
  // fromEntries defines each key, so an own '__proto__' stays a key (and is refused)
  const merged = Object.fromEntries([...Object.entries(file), ...Object.entries(given).filter(([, v]) => v !== undefined)]);
  return { o: readOptions(fn, merged, createSpec), source, fromFile: true };
}

/**
 * The config an Encoder keeps: the options read, what one option says about
 * another, RoPE's rotaryDim (default headDim). Its ranges are C's
 * (checkResolved, before the tensors' counts: layout.js).
 */
export function resolveConfig(fn, o) {
  const { weights: _, ...c } = o;
  c.positional = readPositional(fn, c.positional, c.headDim ?? Math.floor(c.dModel / c.heads));
  c.queryScale = readQueryScale(fn, c.queryScale);
  if (c.tieEmbeddings && c.lmHead === false) {
    throw new RangeError(`posenc.${fn}: tieEmbeddings: true is an LM head (its weight is embed.weight), got lmHead: false beside it`);
  }
  c.lmHead = c.tieEmbeddings || c.lmHead === true;
  return c;
}

/** Checks a resolved config in C: every rule of posenc_encoder_config, and RoPE's frequencies; errors name the options. */
export function checkResolved(fn, c) {
  checkConfig(fn, c);
  const p = c.positional;
  if (p.type === 'rope') ropeFrequenciesOf(fn, p, scalingOf(p), { prefix: 'positional.', scaling: (key) => `positional.scaling.${key}` });
}
