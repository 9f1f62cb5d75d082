// buckets.js: T5 and DeBERTa-v2 relative-position buckets (formulas in include/posenc.h),
// bit for bit with Hugging Face's float32 evaluation.
import { lengthLabel, row } from './core/errors.js';
import { WasmArray, checkDisjoint, heapCall, noRoom, valuesFirst } from './core/heap.js';
import { wasm } from './core/instance.js';
import { boolean, checkLength, elementCount, param, readOptions, typedArray } from './core/options.js';

// C checks every value (posenc_t5_buckets, posenc_t5_bias,
// posenc_deberta_buckets: the bucket formulas' own bounds, positions and
// buckets within int32) and its record names the option.
const matrixOptions = {
  queryLength: param('QUERY_LEN', 'size'),
  keyLength: param('KEY_LEN', 'size', { optional: true }),
};

const t5Options = {
  ...matrixOptions,
  bidirectional: boolean({ default: true }),
  numBuckets: param('NUM_BUCKETS', 'size', { optional: true }),
  maxDistance: param('MAX_DISTANCE', 'size', { optional: true }),
  queryOffset: param('QUERY_OFFSET', 'int32', { default: 0 }),
};

/** The elements of a [queryLength][keyLength] matrix, and a caller's `out` checked against them. */
function matrixCount(fn, queryLength, keyLength, out) {
  const n = elementCount(fn, { queryLength, keyLength });
  if (out) checkLength(fn, 'out', out, n);
  return n;
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
  const { exports } = wasm(fn);
  const call = (ptr, room) => exports.posenc_t5_buckets(
    ptr, room, o.queryLength, keyLength, o.bidirectional ? 1 : 0, o.numBuckets ?? 0, o.maxDistance ?? 0, o.queryOffset,
  );
  const context = { label: lengthLabel };
  const n = valuesFirst(() => matrixCount(fn, o.queryLength, keyLength, o.out), noRoom(fn, (ptr) => call(ptr, 0), context));
  const out = o.out ?? new Int32Array(n);
  heapCall(fn, [{ array: out, type: 'int32', length: n, copyOut: true }], (ptr) => call(ptr, n), context);
  return out;
}

export const t5BiasSpec = {
  ...t5Options,
  heads: param('HEADS', 'size'),
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
  const numBuckets = o.numBuckets ?? row('NUM_BUCKETS').zero; // the weights' rows
  const { exports } = wasm(fn);
  const call = (ptr, room, w, table) => exports.posenc_t5_bias(
    ptr, room, w, table, o.heads, o.queryLength, keyLength, o.bidirectional ? 1 : 0, numBuckets, o.maxDistance ?? 0, o.queryOffset,
  );
  const context = { label: lengthLabel };
  const [table, n] = valuesFirst(() => {
    const rows = elementCount(fn, { numBuckets, heads: o.heads });
    checkLength(fn, 'weights', o.weights, rows);
    return [rows, elementCount(fn, { heads: o.heads, queryLength: o.queryLength, keyLength })];
  }, noRoom(fn, (ptr) => call(ptr, 0, ptr, 0), context));
  const out = o.out ?? new Float32Array(n);
  if (o.out) {
    valuesFirst(() => checkLength(fn, 'out', out, n), noRoom(fn, (ptr) => call(ptr, 0, ptr, 0), context));
    // both in wasm memory: the C would read weights while writing out (copies never alias)
    if (WasmArray.isBranded(out) && WasmArray.isBranded(o.weights)) checkDisjoint(fn, 'out', out, 'weights', o.weights);
  }
  heapCall(
    fn,
    [
      { array: out, type: 'float32', length: n, copyOut: true },
      { array: o.weights, type: 'float32', length: table, copyIn: true },
    ],
    (ptr, w) => call(ptr, n, w, table),
    context,
  );
  return out;
}

// Hugging Face's position_buckets <= 0: no buckets (C's record says the same of a bucketSize it refuses)
const NO_BUCKETS = "(Hugging Face's position_buckets <= 0 means no bucketing, the plain q - k: relativePositions gives its negation k - q)";
const bucketSize = param('BUCKET_SIZE', 'size', { optional: true });

export const debertaSpec = {
  ...matrixOptions,
  bucketSize: {
    ...bucketSize,
    check(fn, name, v) {
      try {
        return bucketSize.check(fn, name, v);
      } catch (error) {
        throw error instanceof RangeError ? new RangeError(`${error.message} ${NO_BUCKETS}`) : error;
      }
    },
  },
  maxPosition: param('MAX_POSITION_DEBERTA', 'size', { optional: true }),
  out: typedArray('int32', { optional: true }),
};

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
  const { exports } = wasm(fn);
  const call = (ptr, room) => exports.posenc_deberta_buckets(ptr, room, o.queryLength, keyLength, o.bucketSize ?? 0, o.maxPosition ?? 0);
  const context = { label: lengthLabel };
  const n = valuesFirst(() => matrixCount(fn, o.queryLength, keyLength, o.out), noRoom(fn, (ptr) => call(ptr, 0), context));
  const out = o.out ?? new Int32Array(n);
  heapCall(fn, [{ array: out, type: 'int32', length: n, copyOut: true }], (ptr) => call(ptr, n), context);
  return out;
}
