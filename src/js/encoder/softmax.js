// softmax.js: the encoder's stable softmax on a caller's scores (posenc_softmax).
import { WasmArray, countOf, heapCall } from '../core/heap.js';
import { wasm } from '../core/instance.js';
import { INT32_MAX, integer, readOptions, typedArray } from '../core/options.js';

export const softmaxSpec = { cols: integer(1, INT32_MAX, { optional: true }) };

/**
 * Softmax of each row of x [rows][cols], in place, numerically stable:
 * exp(x - max) / sum exp(x - max). -Infinity entries (masked) get 0, a row of
 * only -Infinity becomes zeros; NaN or +Infinity entries are a RangeError.
 * The naive exp(x) / sum(exp(x)) of "Transformer Encoder Explained" turns scores above ~88.7 into NaN.
 * @param {Float32Array | WasmArray} x
 * @param {{ cols?: number }} [options] the row length; default x.length (one row)
 * @returns x
 */
export function softmax(x, options = {}) {
  const fn = 'softmax';
  typedArray('float32').check(fn, 'x', x);
  const o = readOptions(fn, options, softmaxSpec);
  const length = countOf(x);
  const cols = o.cols ?? length;
  if (length === 0 || length % cols) throw new RangeError(`posenc.${fn}: x.length must be a positive multiple of cols = ${cols}, got ${length}`);
  const values = WasmArray.isBranded(x) ? x.array : x;
  for (let i = 0; i < length; i++) {
    if (Number.isNaN(values[i]) || values[i] === Infinity) {
      throw new RangeError(`posenc.${fn}: x[${i}] must be finite or -Infinity (a masked score), got ${values[i]}`);
    }
  }
  const { exports } = wasm(fn);
  heapCall(fn, [{ array: x, type: 'float32', length, copyIn: true, copyOut: true }], (p) =>
    exports.posenc_softmax(p, length, length / cols, cols),
  );
  return x;
}
