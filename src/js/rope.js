// rope.js: rotary position embeddings (RoFormer; Hugging Face modeling_rope_utils.py).
// Formulas, layouts and accuracy: include/posenc.h. Each function is one call
// into C with the whole RoPE (posenc_rope: base, scaling, layout, precision),
// which computes its frequencies and checks every range itself; this file
// reads the options and marshals.
import { rope_layout, rope_order, rope_precision } from '../../build/abi.js';
import { describe, fail, isPlainObject } from './core/describe.js';
import { allowed, row, rowAllows } from './core/errors.js';
import { WasmArray, checkDisjoint, countOf, heapCall } from './core/heap.js';
import { wasm } from './core/instance.js';
import { boolean, checkLength, elementCount, later, oneOf, param, readOptions, snapshot, typedArray } from './core/options.js';
import { ROPE_2D, axesOf, checkAxesForm, patchGrid, readAxes, sectionList, textPositions } from './rope-axes.js';
import {
  AXES_WORDS, ROPE_WORDS, evenDim, numberList, readScaling, ropeArrays, ropeGiven, ropeLabel, writeAxes, writeRope,
} from './rope-scaling.js';

/** Pair layouts (posenc_rope_layout). */
export const ROPE_LAYOUTS = rope_layout;
export { ROPE_2D };
/** Axis orders of applyRope's x (posenc_rope_order). */
const ORDERS = rope_order;
/** Angle precisions (posenc_rope_precision). */
const PRECISIONS = rope_precision;

function checkOffsetOrPositions(fn, o) {
  if (o.positions !== undefined && o.offset !== undefined) {
    throw new RangeError(`posenc.${fn}: give offset or positions, not both (positions are absolute), got offset ${o.offset}`);
  }
}

/**
 * The shapes C trusts: rotaryDim even (its pairs size every array), a
 * model's own frequencies (invFreq) and LongRoPE's lists rotaryDim / 2 long.
 */
function checkShapes(fn, rotaryDim, invFreq, sc, rotaryName = 'rotaryDim', headDim = undefined) {
  if (rotaryDim % 2) {
    const r = row('ROTARY_DIM');
    throw fail(RangeError, fn, rotaryName, headDim === undefined ? rowAllows(r) : allowed('even', r.lo, headDim, 'headDim'), rotaryDim);
  }
  const lists = [['invFreq', invFreq], ['scaling.shortFactor', sc.shortFactor], ['scaling.longFactor', sc.longFactor]];
  for (const [name, list] of lists) {
    if (list !== undefined && list.length !== rotaryDim / 2) {
      throw new RangeError(`posenc.${fn}: ${name} must have rotaryDim / 2 = ${rotaryDim / 2} values, got ${list.length}`);
    }
  }
}

/**
 * One call into C with a posenc_rope (and posenc_rope_axes when `axes`):
 * buffers are the call's own (heapCall's), then the struct(s) and the arrays
 * the rope points at are staged after them; compute receives the call's
 * pointers (an array), the rope's address and the axes'. Errors name the options
 * (ropeLabel), with the caller's values.
 */
function ropeCall(fn, o, sc, axes, buffers, compute, labels = {}) {
  const extra = ropeArrays(sc, o.invFreq);
  const all = [
    ...buffers,
    { array: new Float64Array(ROPE_WORDS), type: 'float64', length: ROPE_WORDS },
    ...(axes ? [{ array: new Float64Array(AXES_WORDS), type: 'float64', length: AXES_WORDS }] : []),
    ...extra,
  ];
  const label = ropeLabel(labels.prefix, labels.scaling);
  const given = ropeGiven(o, sc, labels.prefix);
  // a result out of range names the scaling: every parameter of it, written out
  const scalingText = (name) => (name.endsWith('scaling') ? `base = ${o.base ?? 10000} with { ${Object.entries(sc).map(([k, v]) => `${k}: ${ArrayBuffer.isView(v) ? `[${v.join(', ')}]` : describe(v)}`).join(', ')} }` : undefined);
  heapCall(fn, all, (...pointers) => {
    const own = pointers.slice(0, buffers.length);
    const pRope = pointers[buffers.length];
    const pAxes = axes ? pointers[buffers.length + 1] : 0;
    writeRope(wasm(fn).memory, pRope, o, sc, pointers.slice(buffers.length + (axes ? 2 : 1)));
    if (axes) writeAxes(wasm(fn).memory, pAxes, axes);
    return compute(own, pRope, pAxes);
  }, { label: labels.label ?? label, given: labels.given ?? given, givenText: scalingText });
}

// ------------------------------------------------------------------ API

