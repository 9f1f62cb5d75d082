// sinusoidal.js: Vaswani's sinusoidal tables (layouts and formulas in
// docs/api.md and include/posenc.h), written out or added to embeddings in place.
import { layout as LAYOUT_NAMES, order as ORDER_NAMES } from '../../build/abi.js';
import { countOf, heapCall } from './core/heap.js';
import { wasm } from './core/instance.js';
import {
  INT32_MAX, INT32_MIN, checkLength, elementCount, integer, number, oneOf, readOptions, typedArray,
} from './core/options.js';

/** Table layouts (posenc_layout). */
export const LAYOUTS = LAYOUT_NAMES;
/** Axis orders of addSinusoidal's x (posenc_order). */
const ORDERS = ORDER_NAMES;
const FLT_MAX = 3.4028234663852886e38;

const tableOptions = {
  base: number({ above: 1, default: 10000 }),
  offset: integer(INT32_MIN, INT32_MAX, { default: 0 }),
  layout: oneOf(LAYOUTS, { default: 'interleaved' }),
};

// Checks shared by both functions: positions stay int32, fairseq's width floor.
function checkTable(fn, o, rows) {
  if (rows > 0 && o.offset + rows - 1 > INT32_MAX) {
    throw new RangeError(
      `posenc.${fn}: offset + ${fn === 'sinusoidal' ? 'length' : 'seq'} - 1 must be at most ${INT32_MAX} (positions are int32), got ${o.offset + rows - 1}`,
    );
  }
  checkLayoutWidth(fn, o.layout, o.dModel);
}

/** fairseq's formula divides by zero below dModel = 4 (include/posenc.h); `name` is how messages call the layout option. */
export function checkLayoutWidth(fn, layout, dModel, name = 'layout') {
  if (layout === 'fairseq' && dModel < 4) {
    throw new RangeError(
      `posenc.${fn}: ${name} 'fairseq' needs dModel >= 4 (its formula divides by zero below that; 'tensor2tensor' gives the same values and allows any dModel), got dModel ${dModel}`,
    );
  }
}

export const sinusoidalSpec = {
  length: integer(0, INT32_MAX),
  dModel: integer(1, INT32_MAX),
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
  const n = elementCount(fn, { length: o.length, dModel: o.dModel });
  checkTable(fn, o, o.length);
  const { exports } = wasm(fn);
  const out = o.out ?? new Float32Array(n);
  if (o.out) checkLength(fn, 'out', out, n);
  heapCall(fn, [{ array: out, type: 'float32', length: n, copyOut: true }], (ptr) =>
    exports.posenc_sinusoidal(ptr, n, o.length, o.dModel, o.base, o.offset, LAYOUTS.indexOf(o.layout)),
  );
  return out;
}

export const frequencySpec = {
  dModel: integer(1, INT32_MAX),
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
  checkTable(fn, { ...o, offset: 0 }, 0);
  const n = o.layout === 'interleaved' || o.layout === 'concatenated' ? Math.ceil(o.dModel / 2) : Math.floor(o.dModel / 2);
  elementCount(fn, { dModel: n }, 8);
  const { exports } = wasm(fn);
  const out = new Float64Array(n);
  heapCall(fn, [{ array: out, type: 'float64', length: n, copyOut: true }], (ptr) =>
    exports.posenc_sinusoidal_frequencies(ptr, n, o.dModel, o.base, LAYOUTS.indexOf(o.layout)),
  );
  return out;
}

export const addSpec = {
  dModel: integer(1, INT32_MAX),
  batch: integer(1, INT32_MAX, { default: 1 }),
  order: oneOf(ORDERS, { default: 'bsd' }),
  scale: number({ min: -FLT_MAX, max: FLT_MAX, default: 1 }),
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
  const rowElements = o.batch * o.dModel;
  const xLength = countOf(x);
  if (xLength % rowElements !== 0) {
    throw new RangeError(
      `posenc.${fn}: xLength must be a multiple of batch * dModel = ${rowElements}, got ${xLength}`,
    );
  }
  const seq = xLength / rowElements;
  checkTable(fn, o, seq);
  const { exports } = wasm(fn);
  heapCall(fn, [{ array: x, type: 'float32', length: xLength, copyIn: true, copyOut: true }], (ptr) =>
    exports.posenc_add_sinusoidal(
      ptr, xLength, o.batch, seq, o.dModel, ORDERS.indexOf(o.order), o.scale, o.base, o.offset,
      LAYOUTS.indexOf(o.layout),
    ),
  );
  return x;
}
