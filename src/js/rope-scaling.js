// rope-scaling.js: RoPE's frequency scalings, read and computed (Hugging Face
// modeling_rope_utils.py; formulas in include/posenc.h, posenc_rope_frequencies).
// Every number is computed in C.
import { rope_type as ROPE_TYPE_NAMES, rope_scaling as SCALING_STRUCT, status as STATUS } from '../../build/abi.js';
import { describe, fail, isPlainObject, typedArrayType } from './core/describe.js';
import { WasmArray, heapCall } from './core/heap.js';
import { wasm } from './core/instance.js';
import { INT32_MAX, boolean, elementCount, integer, later, number, readTagged, snapshot } from './core/options.js';
import { structWords, writeStruct } from './core/struct.js';
import { lengthOf } from './core/typed.js';

/** Scaling types (posenc_rope_type). */
export const ROPE_TYPES = ROPE_TYPE_NAMES;

// ------------------------------------------------------------------ checkers

/** An even integer >= 2 (a rotary dimension: features rotate in pairs). */
export const evenDim = (extra = {}) => ({
  ...extra,
  kind: 'number',
  check(fn, name, v) {
    const allowed = `an even integer from 2 to ${INT32_MAX - 1}`;
    if (typeof v !== 'number') throw fail(TypeError, fn, name, allowed, v);
    if (!Number.isInteger(v) || v < 2 || v > INT32_MAX || v % 2) throw fail(RangeError, fn, name, allowed, v);
    return v;
  },
});

/** A list of finite numbers > 0 (LongRoPE's factors): an Array, Float64Array or Float32Array. */
const factorList = () => ({
  check(fn, name, v) {
    const allowed = 'an Array, Float64Array or Float32Array of finite numbers > 0';
    if (!Array.isArray(v) && typedArrayType(v) !== 'Float64Array' && typedArrayType(v) !== 'Float32Array') {
      throw fail(TypeError, fn, name, allowed, v);
    }
    const out = new Float64Array(Array.isArray(v) ? v.length : lengthOf(v));
    for (let i = 0; i < out.length; i++) {
      const x = v[i]; // read once: an accessor could answer differently each time
      if (typeof x !== 'number') throw fail(TypeError, fn, `${name}[${i}]`, 'a finite number > 0', x);
      if (!(Number.isFinite(x) && x > 0)) throw fail(RangeError, fn, `${name}[${i}]`, 'a finite number > 0', x);
      out[i] = x;
    }
    return out;
  },
});

const positive = (extra = {}) => number({ above: 0, ...extra });
const count = (extra = {}) => integer(1, INT32_MAX, extra);
const seqLength = integer(0, 2 ** 31, { optional: true });

