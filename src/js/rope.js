// rope.js: rotary position embeddings (RoFormer; Hugging Face modeling_rope_utils.py).
// Formulas, layouts and accuracy: include/posenc.h. This file validates and
// marshals; every number is computed in C.
import { axes_arrangement, rope_layout, rope_order, rope_precision } from '../../build/abi.js';
import { describe, fail, isPlainObject, typedArrayType } from './core/describe.js';
import { WasmArray, checkDisjoint, countOf, heapCall, inPlaceAddress } from './core/heap.js';
import { wasm } from './core/instance.js';
import {
  INT32_MAX, INT32_MIN, boolean, checkLength, elementCount, integer, later, number, oneOf, readOptions, snapshot, typedArray,
} from './core/options.js';
import { ROPE_2D, arrange2d, checkAxesForm, patchGrid, readAxes, sectionList } from './rope-axes.js';
import { lengthOf } from './core/typed.js';
import { evenDim, frequencies, impliedSeqLength, readScaling } from './rope-scaling.js';

/** Pair layouts (posenc_rope_layout). */
export const ROPE_LAYOUTS = rope_layout;
export { ROPE_2D };
/** Axis orders of applyRope's x (posenc_rope_order). */
const ORDERS = rope_order;
/** Angle precisions (posenc_rope_precision). */
const PRECISIONS = rope_precision;

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

// ------------------------------------------------------------------ API

const frequencySpec = {
  rotaryDim: evenDim(),
  base: number({ above: 1, default: 10000 }),
  scaling: later({ optional: true }),
};

/** M-RoPE's options, and layout: what ropeFromConfig returns besides the frequencies. */
const axesSpec = {
  mropeSection: sectionList({ optional: true }),
  mropeInterleaved: boolean({ optional: true }),
  rope2d: oneOf(ROPE_2D, { optional: true }),
};

export const frequenciesSpec = { ...frequencySpec, layout: oneOf(ROPE_LAYOUTS, { optional: true }), ...axesSpec };

/**
 * A model's own inverse frequencies, used as they are (its inv_freq buffer,
 * float32 in transformers): with precision 'float32', ropeCache and
 * applyRope then follow transformers' float32 pipeline value for value.
 */
const invFreqList = (extra = {}) => ({
  ...extra,
  check(fn, name, v) {
    const allowed = 'a Float32Array, Float64Array or Array of finite numbers';
    const type = typedArrayType(v);
    if (!Array.isArray(v) && type !== 'Float32Array' && type !== 'Float64Array') throw fail(TypeError, fn, name, allowed, v);
    const out = Float64Array.from({ length: Array.isArray(v) ? v.length : lengthOf(v) }, (_, i) => {
      const x = v[i];
      if (typeof x !== 'number') throw fail(TypeError, fn, `${name}[${i}]`, 'a finite number', x);
      if (!Number.isFinite(x)) throw fail(RangeError, fn, `${name}[${i}]`, 'a finite number', x);
      return x;
    });
    return out;
  },
});

/**
 * RoPE inverse frequencies f_k (radians per position), k < rotaryDim / 2, and
 * the attention factor that scales cos and sin, for a scaling type exactly as
 * Hugging Face's modeling_rope_utils.py computes them (in double):
 * 'default' base^(-2k/rotaryDim); 'linear' / factor; 'dynamic' NTK-aware base
 * at scaling.seqLength (default maxPositionEmbeddings); 'yarn'; 'llama3';
 * 'longrope' (long factors when scaling.seqLength > originalMaxPositionEmbeddings).
 * mropeSection and layout are checked (M-RoPE's frequencies are the plain
 * ones, and a layout only pairs features); rope2d returns the frequencies in
 * the order its pairs use them: [row | column].
 * @param {{ rotaryDim: number, base?: number, scaling?: object, layout?: string, mropeSection?: number[], mropeInterleaved?: boolean, rope2d?: string }} options
 * @returns {{ invFreq: Float64Array, attentionFactor: number }}
 */
