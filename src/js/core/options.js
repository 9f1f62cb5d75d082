// options.js: one description per parameter drives validation and error messages.
// A spec maps option names to checkers built here; readOptions applies them and
// returns the values with defaults filled in. Wrong types raise TypeError, bad
// values RangeError, and every message names the function, the parameter, what
// is allowed and what was given. A checker's `kind` ('number', 'string',
// 'boolean') and `values` (oneOf) let tests/api/declarations.test.js hold the
// TypeScript declarations to the specs.
import { WasmArray, arrayProblem, countOf, MAX_BYTES } from './heap.js';
import { article, describe, fail, isPlainObject, typedArrayType } from './describe.js';
import { accepts, row, rowAllows } from './errors.js';
import { unknownOptionHint } from './suggest.js';
import { bufferOf, lengthOf } from './typed.js';

export const INT32_MIN = -(2 ** 31);
export const INT32_MAX = 2 ** 31 - 1;

/** An integer in [min, max]. */
export const integer = (min, max, extra = {}) => ({
  ...extra,
  kind: 'number',
  check(fn, name, v) {
    const allowed = `an integer from ${min} to ${max}`;
    if (typeof v !== 'number') throw fail(TypeError, fn, name, allowed, v);
    if (!Number.isInteger(v) || v < min || v > max) throw fail(RangeError, fn, name, allowed, v);
    return v;
  },
});

// C's types, as a number crosses into wasm: what C cannot see is a value its
// type cannot hold (3.5 or 2^40 for a size_t arrives as something else).
const C_TYPES = {
  size: (v) => Number.isInteger(v) && v >= 0 && v <= 0xffffffff,
  int32: (v) => Number.isInteger(v) && v >= INT32_MIN && v <= INT32_MAX,
  double: () => true,
};

/**
 * A number that C checks against its row of the parameter table (id: the
 * row, 'ROTARY_DIM'; cType: 'size', 'int32' or 'double', the C argument's
 * type). JS checks only what C cannot see: that it is a number, that the C
 * type can hold it, and that an explicit value is not a 0 that C would read
 * as "not given" (unless extra.zeroAllowed: the caller handles 0 itself).
 * Messages say what the row allows.
 */
export const param = (id, cType, extra = {}) => {
  const r = row(id);
  return {
    ...extra,
    kind: 'number',
    row: r,
    check(fn, name, v) {
      const what = rowAllows(r);
      if (typeof v !== 'number') throw fail(TypeError, fn, name, what, v);
      // C reads 0 as "not given": an explicit 0 its rule refuses never reaches it
      if (!C_TYPES[cType](v) || (v === 0 && !accepts(r, 0) && !extra.zeroAllowed)) throw fail(RangeError, fn, name, what, v);
      return v;
    },
  };
};

/** A finite number, optionally bounded: { above } (exclusive), { min }, { max } (inclusive). */
export const number = ({ above, min, max, ...extra } = {}) => ({
  ...extra,
  kind: 'number',
  check(fn, name, v) {
    const bounds = [above !== undefined && `> ${above}`, min !== undefined && `>= ${min}`, max !== undefined && `<= ${max}`];
    const allowed = ['a finite number', ...bounds.filter(Boolean)].join(' ');
    if (typeof v !== 'number') throw fail(TypeError, fn, name, allowed, v);
    const ok = Number.isFinite(v) && (above === undefined || v > above) && (min === undefined || v >= min) && (max === undefined || v <= max);
    if (!ok) throw fail(RangeError, fn, name, allowed, v);
    return v;
  },
});

/** One of a fixed set of strings. */
export const oneOf = (values, extra = {}) => ({
  ...extra,
  kind: 'string',
  values,
  check(fn, name, v) {
    const allowed = `one of ${values.map((x) => `'${x}'`).join(', ')}`;
    if (typeof v !== 'string') throw fail(TypeError, fn, name, allowed, v);
    if (!values.includes(v)) throw fail(RangeError, fn, name, allowed, v);
    return v;
  },
});

export const boolean = (extra = {}) => ({
  ...extra,
  kind: 'boolean',
  check(fn, name, v) {
    if (typeof v !== 'boolean') throw fail(TypeError, fn, name, 'true or false', v);
    return v;
  },
});

// Whether a typed array's buffer was detached (transferred, or wasm memory that
// grew). ArrayBuffer.prototype.detached is newer than Node 20: constructing a
// view of a detached buffer throws.
function isDetached(v) {
  if (lengthOf(v) !== 0) return false;
  try {
    new Uint8Array(bufferOf(v), 0, 0);
    return false;
  } catch {
    return true;
  }
}

/**
 * A typed array of one element type ('float32', 'int32', 'float64') or a
 * WasmArray of that type. Lengths are checked by the caller with checkLength,
 * once the expected length is known.
 */
