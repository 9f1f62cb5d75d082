// transformer_xl.js: Transformer-XL's relative sinusoid (Dai et al. 2019; formula in include/posenc.h).
import { heapCall } from './core/heap.js';
import { wasm } from './core/instance.js';
import { INT32_MAX, checkLength, elementCount, integer, readOptions, typedArray } from './core/options.js';

const clampLength = integer(0, INT32_MAX, { default: 0 });

export const spec = {
  keyLength: integer(0, INT32_MAX),
  dModel: integer(1, INT32_MAX),
  clampLength: {
    ...clampLength,
    check(fn, name, v) {
      try {
        return clampLength.check(fn, name, v);
      } catch (error) {
        if (!(error instanceof RangeError)) throw error;
        throw new RangeError(`${error.message} (omit it or pass 0 for no clamping, Transformer-XL's clamp_len = -1)`);
      }
    },
  },
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
  if (o.dModel % 2 !== 0) {
    throw new RangeError(
      `posenc.${fn}: dModel must be even (Transformer-XL's inv_freq has ceil(dModel/2) entries, so its [sin | cos] row is ${o.dModel + 1} wide, not ${o.dModel}), got ${o.dModel}`,
    );
  }
  const n = elementCount(fn, { keyLength: o.keyLength, dModel: o.dModel });
  const { exports } = wasm(fn);
  const out = o.out ?? new Float32Array(n);
  if (o.out) checkLength(fn, 'out', out, n);
  heapCall(fn, [{ array: out, type: 'float32', length: n, copyOut: true }], (ptr) =>
    exports.posenc_transformer_xl_embedding(ptr, n, o.keyLength, o.dModel, o.clampLength),
  );
  return out;
}
