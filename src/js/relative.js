// relative.js: the relative-position matrix of the JAX/Flax tutorial.
import { lengthLabel } from './core/errors.js';
import { heapCall, noRoom, valuesFirst } from './core/heap.js';
import { wasm } from './core/instance.js';
import { checkLength, elementCount, param, readOptions, typedArray } from './core/options.js';

// C checks every value (posenc_relative_positions: entries within int32) and its record names the option.
export const spec = {
  queryLength: param('QUERY_LEN', 'size'),
  keyLength: param('KEY_LEN', 'size', { optional: true }),
  shift: param('SHIFT', 'int32', { default: 0 }),
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
  const { exports } = wasm(fn);
  const call = (ptr, room) => exports.posenc_relative_positions(ptr, room, o.queryLength, keyLength, o.shift);
  const context = { label: lengthLabel };
  const n = valuesFirst(() => {
    const count = elementCount(fn, { queryLength: o.queryLength, keyLength });
    if (o.out) checkLength(fn, 'out', o.out, count);
    return count;
  }, noRoom(fn, (ptr) => call(ptr, 0), context));
  const out = o.out ?? new Int32Array(n);
  heapCall(fn, [{ array: out, type: 'int32', length: n, copyOut: true }], (ptr) => call(ptr, n), context);
  return out;
}
