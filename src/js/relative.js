// relative.js: the relative-position matrix of the JAX/Flax tutorial.
import { heapCall } from './core/heap.js';
import { wasm } from './core/instance.js';
import { INT32_MAX, INT32_MIN, checkLength, elementCount, integer, readOptions, typedArray } from './core/options.js';

export const spec = {
  queryLength: integer(0, INT32_MAX),
  keyLength: integer(0, INT32_MAX, { optional: true }),
  shift: integer(INT32_MIN, INT32_MAX, { default: 0 }),
  out: typedArray('int32', { optional: true }),
};

/**
 * rpe[i][j] = j - i + shift, row-major [queryLength][keyLength], as int32.
 * The JAX/Flax tutorial uses shift = maxSeqLen so every entry is positive.
 * @returns {Int32Array} `out` when given (filled), else a new array
 */
export function relativePositions(options) {
  const fn = 'relativePositions';
  const o = readOptions(fn, options, spec);
  const keyLength = o.keyLength ?? o.queryLength;
  const n = elementCount(fn, { queryLength: o.queryLength, keyLength });
  if (n > 0 && (keyLength - 1 + o.shift > INT32_MAX || o.shift - (o.queryLength - 1) < INT32_MIN)) {
    throw new RangeError(
      `posenc.${fn}: shift must keep every j - i + shift within int32 (from ${INT32_MIN + o.queryLength - 1} to ${INT32_MAX - keyLength + 1} here), got ${o.shift}`,
    );
  }
  const { exports } = wasm(fn);
  const out = o.out ?? new Int32Array(n);
  if (o.out) checkLength(fn, 'out', out, n);
  heapCall(fn, [{ array: out, type: 'int32', length: n, copyOut: true }], (ptr) =>
    exports.posenc_relative_positions(ptr, n, o.queryLength, keyLength, o.shift),
  );
  return out;
}