export const typedArray = (type, extra = {}) => ({
  ...extra,
  type,
  check(fn, name, v) {
    const tagName = { float32: 'Float32Array', int32: 'Int32Array', float64: 'Float64Array' }[type];
    // brand checks: no user code runs between the snapshot of the options and their use
    const wasmArray = WasmArray.isBranded(v);
    // freed, hand-made or foreign WasmArrays, views of wasm memory: never used
    const problem = arrayProblem(v);
    if (problem && !wasmArray && typedArrayType(v) === undefined) throw new problem[0](`posenc.${fn}: ${name} is ${problem[1]}`);
    if (wasmArray ? v.type !== type : typedArrayType(v) !== tagName) {
      throw fail(TypeError, fn, name, `${article(tagName)} ${tagName} or ${article(type)} '${type}' WasmArray`, v);
    }
    if (problem) throw new problem[0](`posenc.${fn}: ${name} is ${problem[1]}`);
    // a detached array reads as empty: it would pass for an empty input and hide the caller's bug
    if (!wasmArray && isDetached(v)) {
      throw new RangeError(`posenc.${fn}: ${name}'s buffer is detached (transferred to another thread, or a view of memory that grew)`);
    }
    return v;
  },
});

/** Any value, checked later by the function (an object it reads itself). */
export const later = (extra = {}) => ({ ...extra, check: (fn, name, v) => v });

/**
 * A snapshot of an options object: its own enumerable properties, each read
 * exactly once, in an object without a prototype. Checks and use both read
 * the snapshot, so a getter runs once, before any check: it cannot change a
 * value, free a WasmArray or detach a view (by growing wasm memory) between
 * the check of a value and its use. Inherited names ('constructor',
 * 'toString') are not options; an own '__proto__' is an ordinary key.
 */
export function snapshot(options) {
  const copy = Object.create(null);
  for (const key of Object.keys(options)) copy[key] = options[key];
  return copy;
}

/**
 * Reads an options object against its spec, from a snapshot (see snapshot).
 * Unknown keys are an error (a typo such as `dmodel` would otherwise silently
 * fall back to a default); only the spec's own keys are known.
 */
export function readOptions(fn, options, spec) {
  if (!isPlainObject(options)) {
    throw new TypeError(`posenc.${fn}: expects an options object, got ${describe(options)}`);
  }
  const given = snapshot(options);
  for (const key of Object.keys(given)) {
    if (!Object.hasOwn(spec, key)) {
      throw new TypeError(`posenc.${fn}: unknown option '${key}' (known: ${Object.keys(spec).join(', ')})${unknownOptionHint(fn, key, Object.keys(spec), Object.keys(given))}`);
    }
  }
  const values = {};
  for (const [name, p] of Object.entries(spec)) {
    const v = given[name];
    if (v === undefined) {
      if ('default' in p) values[name] = p.default;
      else if (p.optional) values[name] = undefined;
      else throw new TypeError(`posenc.${fn}: ${name} is required`);
    } else {
      values[name] = p.check(fn, name, v);
    }
  }
  return values;
}

/**
 * The element count of a result, checked against what one call can produce.
 * `factors` maps each parameter name to its value: { length: 10, dModel: 6 }.
 */
export function elementCount(fn, factors, bytesPerElement = 4) {
  const n = Object.values(factors).reduce((a, b) => a * b, 1);
  const max = MAX_BYTES / bytesPerElement;
  if (n > max) {
    const expr = Object.keys(factors).join(' * ');
    throw new RangeError(`posenc.${fn}: ${expr} = ${n} elements, more than the ${max} one call can produce`);
  }
  return n;
}

/** Checks that an array given for `name` has exactly n elements. */
export function checkLength(fn, name, array, n) {
  const length = countOf(array);
  if (length !== n) {
    const detached = !WasmArray.isBranded(array) && isDetached(array);
    throw new RangeError(`posenc.${fn}: ${name} must have length ${n}, got ${length}${detached ? ' (its buffer is detached)' : ''}`);
  }
}

/**
 * Reads a tagged options object `{ type, ...options }` (a RoPE scaling, an
 * encoder's positional scheme): `specs` maps each type to the spec of its
 * options; `label(key)` names a key in messages ('scaling.factor'), `what`
 * the tag ('scaling type').
 * Returns { type, ...values } with defaults filled in.
 */
export function readTagged(fn, given, specs, label, what = 'type') {
  const types = Object.keys(specs);
  const allowedTypes = types.map((t) => `'${t}'`).join(', ');
  const o = snapshot(given);
  if (o.type === undefined) throw new TypeError(`posenc.${fn}: ${label('type')} is required (one of ${allowedTypes})`);
  const type = oneOf(types).check(fn, label('type'), o.type);
  const spec = specs[type];
  for (const key of Object.keys(o)) {
    if (key !== 'type' && !Object.hasOwn(spec, key)) {
      throw new TypeError(`posenc.${fn}: unknown option '${label(key)}' for ${what} '${type}' (known: ${['type', ...Object.keys(spec)].join(', ')})${unknownOptionHint(fn, key, ['type', ...Object.keys(spec)], [], label)}`);
    }
  }
  const values = { type };
  for (const [key, p] of Object.entries(spec)) {
    const v = o[key];
    if (v !== undefined) values[key] = p.check(fn, label(key), v);
    else if ('default' in p) values[key] = p.default;
    else if (!p.optional) throw new TypeError(`posenc.${fn}: ${label(key)} is required for ${what} '${type}'`);
  }
  return values;
}
