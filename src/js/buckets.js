// buckets.js: T5 and DeBERTa-v2 relative-position buckets (formulas in include/posenc.h),
// bit for bit with Hugging Face's float32 evaluation.
import { status as STATUS } from '../../build/abi.js';
import { WasmArray, checkDisjoint, heapCall } from './core/heap.js';
import { wasm } from './core/instance.js';
import { INT32_MAX, boolean, checkLength, elementCount, integer, readOptions, typedArray } from './core/options.js';

const matrixOptions = {
  queryLength: integer(0, INT32_MAX),
  keyLength: integer(0, INT32_MAX, { optional: true }),
};

const t5Options = {
  ...matrixOptions,
  bidirectional: boolean({ default: true }),
  numBuckets: integer(2, INT32_MAX, { default: 32 }),
  maxDistance: integer(1, INT32_MAX, { default: 128 }),
  queryOffset: integer(0, INT32_MAX, { default: 0 }),
};

/**
 * What T5's bucket formula needs beyond each parameter's own range, for
 * { bidirectional, numBuckets, maxDistance }; `label` names the options in
 * messages (the encoder's are positional.numBuckets, ...).
 */
export function checkT5Buckets(fn, o, label = (key) => key) {
  if (o.bidirectional && (o.numBuckets % 2 !== 0 || o.numBuckets < 4)) {
    throw new RangeError(
      `posenc.${fn}: ${label('numBuckets')} must be even and >= 4 when bidirectional (half of them per direction, ` +
        `each half >= 2; Hugging Face floors an odd count and silently leaves a bucket unused), got ${o.numBuckets}`,
    );
  }
  const perDirection = o.bidirectional ? o.numBuckets / 2 : o.numBuckets;
  const maxExact = Math.floor(perDirection / 2);
  if (o.maxDistance <= maxExact) {
    throw new RangeError(
      `posenc.${fn}: ${label('maxDistance')} must be > ${maxExact} (numBuckets ${o.bidirectional ? '/ 4' : '/ 2'}, the distances ` +
        `with a bucket each: log(maxDistance / ${maxExact}) divides the log term and must be > 0), got ${o.maxDistance}`,
    );
  }
}

// The T5 checks of a bucket matrix: the formula's, and int32 query positions.
function checkT5(fn, o) {
  checkT5Buckets(fn, o);
  if (o.queryLength > 0 && o.queryOffset + o.queryLength - 1 > INT32_MAX) {
    throw new RangeError(
      `posenc.${fn}: queryOffset + queryLength - 1 must be at most ${INT32_MAX} (positions are int32), got ${o.queryOffset + o.queryLength - 1}`,
    );
  }
}

export const t5BucketsSpec = { ...t5Options, out: typedArray('int32', { optional: true }) };

/**
 * T5's relative position buckets (Hugging Face T5Attention._relative_position_bucket),
 * Int32Array [queryLength][keyLength]: out[r][j] is the bucket of
 * key - query = j - (queryOffset + r). Query r sits at queryOffset + r
 * (decoding with a cache of queryOffset keys), key j at j. Every bucket is in
 * [0, numBuckets). bidirectional: an even numBuckets, half per direction.
 * keyLength defaults to queryLength.
 * @returns {Int32Array} `out` when given (filled), else a new array
 */
export function t5Buckets(options) {
  const fn = 't5Buckets';
  const o = readOptions(fn, options, t5BucketsSpec);
  const keyLength = o.keyLength ?? o.queryLength;
  checkT5(fn, o);
  const n = elementCount(fn, { queryLength: o.queryLength, keyLength });
  const { exports } = wasm(fn);
  const out = o.out ?? new Int32Array(n);
  if (o.out) checkLength(fn, 'out', out, n);
  heapCall(fn, [{ array: out, type: 'int32', length: n, copyOut: true }], (ptr) =>
    exports.posenc_t5_buckets(ptr, n, o.queryLength, keyLength, o.bidirectional ? 1 : 0, o.numBuckets, o.maxDistance, o.queryOffset),
  );
  return out;
}

export const t5BiasSpec = {
  ...t5Options,
  heads: integer(1, INT32_MAX),
  weights: typedArray('float32'),
  out: typedArray('float32', { optional: true }),
};

/**
 * T5's learned relative bias (Hugging Face T5Attention.compute_bias),
 * Float32Array [heads][queryLength][keyLength]: out[h][r][j] =
 * weights[bucket(r, j)][h], with the buckets of t5Buckets and `weights` the
 * row-major [numBuckets][heads] table (nn.Embedding(num_buckets, n_heads).weight).
 * keyLength defaults to queryLength.
 * @returns {Float32Array} `out` when given (filled), else a new array
 */
