// rope-scaling.js: RoPE's options as the C struct posenc_rope (include/posenc.h):
// the scaling object read (its type, its keys, the lists it carries), and
// the struct written. Every range is C's: a refused value comes back as C's
// record, named as the caller spelled it (core/errors.js).
import { rope as ROPE_STRUCT, rope_2d as FORMS_2D, rope_axes as AXES_STRUCT, rope_layout, rope_precision, rope_type } from '../../build/abi.js';
import { describe, fail, isPlainObject, typedArrayType } from './core/describe.js';
import { camel } from './core/errors.js';
import { WasmArray } from './core/heap.js';
import { boolean, later, param, readTagged, snapshot } from './core/options.js';
import { structWords, writeStruct } from './core/struct.js';
import { lengthOf } from './core/typed.js';

/** Scaling types (posenc_rope_type). */
export const ROPE_TYPES = rope_type;

// ------------------------------------------------------------------ checkers

/** A rotary dimension: an even count, C's row ROTARY_DIM. */
export const evenDim = (extra = {}) => param('ROTARY_DIM', 'size', extra);

/** A list of numbers (LongRoPE's factors, a model's own inv_freq): an Array, Float64Array or Float32Array; C checks each value. */
export const numberList = (extra = {}) => ({
  ...extra,
  check(fn, name, v) {
    const allowed = 'a Float32Array, Float64Array or Array of numbers';
    if (!Array.isArray(v) && typedArrayType(v) !== 'Float64Array' && typedArrayType(v) !== 'Float32Array') {
      throw fail(TypeError, fn, name, allowed, v);
    }
    const out = new Float64Array(Array.isArray(v) ? v.length : lengthOf(v));
    for (let i = 0; i < out.length; i++) {
      const x = v[i]; // read once: an accessor could answer differently each time
      if (typeof x !== 'number') throw fail(TypeError, fn, `${name}[${i}]`, 'a number', x);
      out[i] = x;
    }
    return out;
  },
});

const count = (id, extra = {}) => param(id, 'double', extra); // lengths in positions, doubles in C
const positive = (id, extra = {}) => param(id, 'double', extra);
const seqLength = param('SEQ_LEN', 'size', { optional: true });

/** Each scaling type's parameters (HF's names in camelCase), besides `type`: which each type takes. */
export const SCALING = {
  default: {},
  linear: { factor: positive('FACTOR'), maxPositionEmbeddings: count('MAX_POSITION', { optional: true }) }, // HF reads none but factor
  dynamic: { factor: positive('FACTOR'), maxPositionEmbeddings: count('MAX_POSITION'), seqLength },
  yarn: {
    factor: positive('FACTOR', { optional: true }),
    originalMaxPositionEmbeddings: count('ORIGINAL_MAX_POSITION', { optional: true }),
    maxPositionEmbeddings: count('MAX_POSITION', { optional: true }),
    betaFast: positive('BETA_FAST', { optional: true }),
    betaSlow: positive('BETA_SLOW', { optional: true }),
    mscale: param('MSCALE', 'double', { optional: true }),
    mscaleAllDim: param('MSCALE_ALL_DIM', 'double', { optional: true }),
    attentionFactor: positive('SCALING_ATTENTION', { optional: true }),
    truncate: boolean({ default: true }),
  },
  llama3: {
    factor: positive('FACTOR'),
    lowFreqFactor: positive('LOW_FREQ_FACTOR'),
    highFreqFactor: positive('HIGH_FREQ_FACTOR'),
    originalMaxPositionEmbeddings: count('ORIGINAL_MAX_POSITION'),
    maxPositionEmbeddings: count('MAX_POSITION', { optional: true }), // HF only validates it (> original)
  },
  longrope: {
    shortFactor: numberList(),
    longFactor: numberList(),
    originalMaxPositionEmbeddings: count('ORIGINAL_MAX_POSITION', { optional: true }),
    maxPositionEmbeddings: count('MAX_POSITION', { optional: true }),
    factor: positive('FACTOR', { optional: true }),
    attentionFactor: positive('SCALING_ATTENTION', { optional: true }),
    seqLength,
  },
};

