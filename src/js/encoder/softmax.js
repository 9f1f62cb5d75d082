// softmax.js: the encoder's stable softmax on a caller's scores (posenc_softmax).
import { countOf, heapCall, noRoom, valuesFirst } from '../core/heap.js';
import { wasm } from '../core/instance.js';
import { readOptions, typedArray } from '../core/options.js';
import { param } from './rows.js';

// C checks cols and every entry (posenc_softmax: NaN and +Infinity refused)
// and its record names the entry.
export const softmaxSpec = { cols: param('COLS', 'size', { optional: true }) };

/**
 * Softmax of each row of x [rows][cols], in place, numerically stable:
 * exp(x - max) / sum exp(x - max). -Infinity entries (masked) get 0, a row of
 * only -Infinity becomes zeros; NaN or +Infinity entries are a RangeError.
 * The naive exp(x) / sum(exp(x)) of "Transformer Encoder Explained" turns scores above ~88.7 into NaN.
 * @param {Float32Array | import('../core/heap.js').WasmArray} x
 * @param {{ cols?: number }} [options] the row length; default x.length (one row)
 * @returns x
 */
export function softmax(x, options = {}) {
  const fn = 'softmax';
  typedArray('float32').check(fn, 'x', x);
  const o = readOptions(fn, options, softmaxSpec);
  const length = countOf(x);
  const cols = o.cols ?? length;
  const { exports } = wasm(fn);
  const shape = () => {
    if (length === 0 || length % cols) throw new RangeError(`posenc.${fn}: x.length must be a positive multiple of cols = ${cols}, got ${length}`);
  };
  // an empty x with no cols: cols is x.length, 0, and x is what is wrong
  valuesFirst(shape, o.cols === undefined ? () => {} : noRoom(fn, (p) => exports.posenc_softmax(p, 0, 0, cols)));
  heapCall(fn, [{ array: x, type: 'float32', length, copyIn: true, copyOut: true }], (p) =>
    exports.posenc_softmax(p, length, length / cols, cols),
  );
  return x;
}