const frequencySpec = {
  rotaryDim: evenDim(),
  base: param('BASE', 'double', { optional: true }),
  scaling: later({ optional: true }),
};

/** M-RoPE's options, and 2-D RoPE's form: what ropeFromConfig returns besides the frequencies. */
const axesSpec = {
  mropeSection: sectionList({ optional: true }),
  mropeInterleaved: boolean({ optional: true }),
  rope2d: oneOf(ROPE_2D, { optional: true }),
};

export const frequenciesSpec = { ...frequencySpec, layout: oneOf(ROPE_LAYOUTS, { optional: true }), ...axesSpec };

/**
 * The frequencies and attention factor of read options { rotaryDim, base,
 * mropeSection?, rope2d? } and scaling sc (C's posenc_rope_frequencies):
 * `labels` name the options as the caller spells them (ropeFromConfig: its
 * config keys).
 */
export function ropeFrequenciesOf(fn, o, sc, labels) {
  const half = o.rotaryDim / 2;
  elementCount(fn, { 'rotaryDim / 2': half }, 8);
  const invFreq = new Float64Array(half);
  const attention = new Float64Array(1);
  const axes = axesOf(o, o.rotaryDim);
  const { exports } = wasm(fn);
  ropeCall(fn, o, sc, axes, [
    { array: invFreq, type: 'float64', length: half, copyOut: true },
    { array: attention, type: 'float64', length: 1, copyOut: true },
  ], ([pInv, pAttention], pRope, pAxes) => exports.posenc_rope_frequencies(pInv, half, pRope, pAxes, pAttention), labels);
  return { invFreq, attentionFactor: attention[0] };
}

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
  checkAxesForm(fn, o);
  const sc = readScaling(fn, o.scaling, o.rotaryDim);
  checkShapes(fn, o.rotaryDim, undefined, sc);
  return ropeFrequenciesOf(fn, o, sc);
}

export const cacheSpec = {
  length: param('LENGTH', 'size', { optional: true }),
  offset: param('OFFSET', 'int32', { optional: true }),
  positions: typedArray('int32', { optional: true }),
  ...frequencySpec,
  precision: oneOf(PRECISIONS, { default: 'float64' }),
  layout: oneOf(ROPE_LAYOUTS, { optional: true }),
  ...axesSpec,
  grid: patchGrid({ optional: true }),
  invFreq: numberList({ optional: true }),
  out: later({ optional: true }),
};

/** Reads `out` { cos, sin } of n floats each: its two arrays, checked. */
function readCacheOut(fn, out, n, positions) {
  if (!isPlainObject(out) || WasmArray.isBranded(out)) {
    throw new TypeError(`posenc.${fn}: out must be an object { cos, sin } of two Float32Arrays (or 'float32' WasmArrays), got ${describe(out)}`);
  }
  const arrays = snapshot(out);
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
  return arrays;
}

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
  checkShapes(fn, o.rotaryDim, o.invFreq, sc);
  const axes = readAxes(fn, o, o.rotaryDim);
  if (o.length === undefined && o.positions === undefined && !axes?.positions) {
    throw new TypeError(`posenc.${fn}: length is required (or positions)`);
  }
  const nAxes = axes?.nAxes ?? 1;
  if (o.grid && o.length !== undefined && o.length !== o.grid.height * o.grid.width) {
    throw new RangeError(`posenc.${fn}: length must be the patches of the grid, grid.height * grid.width = ${o.grid.height * o.grid.width} (or omitted), got ${o.length}`);
  }
  const given = axes ? axes.positions : o.positions;
  if (axes?.positions && countOf(given) % nAxes !== 0) {
    throw new RangeError(`posenc.${fn}: positions must have a multiple of ${nAxes} entries ([${nAxes}][length], axis-major), got ${countOf(given)}`);
  }
  const length = o.length ?? (given ? countOf(given) / nAxes : 0);
  if (given) checkLength(fn, 'positions', given, nAxes * length);
  // M-RoPE text: every axis at offset + r
  const positions = axes && !given ? textPositions(nAxes, o.offset ?? 0, length) : given;
  const n = elementCount(fn, { length, 'rotaryDim / 2': o.rotaryDim / 2 });
  const out = o.out ?? { cos: new Float32Array(n), sin: new Float32Array(n) };
  const arrays = o.out === undefined ? out : readCacheOut(fn, o.out, n, positions);
  const { exports } = wasm(fn);
  const buffers = [
    { array: arrays.cos, type: 'float32', length: n, copyOut: true },
    { array: arrays.sin, type: 'float32', length: n, copyOut: true },
  ];
  if (positions) buffers.push({ array: positions, type: 'int32', length: nAxes * length, copyIn: true });
  ropeCall(fn, o, sc, axes, buffers, ([pCos, pSin, pPositions = 0], pRope, pAxes) =>
    (axes
      ? exports.posenc_rope_axes_cache(pCos, pSin, n, length, pPositions, pAxes, pRope)
      : exports.posenc_rope_cache(pCos, pSin, n, length, o.offset ?? 0, pPositions, pRope)),
  );
  return out;
}