export function ropeFrequencies(options) {
  const fn = 'ropeFrequencies';
  const o = readOptions(fn, options, frequenciesSpec);
  const sc = readScaling(fn, o.scaling, o.rotaryDim);
  if (o.mropeSection !== undefined && o.rope2d !== undefined) {
    throw new RangeError(`posenc.${fn}: give mropeSection (M-RoPE) or rope2d (2-D RoPE), not both`);
  }
  checkAxesForm(fn, o, o.rotaryDim, sc);
  const f = frequencies(fn, o.rotaryDim, o.base, sc, sc.seqLength ?? 0);
  return o.rope2d ? { invFreq: arrange2d(o.rope2d, f.invFreq), attentionFactor: f.attentionFactor } : f;
}

/**
 * The frequencies a cache or rotation uses: options.invFreq as given (a
 * model's own buffer, rotaryDim / 2 values), else the scaled ones, arranged
 * for 2-D RoPE.
 */
function givenOrScaled(fn, o, rotaryDim, axes, scaled) {
  if (o.invFreq === undefined) return axes?.nAxes === 2 ? arrange2d(axes.form, scaled.invFreq) : scaled.invFreq;
  if (o.invFreq.length !== rotaryDim / 2) {
    throw new RangeError(`posenc.${fn}: invFreq must have rotaryDim / 2 = ${rotaryDim / 2} values, got ${o.invFreq.length}`);
  }
  if (axes?.nAxes === 2) throw new RangeError(`posenc.${fn}: give invFreq or rope2d, not both (rope2d arranges the frequencies it computes)`);
  return o.invFreq;
}

export const cacheSpec = {
  length: integer(0, INT32_MAX, { optional: true }),
  offset: integer(INT32_MIN, INT32_MAX, { optional: true }),
  positions: typedArray('int32', { optional: true }),
  ...frequencySpec,
  precision: oneOf(PRECISIONS, { default: 'float64' }),
  layout: oneOf(ROPE_LAYOUTS, { optional: true }),
  ...axesSpec,
  grid: patchGrid({ optional: true }),
  invFreq: invFreqList({ optional: true }),
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
  if (axes && countOf(positions) % nAxes !== 0) {
    throw new RangeError(`posenc.${fn}: positions must have a multiple of ${nAxes} entries ([${nAxes}][length], axis-major), got ${countOf(positions)}`);
  }
  const length = o.length ?? (positions ? countOf(positions) / nAxes : 0);
  if (positions) checkLength(fn, 'positions', positions, nAxes * length);
  const offset = o.offset ?? 0;
  checkLastPosition(fn, offset, length, 'length');
  const half = o.rotaryDim / 2;
  const n = elementCount(fn, { length, 'rotaryDim / 2': half });
  let out = o.out; // the caller's object, returned; its arrays are read once, into `arrays`
  let arrays;
  if (out !== undefined) {
    if (!isPlainObject(out) || WasmArray.isBranded(out)) {
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
  const at = (a) => (a === undefined ? undefined : inPlaceAddress(fn, a));
  const address = { cos: at(arrays?.cos), sin: at(arrays?.sin), positions: at(positions) };
  const scaled = frequencies(fn, o.rotaryDim, o.base, sc, impliedSeqLength(sc, offset, length, positions));
  const invFreq = givenOrScaled(fn, o, o.rotaryDim, axes, scaled);
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
      ? exports.posenc_rope_axes_cache(pCos, pSin, n, length, pPositions, nAxes, pSections, axes_arrangement.indexOf(axes.arrangement), o.rotaryDim, pFreq, scaled.attentionFactor, precision)
      : exports.posenc_rope_cache(pCos, pSin, n, length, offset, pPositions, o.rotaryDim, pFreq, scaled.attentionFactor, precision),
  );
  return out;
}

export const applySpec = {
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
  ...axesSpec,
  grid: patchGrid({ optional: true }),
  invFreq: invFreqList({ optional: true }),
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
  const rotaryDim = resolveRotaryDim(fn, o.rotaryDim, o.headDim);
  const sc = readScaling(fn, o.scaling, rotaryDim);
  const axes = readAxes(fn, o, rotaryDim, sc);
  const rowElements = elementCount(fn, { batch: o.batch, heads: o.heads, headDim: o.headDim });
  const xLength = countOf(x);
  if (xLength % rowElements !== 0) {
    throw new RangeError(`posenc.${fn}: x.length must be a multiple of batch * heads * headDim = ${rowElements}, got ${xLength}`);
  }
  const seq = xLength / rowElements;
  const offset = o.offset ?? 0;
  const nAxes = axes?.nAxes ?? 1;
  const positions = axes?.positions ?? o.positions;
  if (o.grid && o.grid.height * o.grid.width !== seq) {
    throw new RangeError(`posenc.${fn}: grid.height * grid.width must be the patches of x, seq = x.length / (batch * heads * headDim) = ${seq}, got ${o.grid.height} * ${o.grid.width} = ${o.grid.height * o.grid.width}`);
  }
  if (positions && countOf(positions) !== nAxes * seq && countOf(positions) !== nAxes * o.batch * seq) {
    const what = nAxes === 1 ? ['seq', 'one per row', 'batch * seq', 'one per batch and row'] : [`${nAxes} * seq`, `[${nAxes}][seq]`, `${nAxes} * batch * seq`, `[${nAxes}][batch][seq]`];
    throw new RangeError(
      `posenc.${fn}: positions must have length ${what[0]} = ${nAxes * seq} (${what[1]}) or ${what[2]} = ${nAxes * o.batch * seq} (${what[3]}), got ${countOf(positions)}`,
    );
  }
  if (!positions) checkLastPosition(fn, offset, seq, 'seq');
  if (positions) checkDisjoint(fn, 'positions', positions, 'x', x);
  const positionsLength = positions ? countOf(positions) : 0;
  // addresses of caller arrays in wasm memory, taken before frequencies() allocates
  // (growing memory detaches every view of it, the caller's included)
  const xAddress = inPlaceAddress(fn, x);
  const positionsAddress = positions ? inPlaceAddress(fn, positions) : 0;
  const scaled = frequencies(fn, rotaryDim, o.base, sc, impliedSeqLength(sc, offset, seq, positions));
  const invFreq = givenOrScaled(fn, o, rotaryDim, axes, scaled);
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
        positionsLength, nAxes, pSections, axes_arrangement.indexOf(axes.arrangement), precision,
      )
      : exports.posenc_rope_apply_ordered(
        pX, xLength, o.batch, seq, o.heads, o.headDim, order, rotaryDim, layout, pFreq, scaled.attentionFactor, offset,
        pPositions, positionsLength, precision,
      ),
  );
  return x;
}