/**
 * A config.json rope_scaling dict given as it is (rope_type,
 * original_max_position_embeddings, ...): refused, with the camelCase object
 * scaling takes written out, and ropeFromConfig named (it reads the dict, and
 * the keys outside it that scaling needs).
 */
function rejectSnakeCase(fn, scaling, label) {
  // snake_case as Hugging Face writes it (rope_type, original_max_position_embeddings);
  // other keys (__proto__ among them) are left to the unknown-option check
  const snake = Object.keys(scaling).filter((key) => /^[a-z][a-z0-9]*(_[a-z0-9]+)+$/.test(key));
  if (snake.length === 0) return;
  const key = (k) => (k === 'rope_type' ? 'type' : camel(k));
  const value = (v) => (Array.isArray(v) ? `[${v.length > 3 ? `${v.slice(0, 3).join(', ')}, ...` : v.join(', ')}]` : describe(v));
  const entries = Object.entries(scaling).filter(([k]) => k !== 'type' || !Object.hasOwn(scaling, 'rope_type'));
  const written = entries.map(([k, v]) => `${key(k)}: ${value(v)}`).join(', ');
  throw new TypeError(
    `posenc.${fn}: ${label('').slice(0, -1)} takes camelCase keys, got Hugging Face's snake_case ${snake.map((k) => `'${k}'`).join(', ')}: write { ${written} }, or pass the whole config.json to ropeFromConfig`,
  );
}

/**
 * Reads a scaling object ({ type, ...parameters }): its type, its keys (each
 * type's own, the required ones present), each value's type. `label` names a
 * parameter in messages (ropeFromConfig names config keys). The values'
 * ranges, the rotary dimension's among them, are C's (the call's).
 */
export function readScaling(fn, options, _rotaryDim, label = (key) => `scaling.${key}`) {
  if (options === undefined || options === null) return { type: 'default' };
  if (!isPlainObject(options)) {
    throw fail(TypeError, fn, 'scaling', "an object such as { type: 'linear', factor: 2 }", options);
  }
  const scaling = snapshot(options);
  rejectSnakeCase(fn, scaling, label);
  const sc = readTagged(fn, scaling, SCALING, label, 'scaling type');
  if (sc.type === 'yarn' || sc.type === 'longrope') {
    const [o, m, f] = [label('originalMaxPositionEmbeddings'), label('maxPositionEmbeddings'), label('factor')];
    if (sc.originalMaxPositionEmbeddings === undefined && sc.maxPositionEmbeddings === undefined) {
      throw new TypeError(`posenc.${fn}: ${o} (or ${m}, its default) is required for scaling type '${sc.type}'`);
    }
    if (sc.factor === undefined && sc.maxPositionEmbeddings === undefined) {
      throw new TypeError(
        `posenc.${fn}: ${f} is required for scaling type '${sc.type}' (or ${m}: factor = ${m} / ${o}, as Hugging Face derives it)`,
      );
    }
  }
  return sc;
}

// ------------------------------------------------------------------ the struct

/** The struct's size in 8-byte words (staged as float64s). */
export const ROPE_WORDS = structWords(ROPE_STRUCT);
export const AXES_WORDS = structWords(AXES_STRUCT);

/**
 * The arrays a posenc_rope points at, staged with a call: LongRoPE's lists
 * and a model's own frequencies (heapCall buffers, in this order).
 */
export function ropeArrays(sc, invFreq) {
  const arrays = [];
  if (sc.type === 'longrope') {
    arrays.push({ array: sc.shortFactor, type: 'float64', length: sc.shortFactor.length, copyIn: true });
    arrays.push({ array: sc.longFactor, type: 'float64', length: sc.longFactor.length, copyIn: true });
  }
  if (invFreq) arrays.push({ array: invFreq, type: 'float64', length: invFreq.length, copyIn: true });
  return arrays;
}

