// options.js: reading createEncoder's options, the positional scheme, tokens
// and masks. Each option's meaning: include/posenc.h, posenc_encoder_config.
import { activation, norm_placement, positional as POSITIONAL_NAMES, rope_precision } from '../../../build/abi.js';
import { describe, fail, isPlainObject, typedArrayType } from '../core/describe.js';
import { INT32_MAX, boolean, integer, later, number, oneOf, readOptions, readTagged } from '../core/options.js';
import { lengthOf } from '../core/typed.js';
import { checkT5Buckets } from '../buckets.js';
import { ROPE_LAYOUTS, resolveRotaryDim, ropeFrequencies } from '../rope.js';
import { sectionList } from '../rope-axes.js';
import { LAYOUTS, checkLayoutWidth } from '../sinusoidal.js';
import { readWeightsSource } from './weights.js';

/** Positional schemes (posenc_positional). */
export const POSITIONAL_TYPES = POSITIONAL_NAMES;
/** The metadata key of a .safetensors file that holds the encoder's options as JSON. */
export const CONFIG_METADATA_KEY = 'posenc.config';
const FLT_MAX = 3.4028234663852886e38;
/** How deep options may nest (positional.scaling.longFactor is 3): deeper is an error, never a stack overflow. */
const MAX_DEPTH = 16;

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
  sinusoidal: { base: number({ above: 1, default: 10000 }), layout: oneOf(LAYOUTS, { default: 'interleaved' }) },
  rope: {
    base: number({ above: 1, default: 10000 }),
    scaling: later({ optional: true }),
    rotaryDim: integer(2, INT32_MAX, { optional: true }),
    layout: oneOf(ROPE_LAYOUTS, { default: 'half' }),
    precision: oneOf(rope_precision, { default: 'float64' }),
    // what ropeFromConfig returns for M-RoPE: a text encoder's positions are equal on
    // every axis, which is plain RoPE bit for bit (checked, then nothing more to do)
    mropeSection: sectionList({ optional: true }),
    mropeInterleaved: boolean({ optional: true }),
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
export function readPositional(fn, given, dModel, headDim) {
  if (!isPlainObject(given)) {
    const types = POSITIONAL_TYPES.map((t) => `'${t}'`).join(', ');
    throw fail(TypeError, fn, 'positional', `an object { type, ... } with type one of ${types}`, given);
  }
  const label = (key) => `positional.${key}`;
  const p = readTagged(fn, deepSnapshot(fn, given, 'positional'), POSITIONAL, label);
  if (p.type === 'sinusoidal') checkLayoutWidth(fn, p.layout, dModel, label('layout'));
  if (p.type === 'rope') {
    p.rotaryDim = resolveRotaryDim(fn, p.rotaryDim, headDim, label('rotaryDim'), 'headDim = dModel / heads');
    ropeFrequenciesFor(fn, p, 0); // validates base and scaling now
  }
  if (p.type === 't5') checkT5Buckets(fn, p, label);
  return p;
}

/** Each query scale's options, besides `type` (include/posenc.h, posenc_query_scale). */
export const QUERY_SCALES = {
  none: {},
  // transformers' Llama4TextConfig defaults: floor_scale 8192, attn_scale 0.1
  llama4: { floorScale: number({ above: 0, default: 8192 }), attnScale: number({ default: 0.1 }) },
  ministral3: { beta: number(), originalMaxPositionEmbeddings: number({ min: 1 }) },
};
/** Query scale types (posenc_query_scale). */
export const QUERY_SCALE_TYPES = Object.keys(QUERY_SCALES);

/**
 * Reads `queryScale` ({ type, ...options }): the per-position multiplier of
 * every query (Llama 4's temperature tuning, Ministral 3's beta); undefined
 * stays undefined (none).
 */
export function readQueryScale(fn, given) {
  if (given === undefined) return undefined;
  if (!isPlainObject(given)) {
    const types = QUERY_SCALE_TYPES.map((t) => `'${t}'`).join(', ');
    throw fail(TypeError, fn, 'queryScale', `an object { type, ... } with type one of ${types}`, given);
  }
  const q = readTagged(fn, deepSnapshot(fn, given, 'queryScale'), QUERY_SCALES, (key) => `queryScale.${key}`);
  // every multiplier must be a finite float: each formula is monotonic in p, so the last position decides
  const last = queryScaleAt(q, INT32_MAX);
  if (!(Math.abs(last) <= FLT_MAX)) {
    throw new RangeError(`posenc.${fn}: queryScale gives the multiplier ${last} at position ${INT32_MAX}, beyond float32's range: ${JSON.stringify(q)}`);
  }
  return q;
}

/** The query multiplier at position p, in double (include/posenc.h, posenc_query_scale). */
export function queryScaleAt(q, p) {
  if (q?.type === 'llama4') return Math.log(Math.floor((p + 1) / q.floorScale) + 1) * q.attnScale + 1;
  if (q?.type === 'ministral3') return 1 + q.beta * Math.log(1 + Math.floor(p / q.originalMaxPositionEmbeddings));
  return 1;
}

/** Whether the RoPE frequencies follow the sequence length (dynamic NTK, LongRoPE without a fixed seqLength). */
export function lengthDependent(p) {
  return p.type === 'rope' && isPlainObject(p.scaling) && (p.scaling.type === 'dynamic' || p.scaling.type === 'longrope') &&
    p.scaling.seqLength === undefined;
}

/** RoPE frequencies for `seq` tokens (dynamic and longrope depend on it); errors name fn. */
export function ropeFrequenciesFor(fn, p, seq) {
  // HF: seq_len = max(position_ids) + 1
  const scaling = lengthDependent(p) ? { ...p.scaling, seqLength: Math.max(seq, 1) } : p.scaling;
  try {
    const axes = p.mropeSection === undefined ? {} : { mropeSection: p.mropeSection, mropeInterleaved: p.mropeInterleaved };
    return ropeFrequencies({ rotaryDim: p.rotaryDim, base: p.base, scaling, ...axes });
  } catch (error) {
    const message = error.message.replace(/^posenc\.ropeFrequencies: /, '');
    throw new error.constructor(`posenc.${fn}: positional (rope): ${message}`);
  }
}

const TOKEN_ARRAYS = ['Int32Array', 'Uint8Array', 'Uint16Array', 'Uint32Array', 'Int16Array', 'Int8Array'];
const tokensAllowed = (vocab) => `an Int32Array or Array of integers from 0 to ${vocab - 1}`;

/** tokens -> Int32Array of ids < vocab, at least one. */
export function readTokens(fn, tokens, vocab) {
  const ok = Array.isArray(tokens) || TOKEN_ARRAYS.includes(typedArrayType(tokens));
  if (!ok) throw fail(TypeError, fn, 'tokens', tokensAllowed(vocab), tokens);
  const length = Array.isArray(tokens) ? tokens.length : lengthOf(tokens);
  if (length === 0) throw fail(RangeError, fn, 'tokens', `${tokensAllowed(vocab)}, at least one`, tokens);
  const ids = new Int32Array(length);
  for (let i = 0; i < length; i++) {
    const t = tokens[i];
    if (typeof t !== 'number') throw fail(TypeError, fn, `tokens[${i}]`, `an integer from 0 to ${vocab - 1}`, t);
    if (!Number.isInteger(t) || t < 0 || t >= vocab) throw fail(RangeError, fn, `tokens[${i}]`, `an integer from 0 to ${vocab - 1}`, t);
    ids[i] = t;
  }
  return ids;
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
  vocabSize: integer(1, INT32_MAX),
  dModel: integer(1, INT32_MAX),
  heads: integer(1, INT32_MAX),
  dFF: integer(1, INT32_MAX),
  layers: integer(0, INT32_MAX),
  positional: later({ default: { type: 'sinusoidal' } }),
  norm: oneOf(norm_placement, { default: 'pre' }),
  activation: oneOf(activation, { default: 'relu' }),
  finalNorm: boolean({ default: false }),
  embedScale: number({ min: -FLT_MAX, max: FLT_MAX, optional: true }),
  normEps: number({ above: 0, default: 1e-5 }),
  languages: integer(0, INT32_MAX, { default: 0 }),
  classes: integer(0, INT32_MAX, { default: 0 }),
  lmHead: boolean({ optional: true }),
  tieEmbeddings: boolean({ default: false }),
  keepAttention: boolean({ default: true }),
  queryScale: later({ optional: true }),
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

/** Checks what one option says about another, fills derived defaults: the config an Encoder keeps. */
export function resolveConfig(fn, o) {
  const { weights: _, ...c } = o;
  if (c.dModel % c.heads) {
    throw new RangeError(`posenc.${fn}: dModel must be a multiple of heads = ${c.heads} (each head takes dModel / heads features), got ${c.dModel}`);
  }
  c.positional = readPositional(fn, c.positional, c.dModel, c.dModel / c.heads);
  c.queryScale = readQueryScale(fn, c.queryScale);
  if (!c.embedScale) c.embedScale = Math.sqrt(c.dModel); // zero means default, as in C
  if (c.tieEmbeddings && c.lmHead === false) {
    throw new RangeError(`posenc.${fn}: tieEmbeddings: true is an LM head (its weight is embed.weight), got lmHead: false beside it`);
  }
  c.lmHead = c.tieEmbeddings || c.lmHead === true;
  return c;
}
