// alibi.js: ALiBi slopes and biases (Press et al. 2022; formulas in include/posenc.h).
import { describe, isPlainObject } from './core/describe.js';
import { lengthLabel } from './core/errors.js';
import { heapCall, noRoom, valuesFirst } from './core/heap.js';
import { wasm } from './core/instance.js';
import { boolean, checkLength, elementCount, param, readOptions, typedArray } from './core/options.js';

// C checks every value (posenc_alibi_slopes, posenc_alibi_bias: positions
// within int32) and its record names the option; 0 selects C's default maxBias.
const maxBias = param('MAX_BIAS', 'double', { optional: true });
const headsParam = param('HEADS', 'size');

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
  const { exports } = wasm(fn);
  const call = (ptr, room) => exports.posenc_alibi_slopes(ptr, room, o.heads, o.maxBias ?? 0);
  const n = valuesFirst(() => elementCount(fn, { heads: o.heads }, 8), noRoom(fn, (ptr) => call(ptr, 0)));
  const out = new Float64Array(n);
  heapCall(fn, [{ array: out, type: 'float64', length: n, copyOut: true }], (ptr) => call(ptr, n));
  return out;
}

export const biasSpec = {
  heads: headsParam,
  queryLength: param('QUERY_LEN', 'size'),
  keyLength: param('KEY_LEN', 'size', { optional: true }),
  causal: boolean({ default: true }),
  queryOffset: param('QUERY_OFFSET', 'int32', { default: 0 }),
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
  const { exports } = wasm(fn);
  const call = (ptr, room) => exports.posenc_alibi_bias(ptr, room, o.heads, o.queryLength, keyLength, o.queryOffset, o.causal ? 1 : 0, o.maxBias ?? 0);
  const context = { label: lengthLabel };
  const n = valuesFirst(() => {
    const count = elementCount(fn, { heads: o.heads, queryLength: o.queryLength, keyLength });
    if (o.out) checkLength(fn, 'out', o.out, count);
    return count;
  }, noRoom(fn, (ptr) => call(ptr, 0), context));
  const out = o.out ?? new Float32Array(n);
  heapCall(fn, [{ array: out, type: 'float32', length: n, copyOut: true }], (ptr) => call(ptr, n), context);
  return out;
}