export function t5Bias(options) {
  const fn = 't5Bias';
  const o = readOptions(fn, options, t5BiasSpec);
  const keyLength = o.keyLength ?? o.queryLength;
  checkT5(fn, o);
  const table = elementCount(fn, { numBuckets: o.numBuckets, heads: o.heads });
  checkLength(fn, 'weights', o.weights, table);
  const n = elementCount(fn, { heads: o.heads, queryLength: o.queryLength, keyLength });
  const { exports } = wasm(fn);
  const out = o.out ?? new Float32Array(n);
  if (o.out) {
    checkLength(fn, 'out', out, n);
    // both in wasm memory: the C would read weights while writing out (copies never alias)
    if (WasmArray.isBranded(out) && WasmArray.isBranded(o.weights)) checkDisjoint(fn, 'out', out, 'weights', o.weights);
  }
  heapCall(
    fn,
    [
      { array: out, type: 'float32', length: n, copyOut: true },
      { array: o.weights, type: 'float32', length: table, copyIn: true },
    ],
    (ptr, w) =>
      exports.posenc_t5_bias(
        ptr, n, w, table, o.heads, o.queryLength, keyLength, o.bidirectional ? 1 : 0, o.numBuckets, o.maxDistance, o.queryOffset,
      ),
  );
  return out;
}

// A checker whose RangeError carries a hint about the reference's own conventions.
const withHint = (checker, hint) => ({
  ...checker,
  check(fn, name, v) {
    try {
      return checker.check(fn, name, v);
    } catch (error) {
      throw error instanceof RangeError ? new RangeError(`${error.message} ${hint}`) : error;
    }
  },
});

export const debertaSpec = {
  ...matrixOptions,
  bucketSize: withHint(
    integer(2, INT32_MAX, { default: 256 }),
    "(Hugging Face's position_buckets <= 0 means no bucketing, the plain q - k: relativePositions gives its negation k - q)",
  ),
  maxPosition: integer(1, INT32_MAX, { default: 512 }),
  out: typedArray('int32', { optional: true }),
};

/**
 * The bucket of one rel = query - key before the int32 cast (posenc_deberta_bucket,
 * the formula of the matrix routine), or null when maxPosition leaves the log's
 * denominator <= 0 in float32.
 */
function debertaBucket(fn, rel, bucketSize, maxPosition) {
  const { exports } = wasm(fn);
  const out = new Float32Array(1);
  let status = 0;
  heapCall(fn, [{ array: out, type: 'float32', length: 1, copyOut: true }], (ptr) => {
    status = exports.posenc_deberta_bucket(ptr, rel, bucketSize, maxPosition);
    return status === STATUS.ERR_INVALID_ARGUMENT ? 0 : status; // reported by the caller, naming maxPosition
  });
  return status === 0 ? out[0] : null;
}

/**
 * DeBERTa-v2/v3's log buckets (Hugging Face make_log_bucket_position, as
 * build_relative_position applies it), Int32Array [queryLength][keyLength]:
 * out[q][k] is the bucket of query - key = q - k (the opposite sign of T5's
 * key - query). |q - k| < bucketSize / 2 stays as is, longer distances are
 * log-compressed; not clamped (Hugging Face clamps when it indexes).
 * keyLength defaults to queryLength.
 * @returns {Int32Array} `out` when given (filled), else a new array
 */
export function debertaBuckets(options) {
  const fn = 'debertaBuckets';
  const o = readOptions(fn, options, debertaSpec);
  const keyLength = o.keyLength ?? o.queryLength;
  // |bucket| grows with |q - k|: the extremes queryLength - 1 and -(keyLength - 1) bound it
  for (const [name, length, rel] of [['queryLength', o.queryLength, o.queryLength - 1], ['keyLength', keyLength, 1 - keyLength]]) {
    const v = debertaBucket(fn, length > 0 ? rel : 0, o.bucketSize, o.maxPosition);
    if (v === null) {
      const mid = Math.floor(o.bucketSize / 2);
      throw new RangeError(
        `posenc.${fn}: maxPosition must be > bucketSize / 2 + 1 = ${mid + 1} (log((maxPosition - 1) / ${mid}), ` +
          `the log term's denominator, must be > 0 in float32), got ${o.maxPosition}`,
      );
    }
    if (!(v < 2 ** 31 && v >= -(2 ** 31))) {
      throw new RangeError(
        `posenc.${fn}: ${name} must keep every bucket within int32 for bucketSize ${o.bucketSize} and maxPosition ${o.maxPosition} ` +
          `(the bucket of ${rel} is ${v}), got ${length}`,
      );
    }
  }
  const n = elementCount(fn, { queryLength: o.queryLength, keyLength });
  const { exports } = wasm(fn);
  const out = o.out ?? new Int32Array(n);
  if (o.out) checkLength(fn, 'out', out, n);
  heapCall(fn, [{ array: out, type: 'int32', length: n, copyOut: true }], (ptr) =>
    exports.posenc_deberta_buckets(ptr, n, o.queryLength, keyLength, o.bucketSize, o.maxPosition),
  );
  return out;
}
