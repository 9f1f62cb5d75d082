// describe.js: what a value is, for checks and error messages. No user code
// runs here: types are read by brand, never through instanceof (which fails
// across realms: Jest, iframes, workers) or a value's own methods.
import { lengthOf, typedArrayType } from './typed.js';

export { typedArrayType };

/** The [[Class]] tag of a value: 'Float32Array', 'ArrayBuffer', 'Object', ... */
export const typeOf = (x) => Object.prototype.toString.call(x).slice(8, -1);

/** True for an object that can hold options or tensors: not null, not an array, not an ArrayBuffer view. */
export const isPlainObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v) && !ArrayBuffer.isView(v);

const dataViewLength = Object.getOwnPropertyDescriptor(DataView.prototype, 'byteLength').get;
function dataViewBytes(x) {
  try {
    return dataViewLength.call(x);
  } catch {
    return 'detached, 0'; // its buffer was transferred
  }
}

/** A short description of a value for error messages. */
export function describe(x) {
  if (typeof x === 'string') return JSON.stringify(x);
  if (typeof x === 'number' || typeof x === 'boolean' || typeof x === 'bigint') return String(x);
  if (x === null || x === undefined) return String(x);
  const array = typedArrayType(x);
  if (array) return `${array}(${lengthOf(x)})`;
  if (typeOf(x) === 'DataView') return `DataView(${dataViewBytes(x)} bytes)`;
  if (Array.isArray(x)) return `Array(${x.length})`;
  return typeOf(x);
}

/** The article a name takes: an Int32Array, an 'int32' WasmArray, a Float32Array, a Uint8Array. */
export const article = (word) => (/^'?[aeio]/i.test(word) ? 'an' : 'a');

/** The error of a bad value: `posenc.fn: name must be <allowed>, got <value>`. */
export const fail = (Err, fn, name, allowed, value) => new Err(`posenc.${fn}: ${name} must be ${allowed}, got ${describe(value)}`);
