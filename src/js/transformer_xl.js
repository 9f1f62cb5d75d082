// transformer_xl.js: Transformer-XL's relative sinusoid (Dai et al. 2019; formula in include/posenc.h).
import { lengthLabel } from './core/errors.js';
import { heapCall, noRoom, valuesFirst } from './core/heap.js';
import { wasm } from './core/instance.js';
import { checkLength, elementCount, param, readOptions, typedArray } from './core/options.js';

// C checks every value (posenc_transformer_xl_embedding: an even dModel, a
// clampLength >= 0) and its record names the option.
export const spec = {
  keyLength: param('KEY_LEN', 'size'),
  dModel: param('D_MODEL_EVEN', 'size'),
  clampLength: param('CLAMP_LENGTH', 'int32', { default: 0 }),
  out: typedArray('float32', { optional: true }),
};

/**
 * Transformer-XL's relative position embedding (mem_transformer.py
 * PositionalEmbedding), [keyLength][dModel]: row r is position
 * p = keyLength - 1 - r (descending), min(p, clampLength) when clampLength > 0,
 * laid out [sin(p f_0) .. sin(p f_{d/2-1}) | cos(p f_0) .. cos(p f_{d/2-1})],
 * f_k = 10000^(-2k/dModel). dModel must be even.
 * @returns {Float32Array} `out` when given (filled), else a new array
 */
export function transformerXLEmbedding(options) {
  const fn = 'transformerXLEmbedding';
  const o = readOptions(fn, options, spec);
  const { exports } = wasm(fn);
  const call = (ptr, room) => exports.posenc_transformer_xl_embedding(ptr, room, o.keyLength, o.dModel, o.clampLength);
  const context = { label: lengthLabel };
  const n = valuesFirst(() => {
    const count = elementCount(fn, { keyLength: o.keyLength, dModel: o.dModel });
    if (o.out) checkLength(fn, 'out', o.out, count);
    return count;
  }, noRoom(fn, (ptr) => call(ptr, 0), context));
  const out = o.out ?? new Float32Array(n);
  heapCall(fn, [{ array: out, type: 'float32', length: n, copyOut: true }], (ptr) => call(ptr, n), context);
  return out;
}