export const applySpec = {
  heads: param('HEADS', 'size'),
  headDim: param('HEAD_DIM', 'size'),
  rotaryDim: evenDim({ optional: true }),
  layout: oneOf(ROPE_LAYOUTS, { default: 'half' }),
  base: frequencySpec.base,
  offset: param('OFFSET', 'int32', { optional: true }),
  positions: typedArray('int32', { optional: true }),
  scaling: frequencySpec.scaling,
  batch: param('BATCH', 'size', { default: 1 }),
  order: oneOf(ORDERS, { default: 'bshd' }),
  precision: oneOf(PRECISIONS, { default: 'float64' }),
  ...axesSpec,
  grid: patchGrid({ optional: true }),
  invFreq: numberList({ optional: true }),
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
  const sc = readScaling(fn, o.scaling, o.rotaryDim);
  const rotaryDim = o.rotaryDim ?? o.headDim; // C's default, 0 -> head_dim
  checkShapes(fn, rotaryDim, o.invFreq, sc, o.rotaryDim === undefined ? `rotaryDim (default headDim = ${o.headDim})` : 'rotaryDim', o.headDim);
  const axes = readAxes(fn, o, rotaryDim);
  const rowElements = elementCount(fn, { batch: o.batch, heads: o.heads, headDim: o.headDim });
  const xLength = countOf(x);
  if (xLength % rowElements !== 0) {
    throw new RangeError(`posenc.${fn}: x.length must be a multiple of batch * heads * headDim = ${rowElements}, got ${xLength}`);
  }
  const seq = xLength / rowElements;
  const nAxes = axes?.nAxes ?? 1;
  const given = axes ? axes.positions : o.positions;
  if (o.grid && o.grid.height * o.grid.width !== seq) {
    throw new RangeError(`posenc.${fn}: grid.height * grid.width must be the patches of x, seq = x.length / (batch * heads * headDim) = ${seq}, got ${o.grid.height} * ${o.grid.width} = ${o.grid.height * o.grid.width}`);
  }
  if (given && countOf(given) !== nAxes * seq && countOf(given) !== nAxes * o.batch * seq) {
    const what = nAxes === 1 ? ['seq', 'one per row', 'batch * seq', 'one per batch and row'] : [`${nAxes} * seq`, `[${nAxes}][seq]`, `${nAxes} * batch * seq`, `[${nAxes}][batch][seq]`];
    throw new RangeError(
      `posenc.${fn}: positions must have length ${what[0]} = ${nAxes * seq} (${what[1]}) or ${what[2]} = ${nAxes * o.batch * seq} (${what[3]}), got ${countOf(given)}`,
    );
  }
  if (given) checkDisjoint(fn, 'positions', given, 'x', x);
  const positions = axes && !given ? textPositions(nAxes, o.offset ?? 0, seq) : given;
  const positionsLength = positions ? countOf(positions) : 0;
  const { exports } = wasm(fn);
  const buffers = [{ array: x, type: 'float32', length: xLength, copyIn: true, copyOut: true }];
  if (positions) buffers.push({ array: positions, type: 'int32', length: positionsLength, copyIn: true });
  const order = ORDERS.indexOf(o.order);
  const label = ropeLabel();
  const labels = {
    // rotary_dim taken from head_dim: name both
    label: (cName) => (cName === 'rotary_dim' && o.rotaryDim === undefined ? `rotaryDim (default headDim = ${o.headDim})` : label(cName)),
    given: (name) => (name.startsWith('rotaryDim') ? rotaryDim : ropeGiven(o, sc)(name)),
  };
  ropeCall(fn, o, sc, axes, buffers, ([pX, pPositions = 0], pRope, pAxes) =>
    (axes
      ? exports.posenc_rope_axes_apply(pX, xLength, o.batch, seq, o.heads, o.headDim, order, pPositions, positionsLength, pAxes, pRope)
      : exports.posenc_rope_apply(pX, xLength, o.batch, seq, o.heads, o.headDim, order, o.offset ?? 0, pPositions, positionsLength, pRope)),
  labels);
  return x;
}

export const permuteSpec = {
  heads: param('HEADS', 'size'),
  headDim: param('HEAD_DIM', 'size'),
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
    { given: (name) => o[name] ?? (name === 'rotaryDim' ? rotaryDim : undefined) },
  );
  return out;
}

