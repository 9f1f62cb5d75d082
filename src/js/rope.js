// rope.js: rotary position embeddings (RoFormer; Hugging Face modeling_rope_utils.py).
// Formulas, layouts and accuracy: include/posenc.h. This file validates and
// marshals; every number is computed in C.
import { WasmArray, describe, heapCall, inPlaceAddress, typeOf } from './heap.js';
import { wasm } from './wasm.js';
import {
  INT32_MAX, INT32_MIN, boolean, checkLength, elementCount, integer, isOptionsObject, number, oneOf, readOptions, snapshot,
  typedArray,
} from './params.js';

/** Scaling types, in the order of the C enum posenc_rope_type. */
export const ROPE_TYPES = ['default', 'linear', 'dynamic', 'yarn', 'llama3', 'longrope'];
/** Pair layouts, in the order of the C enum posenc_rope_layout. */
export const ROPE_LAYOUTS = ['half', 'interleaved'];
/** Axis orders of applyRope's x, in the order of the C enum posenc_rope_order. */
const ORDERS = ['bshd', 'bhsd'];
const PRECISIONS = ['float64', 'float32'];

// ------------------------------------------------------------------ checkers

const fail = (Err, fn, name, allowed, v) => new Err(`posenc.${fn}: ${name} must be ${allowed}, got ${describe(v)}`);

/** An even integer >= 2 (a rotary dimension: features rotate in pairs). */
const evenDim = (extra = {}) => ({
  ...extra,
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
    if (!Array.isArray(v) && typeOf(v) !== 'Float64Array' && typeOf(v) !== 'Float32Array') {
      throw fail(TypeError, fn, name, allowed, v);
    }
    const out = new Float64Array(v.length);
    for (let i = 0; i < out.length; i++) {
      const x = v[i]; // read once: an accessor could answer differently each time
      if (typeof x !== 'number') throw fail(TypeError, fn, `${name}[${i}]`, 'a finite number > 0', x);
      if (!(Number.isFinite(x) && x > 0)) throw fail(RangeError, fn, `${name}[${i}]`, 'a finite number > 0', x);
      out[i] = x;
    }
    return out;
  },
});

/** Any value, checked later (the scaling object, ropeCache's out). */
const later = (extra = {}) => ({ ...extra, check: (fn, name, v) => v });

const positive = (extra = {}) => number({ above: 0, ...extra });
const count = (extra = {}) => integer(1, INT32_MAX, extra);
const seqLength = integer(0, 2 ** 31, { optional: true });

