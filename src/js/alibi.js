// alibi.js: ALiBi slopes and biases (Press et al. 2022; formulas in include/posenc.h).
import { describe, isPlainObject } from './core/describe.js';
import { heapCall } from './core/heap.js';
import { wasm } from './core/instance.js';
import {
  INT32_MAX, boolean, checkLength, elementCount, integer, number, readOptions, typedArray,
} from './core/options.js';

const maxBias = number({ above: 0, default: 8 });
const headsParam = integer(1, INT32_MAX);

export const slopesSpec = { heads: headsParam, maxBias };

/**
 * The ALiBi slope m_h of every head, by the paper's reference code
 * (ofirpress/attention_with_linear_biases get_slopes): for a power-of-two
 * head count n, m_h = 2^(-maxBias * (h + 1) / n); otherwise the p slopes of
 * the largest power of two p < n, then the odd-numbered slopes of 2p (1st,
 * 3rd, ...), unsorted: heads = 3 gives [1/16, 1/256, 1/4].
 * Called as alibiSlopes({ heads, maxBias? }), like every function; the
 * shorthand alibiSlopes(heads, { maxBias? }) gives the same.
 * @param {{ heads: number, maxBias?: number } | number} options  heads >= 1;
 *   maxBias > 0, default 8 (the paper's). A number is the shorthand's heads.
 * @param {{ maxBias?: number }} [shorthandOptions]  only with a number first
 * @returns {Float64Array} the exact slopes, one per head
 */
export function alibiSlopes(options, shorthandOptions) {
  const fn = 'alibiSlopes';
  let o;
  if (typeof options === 'number') {
    headsParam.check(fn, 'heads', options);
    o = { heads: options, ...readOptions(fn, shorthandOptions === undefined ? {} : shorthandOptions, { maxBias }) };
  } else {
    if (!isPlainObject(options)) {
      throw new TypeError(`posenc.${fn}: expects an options object { heads, maxBias? } (or a number of heads), got ${describe(options)}`);
    }
    if (shorthandOptions !== undefined) {
      throw new TypeError(
        `posenc.${fn}: takes one options object { heads, maxBias? } (a second argument only follows the shorthand alibiSlopes(heads, { maxBias? })), got a second argument ${describe(shorthandOptions)}`,
      );
    }
    o = readOptions(fn, options, slopesSpec);
  }
  const n = elementCount(fn, { heads: o.heads }, 8);
  const { exports } = wasm(fn);
  const out = new Float64Array(n);
  heapCall(fn, [{ array: out, type: 'float64', length: n, copyOut: true }], (ptr) =>
    exports.posenc_alibi_slopes(ptr, n, o.heads, o.maxBias),
  );
  return out;
}

export const biasSpec = {
  heads: headsParam,
  queryLength: integer(0, INT32_MAX),
  keyLength: integer(0, INT32_MAX, { optional: true }),
  causal: boolean({ default: true }),
  queryOffset: integer(0, INT32_MAX, { default: 0 }),
  maxBias,
  out: typedArray('float32', { optional: true }),
};

/**
 * The ALiBi bias [heads][queryLength][keyLength], to add to attention logits.
 * Query row r sits at position i = queryOffset + r, key j at j:
 * causal (default): -m_h * (i - j) for j <= i, -Infinity for j > i (the causal
 * mask included); non-causal: -m_h * |i - j|. BLOOM's key-only m_h * j and
 * MPT's m_h * (j - keyLength + 1) differ from the causal form by a constant
 * per row, so they agree only after a causal softmax.
 * @returns {Float32Array} `out` when given (filled), else a new array
 */
export function alibiBias(options) {
  const fn = 'alibiBias';
  const o = readOptions(fn, options, biasSpec);
  const keyLength = o.keyLength ?? o.queryLength;
  if (o.queryLength > 0 && o.queryOffset + o.queryLength - 1 > INT32_MAX) {
    throw new RangeError(
      `posenc.${fn}: queryOffset + queryLength - 1 must be at most ${INT32_MAX} (positions are int32), got ${o.queryOffset + o.queryLength - 1}`,
    );
  }
  const n = elementCount(fn, { heads: o.heads, queryLength: o.queryLength, keyLength });
  const { exports } = wasm(fn);
  const out = o.out ?? new Float32Array(n);
  if (o.out) checkLength(fn, 'out', out, n);
  heapCall(fn, [{ array: out, type: 'float32', length: n, copyOut: true }], (ptr) =>
    exports.posenc_alibi_bias(ptr, n, o.heads, o.queryLength, keyLength, o.queryOffset, o.causal ? 1 : 0, o.maxBias),
  );
  return out;
}
