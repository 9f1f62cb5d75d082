// sinusoidal.js: Vaswani's sinusoidal tables (layouts and formulas in
// docs/api.md and include/posenc.h), written out or added to embeddings in place.
import { layout as LAYOUT_NAMES, order as ORDER_NAMES } from '../../build/abi.js';
import { countOf, heapCall, noRoom, valuesFirst } from './core/heap.js';
import { wasm } from './core/instance.js';
import { checkLength, elementCount, oneOf, param, readOptions, typedArray } from './core/options.js';

/** Table layouts (posenc_layout). */
export const LAYOUTS = LAYOUT_NAMES;
/** Axis orders of addSinusoidal's x (posenc_order). */
const ORDERS = ORDER_NAMES;

// C checks every value (posenc_sinusoidal: base, positions within int32,
// fairseq's width floor) and its record names the option; 0 selects C's default base.
const tableOptions = {
  base: param('BASE', 'double', { optional: true }),
  offset: param('OFFSET', 'int32', { default: 0 }),
  layout: oneOf(LAYOUTS, { default: 'interleaved' }),
};

export const sinusoidalSpec = {
  length: param('LENGTH', 'size'),
  dModel: param('D_MODEL', 'size'),
  ...tableOptions,
  out: typedArray('float32', { optional: true }),
};

/**
 * The sinusoidal positional-encoding table, row-major [length][dModel]:
 * row r is position offset + r. Interleaved layout (Vaswani 3.5):
 * PE[p][2i] = sin(p * w_i), PE[p][2i+1] = cos(p * w_i), w_i = base^(-2i/dModel).
 * @returns {Float32Array} `out` when given (filled), else a new array
 */
export function sinusoidal(options) {
  const fn = 'sinusoidal';
  const o = readOptions(fn, options, sinusoidalSpec);
  const { exports } = wasm(fn);
  const call = (ptr, room) => exports.posenc_sinusoidal(ptr, room, o.length, o.dModel, o.base ?? 0, o.offset, LAYOUTS.indexOf(o.layout));
  const n = valuesFirst(() => {
    const count = elementCount(fn, { length: o.length, dModel: o.dModel });
    if (o.out) checkLength(fn, 'out', o.out, count);
    return count;
  }, noRoom(fn, (ptr) => call(ptr, 0)));
  const out = o.out ?? new Float32Array(n);
  heapCall(fn, [{ array: out, type: 'float32', length: n, copyOut: true }], (ptr) => call(ptr, n));
  return out;
}

export const frequencySpec = {
  dModel: param('D_MODEL', 'size'),
  base: tableOptions.base,
  layout: tableOptions.layout,
};

/**
 * The angular frequencies w_i (radians per position) of a layout, one per
 * sine column: ceil(dModel/2) values ('interleaved', 'concatenated') or
 * floor(dModel/2) ('tensor2tensor', 'fairseq'). The notebook's denominators
 * are 1 / w_i.
 * @returns {Float64Array}
 */
export function sinusoidalFrequencies(options) {
  const fn = 'sinusoidalFrequencies';
  const o = readOptions(fn, options, frequencySpec);
  const n = o.layout === 'interleaved' || o.layout === 'concatenated' ? Math.ceil(o.dModel / 2) : Math.floor(o.dModel / 2);
  const { exports } = wasm(fn);
  const call = (ptr, room) => exports.posenc_sinusoidal_frequencies(ptr, room, o.dModel, o.base ?? 0, LAYOUTS.indexOf(o.layout));
  valuesFirst(() => elementCount(fn, { dModel: n }, 8), noRoom(fn, (ptr) => call(ptr, 0)));
  const out = new Float64Array(n);
  heapCall(fn, [{ array: out, type: 'float64', length: n, copyOut: true }], (ptr) => call(ptr, n));
  return out;
}

export const addSpec = {
  dModel: param('D_MODEL', 'size'),
  batch: param('BATCH', 'size', { default: 1 }),
  order: oneOf(ORDERS, { default: 'bsd' }),
  scale: param('SCALE', 'double', { default: 1 }),
  ...tableOptions,
};

/**
 * Adds the table to embeddings in place: x = x * scale + PE, x laid out
 * [batch][seq][dModel] ('bsd') or [seq][batch][dModel] ('sbd'); seq is
 * x.length / (batch * dModel). "Transformer Encoder Explained" scales by sqrt(dModel).
 * @returns x
 */
export function addSinusoidal(x, options) {
  const fn = 'addSinusoidal';
  typedArray('float32').check(fn, 'x', x);
  const o = readOptions(fn, options, addSpec);
  const rowElements = o.batch * o.dModel; // (an empty x is a multiple of any)
  const xLength = countOf(x);
  const { exports } = wasm(fn);
  const call = (ptr, room, seq) => exports.posenc_add_sinusoidal(
    ptr, room, o.batch, seq, o.dModel, ORDERS.indexOf(o.order), o.scale, o.base ?? 0, o.offset, LAYOUTS.indexOf(o.layout),
  );
  const context = { given: (name) => (name === 'scale' ? o.scale : undefined) }; // C's float scale: 1e39 arrives as Infinity
  valuesFirst(() => {
    if (xLength % rowElements !== 0) {
      throw new RangeError(`posenc.${fn}: xLength must be a multiple of batch * dModel = ${rowElements}, got ${xLength}`);
    }
  }, noRoom(fn, (ptr) => call(ptr, 0, 0), context));
  const seq = xLength / rowElements;
  heapCall(fn, [{ array: x, type: 'float32', length: xLength, copyIn: true, copyOut: true }], (ptr) => call(ptr, xLength, seq), context);
  return x;
}