/** Each scaling type's parameters (HF's names in camelCase), besides `type`. */
const SCALING = {
  default: {},
  linear: { factor: positive() },
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
function readScaling(fn, options, rotaryDim, label = (key) => `scaling.${key}`) {
  if (options === undefined || options === null) return { type: 'default' };
  if (!isOptionsObject(options)) {
    throw fail(TypeError, fn, 'scaling', "an object such as { type: 'linear', factor: 2 }", options);
  }
  const scaling = snapshot(options);
  rejectSnakeCase(fn, scaling, label);
  const allowedTypes = ROPE_TYPES.map((t) => `'${t}'`).join(', ');
  if (scaling.type === undefined) throw new TypeError(`posenc.${fn}: ${label('type')} is required (one of ${allowedTypes})`);
  const type = oneOf(ROPE_TYPES).check(fn, label('type'), scaling.type);
  const spec = SCALING[type];
  for (const key of Object.keys(scaling)) {
    if (key !== 'type' && !Object.hasOwn(spec, key)) {
      throw new TypeError(
        `posenc.${fn}: unknown option '${label(key)}' for scaling type '${type}' (known: ${['type', ...Object.keys(spec)].join(', ')})`,
      );
    }
  }
  const sc = { type };
  for (const [key, p] of Object.entries(spec)) {
    const v = scaling[key];
    if (v !== undefined) sc[key] = p.check(fn, label(key), v);
    else if ('default' in p) sc[key] = p.default;
    else if (!p.optional) throw new TypeError(`posenc.${fn}: ${label(key)} is required for scaling type '${type}'`);
  }
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
  if (type === 'llama3' && !(sc.highFreqFactor > sc.lowFreqFactor)) {
    throw new RangeError(
      `posenc.${fn}: ${label('highFreqFactor')} must be greater than ${label('lowFreqFactor')} = ${sc.lowFreqFactor} (the smooth band divides by their difference), got ${sc.highFreqFactor}`,
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

// posenc_rope_scaling as the wasm32 build lays it out (asserted in src/rope_freq.c):
// int type @0, int no_truncate @4, ten doubles @8..87, then three 32-bit words
// short_factor @88, long_factor @92, factors_len @96; 104 bytes.
const SCALING_WORDS = 13;
const POINTERS_AT = 88;

function packScaling(sc) {
  const bytes = new ArrayBuffer(SCALING_WORDS * 8);
  new Int32Array(bytes, 0, 2).set([ROPE_TYPES.indexOf(sc.type), sc.truncate === false ? 1 : 0]);
  new Float64Array(bytes, 8, 10).set(
    [
      sc.factor, sc.originalMaxPositionEmbeddings, sc.maxPositionEmbeddings, sc.attentionFactor, sc.betaFast,
      sc.betaSlow, sc.mscale, sc.mscaleAllDim, sc.lowFreqFactor, sc.highFreqFactor,
    ].map((v) => v ?? 0), // zero means default
  );
  return new Float64Array(bytes);
}

/** posenc_rope_frequencies for checked options: { invFreq, attentionFactor }. */
function frequencies(fn, rotaryDim, base, sc, seqLen) {
  const half = rotaryDim / 2;
  elementCount(fn, { 'rotaryDim / 2': half }, 8);
  const { exports } = wasm(fn);
  const invFreq = new Float64Array(half);
  const attention = new Float64Array(1);
  const buffers = [
    { array: invFreq, type: 'float64', length: half, copyOut: true },
    { array: attention, type: 'float64', length: 1, copyOut: true },
    { array: packScaling(sc), type: 'float64', length: SCALING_WORDS, copyIn: true },
  ];
  if (sc.type === 'longrope') {
    buffers.push({ array: sc.shortFactor, type: 'float64', length: half, copyIn: true });
    buffers.push({ array: sc.longFactor, type: 'float64', length: half, copyIn: true });
  }
  let status = 0;
  heapCall(fn, buffers, (pInv, pAttention, pScaling, pShort = 0, pLong = 0) => {
    new Uint32Array(wasm(fn).memory.buffer, pScaling + POINTERS_AT, 3).set([pShort, pLong, pShort ? half : 0]);
    status = exports.posenc_rope_frequencies(pInv, half, rotaryDim, base, pScaling, seqLen, pAttention);
    return status === -2 ? 0 : status; // invalid argument: reported below, with the parameters
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
function impliedSeqLength(sc, offset, rows, positions) {
  if (sc.seqLength !== undefined) return sc.seqLength;
  if (sc.type !== 'dynamic' && sc.type !== 'longrope') return 0;
  let last = offset + rows - 1;
  if (positions) {
    const p = positions instanceof WasmArray ? positions.array : positions;
    last = -Infinity;
    for (let i = 0; i < p.length; i++) if (p[i] > last) last = p[i];
  }
  return Math.max(0, last + 1);
}

// The byte range of an array, to refuse outputs that share memory.
function byteRange(fn, a) {
  if (a instanceof WasmArray) {
    const start = a.pointer(fn);
    return [wasm(fn).memory.buffer, start, start + a.length * (a.type === 'float64' ? 8 : 4)];
  }
  return [a.buffer, a.byteOffset, a.byteOffset + a.byteLength];
}

function checkDisjoint(fn, nameA, a, nameB, b) {
  const [bufA, startA, endA] = byteRange(fn, a);
  const [bufB, startB, endB] = byteRange(fn, b);
  if (bufA === bufB && startA < endB && startB < endA) {
    throw new RangeError(`posenc.${fn}: ${nameA} and ${nameB} must not share memory (they overlap)`);
  }
}

function checkLastPosition(fn, offset, rows, what) {
  if (rows > 0 && offset + rows - 1 > INT32_MAX) {
    throw new RangeError(
      `posenc.${fn}: offset + ${what} - 1 must be at most ${INT32_MAX} (positions are int32), got ${offset + rows - 1}`,
    );
  }
}

function checkOffsetOrPositions(fn, o) {
  if (o.positions !== undefined && o.offset !== undefined) {
    throw new RangeError(`posenc.${fn}: give offset or positions, not both (positions are absolute), got offset ${o.offset}`);
  }
}

// ------------------------------------------------------------------ several position axes

/** The 2-D RoPE forms (posenc.h): 'pixtral' (PixtralRotaryEmbedding), 'axial' (the Qwen2-VL vision encoder). */
export const ROPE_2D = ['pixtral', 'axial'];

/** M-RoPE's mrope_section: three integers >= 0 (temporal, height, width pairs). */
const sectionList = (extra = {}) => ({
  ...extra,
  check(fn, name, v) {
    const allowed = 'an array of 3 integers >= 0 ([temporal, height, width] pairs)';
    if (!Array.isArray(v)) throw fail(TypeError, fn, name, allowed, v);
    const items = v.slice(); // read once: what is checked is what is used
    if (items.length !== 3) throw fail(RangeError, fn, name, allowed, v);
    items.forEach((x, i) => integer(0, INT32_MAX).check(fn, `${name}[${i}]`, x));
    return items;
  },
});

/** A patch grid { height, width }: patches in row-major order. */
const patchGrid = (extra = {}) => ({
  ...extra,
  check(fn, name, v) {
    if (v === null || typeof v !== 'object' || Array.isArray(v) || ArrayBuffer.isView(v)) {
      throw fail(TypeError, fn, name, 'an object { height, width } (patches in row-major order)', v);
    }
    const g = snapshot(v); // own keys, each read once
    for (const key of Object.keys(g)) {
      if (key !== 'height' && key !== 'width') throw new TypeError(`posenc.${fn}: unknown key '${name}.${key}' (${name} is { height, width })`);
    }
    for (const key of ['height', 'width']) {
      if (g[key] === undefined) throw new TypeError(`posenc.${fn}: ${name}.${key} is required`);
      integer(0, INT32_MAX).check(fn, `${name}.${key}`, g[key]);
    }
    return { height: g.height, width: g.width };
  },
});

/** [2][height * width] int32: the row, then the column, of each patch in row-major order. */
function gridPositions({ height, width }) {
  const n = height * width;
  const positions = new Int32Array(2 * n);
  for (let i = 0; i < n; i++) {
    positions[i] = Math.floor(i / width);
    positions[n + i] = i % width;
  }
  return positions;
}

/** The 2-D forms' frequencies from f_i = base^(-2i/r): [row pairs | column pairs], r/4 each. */
function arrange2d(form, f) {
  const q = f.length / 2;
  const out = new Float64Array(2 * q);
  for (let k = 0; k < q; k++) {
    out[k] = f[2 * k];
    out[q + k] = form === 'pixtral' ? f[2 * k + 1] : f[2 * k];
  }
  return out;
}

/** mropeSection adds up to rotaryDim / 2; rope2d needs rotaryDim % 4 == 0 and the default frequencies. */
function checkAxesForm(fn, o, rotaryDim, sc) {
  if (o.mropeSection !== undefined) {
    const sum = o.mropeSection.reduce((a, b) => a + b, 0);
    if (sum !== rotaryDim / 2) {
      throw new RangeError(`posenc.${fn}: mropeSection must add up to rotaryDim / 2 = ${rotaryDim / 2} (one section of pairs per axis), got [${o.mropeSection.join(', ')}] (sum ${sum})`);
    }
  }
  if (o.rope2d !== undefined) {
    if (rotaryDim % 4 !== 0) {
      throw new RangeError(`posenc.${fn}: rotaryDim must be a multiple of 4 for rope2d (each axis rotates rotaryDim / 4 pairs), got ${rotaryDim}`);
    }
    if (sc.type !== 'default') {
      throw new RangeError(`posenc.${fn}: rope2d takes no scaling (Pixtral and the Qwen2-VL vision encoder use the default frequencies), got scaling type '${sc.type}'`);
    }
  }
}

/**
 * The position axes of an M-RoPE or 2-D RoPE call, or null for plain RoPE:
 * { nAxes, sections: Int32Array, positions, form }. positions is the caller's
 * array, or the grid's (a new Int32Array).
 */
function readAxes(fn, o, rotaryDim, sc) {
  if (o.mropeSection === undefined && o.rope2d === undefined) {
    if (o.grid !== undefined) throw new RangeError(`posenc.${fn}: grid is for 2-D RoPE: give rope2d ('pixtral' or 'axial') with it`);
    return null;
  }
  if (o.mropeSection !== undefined && o.rope2d !== undefined) {
    throw new RangeError(`posenc.${fn}: give mropeSection (M-RoPE) or rope2d (2-D RoPE), not both`);
  }
  if (o.offset !== undefined) {
    throw new RangeError(`posenc.${fn}: offset is for one position axis; give positions with ${o.mropeSection ? 'mropeSection' : 'rope2d'}, got offset ${o.offset}`);
  }
  const half = rotaryDim / 2;
  checkAxesForm(fn, o, rotaryDim, sc);
  if (o.mropeSection !== undefined) {
    if (o.positions === undefined) {
      throw new TypeError(`posenc.${fn}: positions is required with mropeSection: an Int32Array [3][seq] (temporal, height, width), e.g. from mropePositions`);
    }
    return { nAxes: 3, sections: Int32Array.from(o.mropeSection), positions: o.positions, form: 'mrope' };
  }
  if (o.positions !== undefined && o.grid !== undefined) {
    throw new RangeError(`posenc.${fn}: give grid or positions with rope2d, not both (grid makes the positions)`);
  }
  if (o.positions === undefined && o.grid === undefined) {
    throw new TypeError(`posenc.${fn}: grid ({ height, width }, patches in row-major order) or positions (an Int32Array [2][patches]: rows, then columns) is required with rope2d`);
  }
  const positions = o.positions ?? gridPositions(o.grid);
  return { nAxes: 2, sections: Int32Array.from([half / 2, half / 2]), positions, form: o.rope2d };
}

// ------------------------------------------------------------------ API

const frequencySpec = {
  rotaryDim: evenDim(),
  base: number({ above: 1, default: 10000 }),
  scaling: later({ optional: true }),
};

/**
 * RoPE inverse frequencies f_k (radians per position), k < rotaryDim / 2, and
 * the attention factor that scales cos and sin, for a scaling type exactly as
 * Hugging Face's modeling_rope_utils.py computes them (in double):
 * 'default' base^(-2k/rotaryDim); 'linear' / factor; 'dynamic' NTK-aware base
 * at scaling.seqLength (default maxPositionEmbeddings); 'yarn'; 'llama3';
 * 'longrope' (long factors when scaling.seqLength > originalMaxPositionEmbeddings).
 * mropeSection is checked (M-RoPE's frequencies are the plain ones); rope2d
 * returns the frequencies in the order its pairs use them: [row | column].
 * @param {{ rotaryDim: number, base?: number, scaling?: object, mropeSection?: number[], rope2d?: string }} options
 * @returns {{ invFreq: Float64Array, attentionFactor: number }}
 */
export function ropeFrequencies(options) {
  const fn = 'ropeFrequencies';
  const o = readOptions(fn, options, { ...frequencySpec, mropeSection: sectionList({ optional: true }), rope2d: oneOf(ROPE_2D, { optional: true }) });
  const sc = readScaling(fn, o.scaling, o.rotaryDim);
  if (o.mropeSection !== undefined && o.rope2d !== undefined) {
    throw new RangeError(`posenc.${fn}: give mropeSection (M-RoPE) or rope2d (2-D RoPE), not both`);
  }
  checkAxesForm(fn, o, o.rotaryDim, sc);
  const f = frequencies(fn, o.rotaryDim, o.base, sc, sc.seqLength ?? 0);
  return o.rope2d ? { invFreq: arrange2d(o.rope2d, f.invFreq), attentionFactor: f.attentionFactor } : f;
}

const cacheSpec = {
  length: integer(0, INT32_MAX, { optional: true }),
  offset: integer(INT32_MIN, INT32_MAX, { optional: true }),
  positions: typedArray('int32', { optional: true }),
  ...frequencySpec,
  precision: oneOf(PRECISIONS, { default: 'float64' }),
  mropeSection: sectionList({ optional: true }),
  rope2d: oneOf(ROPE_2D, { optional: true }),
  grid: patchGrid({ optional: true }),
  out: later({ optional: true }),
};

/**
 * The cos and sin caches, each row-major [length][rotaryDim / 2]:
 * cos[r][k] = A * cos(p_r * f_k), A the attention factor (folded in as Hugging
 * Face does); p_r = offset + r, or positions[r]. HF's caches repeat these
 * columns twice (cat(freqs, freqs)). For 'dynamic' and 'longrope' scaling,
 * scaling.seqLength defaults to the largest position + 1 (HF's forward).
 * precision 'float32' reproduces the float32 recipe (see include/posenc.h).
 * @returns {{ cos: Float32Array, sin: Float32Array }} `out` when given (filled)
 */
export function ropeCache(options) {
  const fn = 'ropeCache';
  const o = readOptions(fn, options, cacheSpec);
  checkOffsetOrPositions(fn, o);
  const sc = readScaling(fn, o.scaling, o.rotaryDim);
  const axes = readAxes(fn, o, o.rotaryDim, sc);
  if (o.length === undefined && o.positions === undefined && !axes) {
    throw new TypeError(`posenc.${fn}: length is required (or positions)`);
  }
  const nAxes = axes?.nAxes ?? 1;
  const positions = axes?.positions ?? o.positions;
  if (o.grid && o.length !== undefined && o.length !== o.grid.height * o.grid.width) {
    throw new RangeError(`posenc.${fn}: length must be the patches of the grid, grid.height * grid.width = ${o.grid.height * o.grid.width} (or omitted), got ${o.length}`);
  }
  if (axes && positions.length % nAxes !== 0) {
    throw new RangeError(`posenc.${fn}: positions must have a multiple of ${nAxes} entries ([${nAxes}][length], axis-major), got ${positions.length}`);
  }
  const length = o.length ?? (positions ? positions.length / nAxes : 0);
  if (positions) checkLength(fn, 'positions', positions, nAxes * length);
  const offset = o.offset ?? 0;
  checkLastPosition(fn, offset, length, 'length');
  const half = o.rotaryDim / 2;
  const n = elementCount(fn, { length, 'rotaryDim / 2': half });
  let out = o.out; // the caller's object, returned; its arrays are read once, into `arrays`
  let arrays;
  if (out !== undefined) {
    if (!isOptionsObject(out) || out instanceof WasmArray) {
      throw new TypeError(`posenc.${fn}: out must be an object { cos, sin } of two Float32Arrays (or 'float32' WasmArrays), got ${describe(out)}`);
    }
    arrays = snapshot(out);
    for (const key of Object.keys(arrays)) {
      if (key !== 'cos' && key !== 'sin') throw new TypeError(`posenc.${fn}: unknown key 'out.${key}' (out is { cos, sin })`);
    }
    typedArray('float32').check(fn, 'out.cos', arrays.cos);
    typedArray('float32').check(fn, 'out.sin', arrays.sin);
    checkLength(fn, 'out.cos', arrays.cos, n);
    checkLength(fn, 'out.sin', arrays.sin, n);
    checkDisjoint(fn, 'out.cos', arrays.cos, 'out.sin', arrays.sin);
    if (positions) {
      checkDisjoint(fn, 'positions', positions, 'out.cos', arrays.cos);
      checkDisjoint(fn, 'positions', positions, 'out.sin', arrays.sin);
    }
  }
  // addresses of caller arrays in wasm memory, taken before frequencies() allocates
  // (growing memory detaches every view of it, the caller's included)
  const at = (a, bytes) => (a === undefined ? undefined : inPlaceAddress(fn, a, bytes));
  const address = { cos: at(arrays?.cos, 4 * n), sin: at(arrays?.sin, 4 * n), positions: at(positions, 4 * nAxes * length) };
  const scaled = frequencies(fn, o.rotaryDim, o.base, sc, impliedSeqLength(sc, offset, length, positions));
  const invFreq = axes?.nAxes === 2 ? arrange2d(axes.form, scaled.invFreq) : scaled.invFreq;
  out ??= { cos: new Float32Array(n), sin: new Float32Array(n) };
  arrays ??= out;
  const { exports } = wasm(fn);
  const buffers = [
    { array: arrays.cos, type: 'float32', length: n, copyOut: true, address: address.cos },
    { array: arrays.sin, type: 'float32', length: n, copyOut: true, address: address.sin },
    { array: invFreq, type: 'float64', length: half, copyIn: true },
  ];
  if (positions) buffers.push({ array: positions, type: 'int32', length: nAxes * length, copyIn: true, address: address.positions });
  if (axes) buffers.push({ array: axes.sections, type: 'int32', length: nAxes, copyIn: true });
  const precision = PRECISIONS.indexOf(o.precision);
  heapCall(fn, buffers, (pCos, pSin, pFreq, pPositions = 0, pSections = 0) =>
    axes
      ? exports.posenc_rope_axes_cache(pCos, pSin, n, length, pPositions, nAxes, pSections, o.rotaryDim, pFreq, scaled.attentionFactor, precision)
      : exports.posenc_rope_cache(pCos, pSin, n, length, offset, pPositions, o.rotaryDim, pFreq, scaled.attentionFactor, precision),
  );
  return out;
}

const applySpec = {
  heads: integer(1, INT32_MAX),
  headDim: integer(1, INT32_MAX),
  rotaryDim: evenDim({ optional: true }),
  layout: oneOf(ROPE_LAYOUTS, { default: 'half' }),
  base: frequencySpec.base,
  offset: integer(INT32_MIN, INT32_MAX, { optional: true }),
  positions: typedArray('int32', { optional: true }),
  scaling: frequencySpec.scaling,
  batch: integer(1, INT32_MAX, { default: 1 }),
  order: oneOf(ORDERS, { default: 'bshd' }),
  precision: oneOf(PRECISIONS, { default: 'float64' }),
  mropeSection: sectionList({ optional: true }),
  rope2d: oneOf(ROPE_2D, { optional: true }),
  grid: patchGrid({ optional: true }),
};

/**
 * Rotates queries or keys in place, x laid out [batch][seq][heads][headDim]
 * (order 'bshd', the default: a projection viewed per head) or
 * [batch][heads][seq][headDim] (order 'bhsd': what Hugging Face's
 * apply_rotary_pos_emb receives, after the transpose), with
 * seq = x.length / (batch * heads * headDim). layout 'half' pairs features
 * (k, k + rotaryDim/2) (GPT-NeoX, LLaMA, Hugging Face rotate_half);
 * 'interleaved' pairs (2k, 2k + 1) (GPT-J, RoFormer, Meta's reference).
 * Features >= rotaryDim (default headDim) are untouched. Positions: offset + s,
 * or positions (Int32Array) with one entry per row (seq) or per batch and row
 * (batch * seq) for KV-cache decoding and padded batches.
 * @returns x
 */
export function applyRope(x, options) {
  const fn = 'applyRope';
  typedArray('float32').check(fn, 'x', x);
  const o = readOptions(fn, options, applySpec);
  checkOffsetOrPositions(fn, o);
  const rotaryDim = o.rotaryDim ?? o.headDim;
  if (rotaryDim % 2 || rotaryDim > o.headDim) {
    const what = o.rotaryDim === undefined ? `rotaryDim (default headDim = ${o.headDim})` : 'rotaryDim';
    throw new RangeError(`posenc.${fn}: ${what} must be an even integer from 2 to headDim = ${o.headDim}, got ${rotaryDim}`);
  }
  const sc = readScaling(fn, o.scaling, rotaryDim);
  const axes = readAxes(fn, o, rotaryDim, sc);
  const rowElements = elementCount(fn, { batch: o.batch, heads: o.heads, headDim: o.headDim });
  if (x.length % rowElements !== 0) {
    throw new RangeError(`posenc.${fn}: x.length must be a multiple of batch * heads * headDim = ${rowElements}, got ${x.length}`);
  }
  const seq = x.length / rowElements;
  const offset = o.offset ?? 0;
  const nAxes = axes?.nAxes ?? 1;
  const positions = axes?.positions ?? o.positions;
  if (o.grid && o.grid.height * o.grid.width !== seq) {
    throw new RangeError(`posenc.${fn}: grid.height * grid.width must be the patches of x, seq = x.length / (batch * heads * headDim) = ${seq}, got ${o.grid.height} * ${o.grid.width} = ${o.grid.height * o.grid.width}`);
  }
  if (positions && positions.length !== nAxes * seq && positions.length !== nAxes * o.batch * seq) {
    const what = nAxes === 1 ? ['seq', 'one per row', 'batch * seq', 'one per batch and row'] : [`${nAxes} * seq`, `[${nAxes}][seq]`, `${nAxes} * batch * seq`, `[${nAxes}][batch][seq]`];
    throw new RangeError(
      `posenc.${fn}: positions must have length ${what[0]} = ${nAxes * seq} (${what[1]}) or ${what[2]} = ${nAxes * o.batch * seq} (${what[3]}), got ${positions.length}`,
    );
  }
  if (!positions) checkLastPosition(fn, offset, seq, 'seq');
  if (positions) checkDisjoint(fn, 'positions', positions, 'x', x);
  const positionsLength = positions ? positions.length : 0;
  // addresses of caller arrays in wasm memory, taken before frequencies() allocates
  // (growing memory detaches every view of it, the caller's included)
  const xLength = x.length; // a view of wasm memory reads 0 once detached
  const xAddress = inPlaceAddress(fn, x, 4 * xLength);
  const positionsAddress = positions ? inPlaceAddress(fn, positions, 4 * positionsLength) : 0;
  const scaled = frequencies(fn, rotaryDim, o.base, sc, impliedSeqLength(sc, offset, seq, positions));
  const invFreq = axes?.nAxes === 2 ? arrange2d(axes.form, scaled.invFreq) : scaled.invFreq;
  const { exports } = wasm(fn);
  const buffers = [
    { array: x, type: 'float32', length: xLength, copyIn: true, copyOut: true, address: xAddress },
    { array: invFreq, type: 'float64', length: rotaryDim / 2, copyIn: true },
  ];
  if (positions) buffers.push({ array: positions, type: 'int32', length: positionsLength, copyIn: true, address: positionsAddress });
  if (axes) buffers.push({ array: axes.sections, type: 'int32', length: nAxes, copyIn: true });
  const [order, layout, precision] = [ORDERS.indexOf(o.order), ROPE_LAYOUTS.indexOf(o.layout), PRECISIONS.indexOf(o.precision)];
  heapCall(fn, buffers, (pX, pFreq, pPositions = 0, pSections = 0) =>
    axes
      ? exports.posenc_rope_axes_apply(
        pX, xLength, o.batch, seq, o.heads, o.headDim, order, rotaryDim, layout, pFreq, scaled.attentionFactor, pPositions,
        positionsLength, nAxes, pSections, precision,
      )
      : exports.posenc_rope_apply_ordered(
        pX, xLength, o.batch, seq, o.heads, o.headDim, order, rotaryDim, layout, pFreq, scaled.attentionFactor, offset,
        pPositions, positionsLength, precision,
      ),
  );
  return x;
}

const permuteSpec = {
  heads: integer(1, INT32_MAX),
  headDim: integer(1, INT32_MAX),
  rotaryDim: evenDim({ optional: true }),
  from: oneOf(ROPE_LAYOUTS),
  to: oneOf(ROPE_LAYOUTS),
  out: typedArray('float32', { optional: true }),
};

/**
 * Reorders the rows of a q or k projection matrix w, row-major
 * [heads * headDim][inFeatures] (inFeatures = w.length / (heads * headDim); a
 * bias is inFeatures = 1), so that RoPE in layout `to` on (w' x) equals RoPE in
 * layout `from` on (w x) up to a fixed permutation of each head's features:
 * attention scores are unchanged. 'interleaved' -> 'half' is Hugging Face's
 * convert_llama_weights_to_hf.py permute() (Meta checkpoints to HF); 'half' ->
 * 'interleaved' is its inverse. Rows >= rotaryDim (default headDim) are
 * copied. Under grouped-query attention pass heads = num_key_value_heads for k.
 * @returns {Float32Array} `out` when given (filled), else a new array; w is not modified
 */
export function ropePermuteWeights(w, options) {
  const fn = 'ropePermuteWeights';
  typedArray('float32').check(fn, 'w', w);
  const o = readOptions(fn, options, permuteSpec);
  const rotaryDim = o.rotaryDim ?? o.headDim;
  if (rotaryDim % 2 || rotaryDim > o.headDim) {
    const what = o.rotaryDim === undefined ? `rotaryDim (default headDim = ${o.headDim})` : 'rotaryDim';
    throw new RangeError(`posenc.${fn}: ${what} must be an even integer from 2 to headDim = ${o.headDim}, got ${rotaryDim}`);
  }
  const rows = elementCount(fn, { heads: o.heads, headDim: o.headDim });
  if (w.length === 0 || w.length % rows !== 0) {
    throw new RangeError(`posenc.${fn}: w.length must be a positive multiple of heads * headDim = ${rows}, got ${w.length}`);
  }
  const out = o.out ?? new Float32Array(w.length);
  if (o.out) {
    checkLength(fn, 'out', out, w.length);
    checkDisjoint(fn, 'out', out, 'w', w);
  }
  const { exports } = wasm(fn);
  heapCall(
    fn,
    [
      { array: out, type: 'float32', length: w.length, copyOut: true },
      { array: w, type: 'float32', length: w.length, copyIn: true },
    ],
    (pOut, pW) =>
      exports.posenc_rope_permute_weights(
        pOut, w.length, pW, w.length, o.heads, o.headDim, rotaryDim, w.length / rows,
        ROPE_LAYOUTS.indexOf(o.from), ROPE_LAYOUTS.indexOf(o.to),
      ),
  );
  return out;
}

// ------------------------------------------------------------------ configs

// Where each option comes from in a config.json, for messages.
const CONFIG_KEYS = {
  factor: 'factor', attentionFactor: 'attention_factor', betaFast: 'beta_fast', betaSlow: 'beta_slow',
  mscale: 'mscale', mscaleAllDim: 'mscale_all_dim', truncate: 'truncate', lowFreqFactor: 'low_freq_factor',
  highFreqFactor: 'high_freq_factor', shortFactor: 'short_factor', longFactor: 'long_factor', type: 'rope_type',
};

const isPlainObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v) && !ArrayBuffer.isView(v);

function configNumber(fn, config, key) {
  const v = config[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number') throw fail(TypeError, fn, `config.${key}`, 'a number', v);
  return v;
}

/**
 * The RoPE options of a Hugging Face config.json object: { rotaryDim, base,
 * scaling? }, ready to spread into ropeFrequencies, ropeCache and applyRope
 * (which also need heads and headDim: config.head_dim, or hidden_size /
 * num_attention_heads). Reads rope_theta, rope_scaling (rope_type or the older
 * type) or rope_parameters (transformers v5, rope_theta and
 * partial_rotary_factor inside it), partial_rotary_factor, head_dim,
 * hidden_size, num_attention_heads, max_position_embeddings,
 * original_max_position_embeddings (top level first, as HF's
 * standardize_rope_params), GPT-NeoX's rotary_pct / rotary_emb_base, GPT-J's
 * rotary_dim (n_embd, n_head), DeepSeek-V2/V3's qk_rope_head_dim (the rotated
 * part of a head under multi-head latent attention, before head_dim), and
 * ChatGLM's kv_channels and rope_ratio (model_type 'chatglm': half a head
 * rotates, base 10000 * rope_ratio). rotaryDim = int(headDim *
 * partialRotaryFactor) as in HF.
 * Per-layer-type rope_parameters (e.g. Gemma 3) need options.layerType.
 * @param {object} config the parsed config.json
 * @param {{ layerType?: string }} [options]
 * @returns {{ rotaryDim: number, base: number, scaling?: object }}
 */
export function ropeFromConfig(config, options = {}) {
  const fn = 'ropeFromConfig';
  if (!isPlainObject(config)) {
    throw new TypeError(`posenc.${fn}: config must be a Hugging Face config object (the parsed config.json), got ${describe(config)}`);
  }
  const { layerType } = readOptions(fn, options, {
    layerType: {
      optional: true,
      check(f, name, v) {
        if (typeof v !== 'string') throw fail(TypeError, f, name, 'a string', v);
        return v;
      },
    },
  });
  const dictName = config.rope_parameters != null ? 'rope_parameters' : 'rope_scaling';
  let dict = config[dictName] ?? null;
  let where = `config.${dictName}`;
  if (dict !== null && !isPlainObject(dict)) throw fail(TypeError, fn, where, 'an object or null', dict);
  const nested = dict !== null && dict.rope_type === undefined && dict.type === undefined &&
    Object.keys(dict).length > 0 && Object.values(dict).every((v) => v === null || isPlainObject(v));
  if (nested) {
    if (layerType === undefined || !Object.hasOwn(dict, layerType)) {
      throw new RangeError(
        `posenc.${fn}: ${where} is per layer type: options.layerType must be one of ${Object.keys(dict).map((k) => `'${k}'`).join(', ')}, got ${describe(layerType)}`,
      );
    }
    dict = dict[layerType];
    where = `${where}.${layerType}`;
  } else if (layerType !== undefined) {
    throw new RangeError(`posenc.${fn}: options.layerType is only for per-layer-type rope_parameters, got ${describe(layerType)}`);
  }
  dict ??= {};
  const inDict = (key) => (dict[key] === undefined || dict[key] === null ? undefined : dict[key]);
  const fromDict = (key) => {
    const v = inDict(key);
    if (v !== undefined && typeof v !== 'number') throw fail(TypeError, fn, `${where}.${key}`, 'a number', v);
    return v;
  };

  // ChatGLM2/3 and GLM-4 (THUDM modeling_chatglm.py) rotate half of each head,
  // RotaryEmbedding(rotary_dim // 2) with rotary_dim = kv_channels, at base 10000 * rope_ratio
  const chatglm = config.model_type === 'chatglm';
  const ratio = configNumber(fn, config, 'rope_ratio') ?? 1;
  if (!(ratio > 0) || !Number.isFinite(ratio)) throw fail(RangeError, fn, 'config.rope_ratio', 'a finite number > 0', ratio);
  const theta = fromDict('rope_theta') ?? configNumber(fn, config, 'rope_theta') ?? configNumber(fn, config, 'rotary_emb_base') ?? 10000;
  const base = theta * ratio;
  if (!(base > 1) || !Number.isFinite(base)) {
    throw fail(RangeError, fn, ratio === 1 ? 'config.rope_theta' : 'config.rope_theta * config.rope_ratio', 'a finite number > 1', base);
  }
  const partial = fromDict('partial_rotary_factor') ?? configNumber(fn, config, 'partial_rotary_factor') ??
    configNumber(fn, config, 'rotary_pct') ?? (chatglm ? 0.5 : 1);
  if (!(partial > 0 && partial <= 1)) throw fail(RangeError, fn, 'config.partial_rotary_factor', 'a number in (0, 1]', partial);

  const explicitDim = configNumber(fn, config, 'rotary_dim'); // GPT-J, CodeGen
  let headDim;
  let headKey = 'config.head_dim';
  if (explicitDim === undefined) {
    // DeepSeek-V2/V3 (multi-head latent attention) rotate only the qk_rope_head_dim
    // features of each head: configuration_deepseek_v3.py sets head_dim = qk_rope_head_dim.
    // Otherwise HF: getattr(config, "head_dim", None) or hidden_size // num_attention_heads
    // (GPT-J and CodeGen name these n_embd and n_head; ChatGLM's head is kv_channels).
    for (const key of ['qk_rope_head_dim', 'head_dim', ...(chatglm ? ['kv_channels'] : [])]) {
      headDim = configNumber(fn, config, key) || undefined;
      headKey = `config.${key}`;
      if (headDim !== undefined) break;
    }
    if (headDim === undefined) {
      const hidden = configNumber(fn, config, 'hidden_size') ?? configNumber(fn, config, 'n_embd');
      const heads = configNumber(fn, config, 'num_attention_heads') ?? configNumber(fn, config, 'n_head');
      if (hidden === undefined || heads === undefined) {
        throw new TypeError(
          `posenc.${fn}: config.head_dim (or config.qk_rope_head_dim), or config.hidden_size and config.num_attention_heads, are required`,
        );
      }
      if (!Number.isInteger(hidden) || !Number.isInteger(heads) || hidden < 1 || heads < 1) {
        throw new RangeError(`posenc.${fn}: config.hidden_size and config.num_attention_heads must be positive integers, got ${hidden} and ${heads}`);
      }
      headDim = Math.floor(hidden / heads);
      headKey = 'config.head_dim';
    }
    if (!Number.isInteger(headDim) || headDim < 1) throw fail(RangeError, fn, headKey, 'a positive integer', headDim);
  }
  const rotaryDim = explicitDim ?? Math.trunc(headDim * partial); // Python int(head_dim * partial_rotary_factor)
  if (!Number.isInteger(rotaryDim) || rotaryDim < 2 || rotaryDim % 2) {
    throw new RangeError(
      `posenc.${fn}: the rotary dimension ${explicitDim !== undefined ? 'config.rotary_dim' : `int(head_dim * partial_rotary_factor) = int(${headDim} * ${partial})`} must be an even integer >= 2, got ${rotaryDim} (for an odd value Hugging Face rotates ${2 * Math.ceil(rotaryDim / 2)} features with frequencies base^(-2k/${rotaryDim}); posenc does not)`,
    );
  }

  // Qwen2-VL's rope_scaling { type: 'mrope', mrope_section }: HF's Qwen2VLConfig reads it as 'default'
  const named = inDict('rope_type') ?? inDict('type') ?? 'default';
  const type = named === 'mrope' ? 'default' : named;
  const maxPos = configNumber(fn, config, 'max_position_embeddings');
  const originalMax = configNumber(fn, config, 'original_max_position_embeddings') ?? fromDict('original_max_position_embeddings');
  const truthy = (key) => inDict(key) || undefined; // Python `x or default`: 0 and None fall back
  const candidate = {
    type,
    factor: inDict('factor'),
    attentionFactor: inDict('attention_factor'),
    betaFast: truthy('beta_fast'),
    betaSlow: truthy('beta_slow'),
    mscale: truthy('mscale'),
    mscaleAllDim: truthy('mscale_all_dim'),
    truncate: Object.hasOwn(dict, 'truncate') ? Boolean(dict.truncate) : undefined,
    lowFreqFactor: inDict('low_freq_factor'),
    highFreqFactor: inDict('high_freq_factor'),
    shortFactor: inDict('short_factor'),
    longFactor: inDict('long_factor'),
    maxPositionEmbeddings: maxPos,
    originalMaxPositionEmbeddings: type === 'llama3' ? originalMax ?? maxPos : originalMax,
  };
  oneOf(ROPE_TYPES).check(fn, `${where}.rope_type`, type);
  const scaling = { type };
  for (const key of Object.keys(SCALING[type])) {
    if (candidate[key] !== undefined && key !== 'seqLength') scaling[key] = candidate[key];
  }
  if (type === 'llama3') delete scaling.maxPositionEmbeddings;
  const label = (key) => {
    if (key === 'maxPositionEmbeddings') return 'config.max_position_embeddings';
    if (key === 'originalMaxPositionEmbeddings') return `config.original_max_position_embeddings (or ${where}.original_max_position_embeddings)`;
    return `${where}.${CONFIG_KEYS[key] ?? key}`;
  };
  readScaling(fn, scaling, rotaryDim, label); // validates, with the config's names
  const rope = type === 'default' ? { rotaryDim, base } : { rotaryDim, base, scaling };
  const mropeSection = configMropeSection(fn, dict, where, named, rotaryDim);
  return mropeSection ? { ...rope, mropeSection } : rope;
}

/** M-RoPE's sections from a rope_scaling / rope_parameters dict (Qwen2-VL, Qwen2.5-VL), or undefined. */
function configMropeSection(fn, dict, where, type, rotaryDim) {
  const v = dict.mrope_section ?? undefined;
  if (v === undefined) {
    if (type === 'mrope') throw new TypeError(`posenc.${fn}: ${where}.mrope_section is required with rope_type 'mrope'`);
    return undefined;
  }
  if (dict.mrope_interleaved) {
    throw new RangeError(
      `posenc.${fn}: ${where}.mrope_interleaved (Qwen3-VL's interleaved M-RoPE) is not supported: posenc implements the sectioned M-RoPE of Qwen2-VL and Qwen2.5-VL`,
    );
  }
  const sections = sectionList().check(fn, `${where}.mrope_section`, v);
  const sum = sections.reduce((a, b) => a + b, 0);
  if (sum !== rotaryDim / 2) {
    throw new RangeError(`posenc.${fn}: ${where}.mrope_section must add up to the rotary dimension / 2 = ${rotaryDim / 2}, got [${sections.join(', ')}] (sum ${sum})`);
  }
  return sections;
}