/** Each scaling type's parameters (HF's names in camelCase), besides `type`. */
export const SCALING = {
  default: {},
  linear: { factor: positive(), maxPositionEmbeddings: count({ optional: true }) }, // HF reads none but factor
  dynamic: { factor: positive(), maxPositionEmbeddings: count(), seqLength },
  yarn: {
    factor: positive({ optional: true }),
    originalMaxPositionEmbeddings: count({ optional: true }),
    maxPositionEmbeddings: count({ optional: true }),
    betaFast: positive({ default: 32 }),
    betaSlow: positive({ default: 1 }),
    mscale: number({ min: 0, optional: true }),
    mscaleAllDim: number({ min: 0, optional: true }),
    attentionFactor: positive({ optional: true }),
    truncate: boolean({ default: true }),
  },
  llama3: {
    factor: positive(),
    lowFreqFactor: positive(),
    highFreqFactor: positive(),
    originalMaxPositionEmbeddings: count(),
    maxPositionEmbeddings: count({ optional: true }), // HF only validates it (> original)
  },
  longrope: {
    shortFactor: factorList(),
    longFactor: factorList(),
    originalMaxPositionEmbeddings: count({ optional: true }),
    maxPositionEmbeddings: count({ optional: true }),
    factor: positive({ optional: true }),
    attentionFactor: positive({ optional: true }),
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
  const camel = (key) => (key === 'rope_type' ? 'type' : key.replace(/_([a-z])/g, (_, c) => c.toUpperCase()));
  const value = (v) => (Array.isArray(v) ? `[${v.length > 3 ? `${v.slice(0, 3).join(', ')}, ...` : v.join(', ')}]` : describe(v));
  const entries = Object.entries(scaling).filter(([key]) => key !== 'type' || !Object.hasOwn(scaling, 'rope_type'));
  const written = entries.map(([key, v]) => `${camel(key)}: ${value(v)}`).join(', ');
  throw new TypeError(
    `posenc.${fn}: ${label('').slice(0, -1)} takes camelCase keys, got Hugging Face's snake_case ${snake.map((k) => `'${k}'`).join(', ')}: write { ${written} }, or pass the whole config.json to ropeFromConfig`,
  );
}

/**
 * Reads a scaling object ({ type, ...parameters }) for a rotary dimension.
 * `label` names a parameter in messages (ropeFromConfig names config keys).
 */
export function readScaling(fn, options, rotaryDim, label = (key) => `scaling.${key}`) {
  if (options === undefined || options === null) return { type: 'default' };
  if (!isPlainObject(options)) {
    throw fail(TypeError, fn, 'scaling', "an object such as { type: 'linear', factor: 2 }", options);
  }
  const scaling = snapshot(options);
  rejectSnakeCase(fn, scaling, label);
  const sc = readTagged(fn, scaling, SCALING, label, 'scaling type');
  const { type } = sc;
  if (type === 'dynamic' && rotaryDim < 4) {
    throw new RangeError(
      `posenc.${fn}: rotaryDim must be at least 4 for scaling type 'dynamic' (its exponent rotaryDim / (rotaryDim - 2) divides by zero at 2), got ${rotaryDim}`,
    );
  }
  if (type === 'yarn' || type === 'longrope') {
    const [o, m, f] = [label('originalMaxPositionEmbeddings'), label('maxPositionEmbeddings'), label('factor')];
    if (sc.originalMaxPositionEmbeddings === undefined && sc.maxPositionEmbeddings === undefined) {
      throw new TypeError(`posenc.${fn}: ${o} (or ${m}, its default) is required for scaling type '${type}'`);
    }
    if (sc.factor === undefined && sc.maxPositionEmbeddings === undefined) {
      throw new TypeError(
        `posenc.${fn}: ${f} is required for scaling type '${type}' (or ${m}: factor = ${m} / ${o}, as Hugging Face derives it)`,
      );
    }
  }
  if (type === 'yarn' && sc.betaFast < sc.betaSlow) {
    throw new RangeError(`posenc.${fn}: ${label('betaFast')} must be >= ${label('betaSlow')} = ${sc.betaSlow}, got ${sc.betaFast}`);
  }
  if (type === 'llama3' && !(sc.highFreqFactor >= sc.lowFreqFactor)) {
    throw new RangeError(
      `posenc.${fn}: ${label('highFreqFactor')} must be at least ${label('lowFreqFactor')} = ${sc.lowFreqFactor} (equal: no smooth band, as Llama 4), got ${sc.highFreqFactor}`,
    );
  }
  if (type === 'longrope') {
    for (const key of ['shortFactor', 'longFactor']) {
      if (sc[key].length !== rotaryDim / 2) {
        throw new RangeError(`posenc.${fn}: ${label(key)} must have length rotaryDim / 2 = ${rotaryDim / 2}, got ${sc[key].length}`);
      }
    }
  }
  return sc;
}

// ------------------------------------------------------------------ marshalling

/** posenc_rope_scaling's fields for a checked scaling (absent values are 0: zero means default). */
function scalingFields(sc, pShort, pLong, half) {
  return {
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
    short_factor: pShort,
    long_factor: pLong,
    factors_len: pShort ? half : 0,
  };
}

/** posenc_rope_frequencies for checked options: { invFreq, attentionFactor }. */
export function frequencies(fn, rotaryDim, base, sc, seqLen) {
  const half = rotaryDim / 2;
  elementCount(fn, { 'rotaryDim / 2': half }, 8);
  const { exports } = wasm(fn);
  const invFreq = new Float64Array(half);
  const attention = new Float64Array(1);
  const buffers = [
    { array: invFreq, type: 'float64', length: half, copyOut: true },
    { array: attention, type: 'float64', length: 1, copyOut: true },
    { array: new Float64Array(structWords(SCALING_STRUCT)), type: 'float64', length: structWords(SCALING_STRUCT) },
  ];
  if (sc.type === 'longrope') {
    buffers.push({ array: sc.shortFactor, type: 'float64', length: half, copyIn: true });
    buffers.push({ array: sc.longFactor, type: 'float64', length: half, copyIn: true });
  }
  let status = 0;
  heapCall(fn, buffers, (pInv, pAttention, pScaling, pShort = 0, pLong = 0) => {
    writeStruct(wasm(fn).memory, pScaling, SCALING_STRUCT, scalingFields(sc, pShort, pLong, half));
    status = exports.posenc_rope_frequencies(pInv, half, rotaryDim, base, pScaling, seqLen, pAttention);
    return status === STATUS.ERR_INVALID_ARGUMENT ? 0 : status; // reported below, with the parameters
  });
  if (status !== 0) {
    const params = Object.entries(sc).map(([k, v]) => `${k}: ${ArrayBuffer.isView(v) ? `[${v.join(', ')}]` : describe(v)}`);
    throw new RangeError(
      `posenc.${fn}: base = ${base} with scaling { ${params.join(', ')} } gives a non-finite frequency or attention factor, or one past what RoPE accepts (|frequency| <= 2^64, attention factor <= 3.4e38: beyond, angles or float caches overflow): an overflowing scaled base, a tiny factor, or ln(originalMaxPositionEmbeddings) = 0`,
    );
  }
  return { invFreq, attentionFactor: attention[0] };
}

/** HF's forward passes seq_len = max(position_ids) + 1 to dynamic and longrope. */
export function impliedSeqLength(sc, offset, rows, positions) {
  if (sc.seqLength !== undefined) return sc.seqLength;
  if (sc.type !== 'dynamic' && sc.type !== 'longrope') return 0;
  let last = offset + rows - 1;
  if (positions) {
    const p = WasmArray.isBranded(positions) ? positions.array : positions;
    last = -Infinity;
    for (let i = 0; i < p.length; i++) if (p[i] > last) last = p[i];
  }
  return Math.max(0, last + 1);
}