/**
 * posenc_rope's fields for { rotaryDim, base, scaling, layout, precision, invFreq }
 * (read options; absent values are 0: zero means default), with `pointers`
 * the addresses ropeArrays' buffers got.
 */
export function ropeFields(o, sc, pointers = []) {
  const p = [...pointers];
  const short = sc.type === 'longrope' ? p.shift() : 0;
  const long = sc.type === 'longrope' ? p.shift() : 0;
  const invFreq = o.invFreq ? p.shift() : 0;
  return {
    rotary_dim: o.rotaryDim ?? 0,
    base: o.base ?? 0,
    scaling: {
      type: ROPE_TYPES.indexOf(sc.type),
      no_truncate: sc.truncate === false ? 1 : 0,
      factor: sc.factor ?? 0,
      original_max_position_embeddings: sc.originalMaxPositionEmbeddings ?? 0,
      max_position_embeddings: sc.maxPositionEmbeddings ?? 0,
      attention_factor: sc.attentionFactor ?? 0,
      beta_fast: sc.betaFast ?? 0,
      beta_slow: sc.betaSlow ?? 0,
      mscale: sc.mscale ?? 0,
      mscale_all_dim: sc.mscaleAllDim ?? 0,
      low_freq_factor: sc.lowFreqFactor ?? 0,
      high_freq_factor: sc.highFreqFactor ?? 0,
      short_factor: short,
      long_factor: long,
      factors_len: sc.type === 'longrope' ? sc.shortFactor.length : 0,
    },
    seq_len: sc.seqLength ?? 0,
    inv_freq: invFreq,
    attention_factor: 0,
    layout: rope_layout.indexOf(o.layout ?? 'half'),
    precision: rope_precision.indexOf(o.precision ?? 'float64'),
  };
}

/** Writes posenc_rope at ptr (ropeFields' values). */
export function writeRope(memory, ptr, o, sc, pointers) {
  writeStruct(memory, ptr, ROPE_STRUCT, ropeFields(o, sc, pointers));
}

/** Writes posenc_rope_axes at ptr: { nAxes, sections, arrangement, form }. */
export function writeAxes(memory, ptr, axes) {
  writeStruct(memory, ptr, AXES_STRUCT, {
    n_axes: axes.nAxes,
    sections: [...axes.sections],
    arrangement: axes.arrangement === 'interleaved' ? 1 : 0,
    form: Math.max(0, FORMS_2D.indexOf(axes.form)),
  });
}

/**
 * How messages name C's RoPE parameters: the struct's fields are the
 * options (rotary_dim -> rotaryDim, scaling.beta_fast -> scaling.betaFast),
 * `prefix` before them (the encoder's 'positional.'); a LongRoPE list's
 * length is the list's.
 */
export function ropeLabel(prefix = '', scalingLabel = (key) => `scaling.${key}`) {
  return (cName) => {
    const name = camel(cName);
    if (name === 'sections') return `${prefix}mropeSection`;
    if (name === 'form') return `${prefix}rope2d`;
    if (name.startsWith('scaling.')) return scalingLabel(name.slice('scaling.'.length));
    if (name === 'scaling') return `${prefix}scaling`;
    return ['rotaryDim', 'base', 'seqLen', 'invFreq', 'layout', 'precision'].includes(name)
      ? `${prefix}${name === 'seqLen' ? 'scaling.seqLength' : name}` : name;
  };
}

/** The value the caller gave for a labelled option, from the read options (for "got ..."). */
export function ropeGiven(o, sc, prefix = '') {
  return (label) => {
    const key = label.startsWith(prefix) ? label.slice(prefix.length) : label;
    if (key.startsWith('scaling.')) {
      const v = sc[key.slice('scaling.'.length)];
      return ArrayBuffer.isView(v) || WasmArray.isBranded(v) ? undefined : v;
    }
    const v = o[key];
    return typeof v === 'number' || typeof v === 'string' ? v : undefined;
  };
}

export { later };