/**
 * The rotary dimension of a head of headDim features: rotaryDim, default
 * headDim, even and at most headDim. `name` and `headName` are how messages
 * call the two (the encoder's are positional.rotaryDim and dModel / heads).
 */
export function resolveRotaryDim(fn, rotaryDim, headDim, name = 'rotaryDim', headName = 'headDim') {
  const r = rotaryDim ?? headDim;
  if (r % 2 || r > headDim) {
    const what = rotaryDim === undefined ? `${name} (default ${headName} = ${headDim})` : name;
    throw new RangeError(`posenc.${fn}: ${what} must be an even integer from 2 to ${headName} = ${headDim}, got ${r}`);
  }
  return r;
}

export const permuteSpec = {
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
  const rotaryDim = resolveRotaryDim(fn, o.rotaryDim, o.headDim);
  const rows = elementCount(fn, { heads: o.heads, headDim: o.headDim });
  const wLength = countOf(w);
  if (wLength === 0 || wLength % rows !== 0) {
    throw new RangeError(`posenc.${fn}: w.length must be a positive multiple of heads * headDim = ${rows}, got ${wLength}`);
  }
  const out = o.out ?? new Float32Array(wLength);
  if (o.out) {
    checkLength(fn, 'out', out, wLength);
    checkDisjoint(fn, 'out', out, 'w', w);
  }
  const { exports } = wasm(fn);
  heapCall(
    fn,
    [
      { array: out, type: 'float32', length: wLength, copyOut: true },
      { array: w, type: 'float32', length: wLength, copyIn: true },
    ],
    (pOut, pW) =>
      exports.posenc_rope_permute_weights(
        pOut, wLength, pW, wLength, o.heads, o.headDim, rotaryDim, wLength / rows,
        ROPE_LAYOUTS.indexOf(o.from), ROPE_LAYOUTS.indexOf(o.to),
      ),
  );
  return out;
}

