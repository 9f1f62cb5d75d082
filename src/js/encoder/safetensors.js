// safetensors.js: reading and writing Hugging Face's .safetensors files
// (https://github.com/huggingface/safetensors, the format section of its README):
//
//   [ N: u64 little-endian ][ N bytes: JSON header ][ tensor bytes ]
//   header = { "__metadata__"?: { string: string },
//              name: { "dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end] }, ... }
//
// Offsets count from the first byte after the header; tensors are row-major,
// little-endian, and together cover the byte buffer exactly. Floating dtypes
// are read (F64, F32, F16, BF16, converted to Float32Array) and written (F32,
// F16, BF16, rounded to nearest even). Pure JS: no wasm, no init() needed.
import { describe, isPlainObject, typeOf } from '../core/describe.js';
import { readOptions, snapshot } from '../core/options.js';
import { JsonNumber, hasLoneSurrogate, parseHeader, shapeOverflow } from './safetensors-header.js';

/** The dtypes readSafetensors converts and writeSafetensors writes. */
export const SAFETENSORS_DTYPES = ['F32', 'F16', 'BF16', 'F64'];
const BYTES = { F64: 8, F32: 4, F16: 2, BF16: 2 };
const BITS = { F64: 64, F32: 32, F16: 16, BF16: 16 };
// The reference implementation refuses headers above 100 MB (MAX_HEADER_SIZE).
const MAX_HEADER = 100_000_000;

const fail = (Err, fn, what, message) => new Err(`posenc.${fn}: ${what} ${message}`);

// Tensor names are the file's keys, any string: '__proto__' included. Stored
// with defineProperty, a name is always an own property of an ordinary
// object (an assignment `o['__proto__'] = v` would set o's prototype instead).
function setOwn(object, key, value) {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}

// ---------------------------------------------------------------- half floats

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** IEEE binary16 bits -> number (exact). */
function fromF16(h) {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * (1024 + frac) * 2 ** (exp - 25);
}

/**
 * A number rounded once, to nearest even, into the IEEE format of `exp`
 * exponent bits and `man` fraction bits: its bits (past the largest finite
 * value, infinity; NaN stays NaN). From the double itself, never through
 * float32 first: 1 + 2^-11 + 2^-40 becomes F16 1 + 2^-10, not 1.
 */
function roundToBits(x, exp, man) {
  const bias = 2 ** (exp - 1) - 1;
  const sign = x < 0 || Object.is(x, -0) ? 2 ** (exp + man) : 0;
  const inf = (2 ** exp - 1) * 2 ** man;
  if (Number.isNaN(x)) return inf + 2 ** (man - 1); // a quiet NaN
  const a = Math.abs(x);
  // subnormal (or zero): whole units of 2^(1 - bias - man); rounding up to the smallest normal is right as it is
  if (a < 2 ** (1 - bias)) return sign + roundEven(a * 2 ** (bias - 1 + man));
  if (a === Infinity) return sign + inf;
  let e = Math.floor(Math.log2(a));
  if (a >= 2 ** (e + 1)) e += 1; // log2's own rounding, either way
  else if (a < 2 ** e) e -= 1;
  let m = roundEven((a / 2 ** e - 1) * 2 ** man); // exact in double before the one rounding
  if (m === 2 ** man) {
    m = 0;
    e += 1;
  }
  if (e > bias) return sign + inf;
  return sign + (e + bias) * 2 ** man + m;
}

function roundEven(v) {
  const r = Math.round(v);
  return r - v === 0.5 && r % 2 ? r - 1 : r;
}

/** number -> IEEE binary16 bits (F16). */
const toF16 = (x) => roundToBits(x, 5, 10);

/** number -> bfloat16 bits (BF16: float32's exponent, 7 fraction bits). */
const toBF16 = (x) => roundToBits(x, 8, 7);

// ---------------------------------------------------------------- reading

/** A header value as its JSON text, shortened, for messages. */
function show(v) {
  if (v instanceof JsonNumber) return v.text;
  if (Array.isArray(v)) return `[${v.slice(0, 8).map(show).join(', ')}${v.length > 8 ? ', ...' : ''}]`;
  if (v instanceof Map) return 'an object';
  return v === undefined ? 'nothing' : JSON.stringify(v);
}

/** An array of usizes (integer literals up to 2^64 - 1) within JS's safe integers, as numbers; null when it is not. */
function usizes(v, length) {
  if (!Array.isArray(v) || (length !== undefined && v.length !== length)) return null;
  const out = [];
  for (const x of v) {
    const u = x instanceof JsonNumber ? x.u64 : undefined;
    if (u === undefined) return null;
    out.push(u);
  }
  return out;
}

function asBytes(fn, what, bytes) {
  try {
    if (typeOf(bytes) === 'ArrayBuffer') return new Uint8Array(bytes);
    if (typeOf(bytes) === 'Uint8Array' || (ArrayBuffer.isView(bytes) && typeOf(bytes) === 'Buffer')) {
      return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    }
  } catch {
    // no view of a detached buffer can be made (it was transferred to a worker)
    throw new RangeError(`posenc.${fn}: ${what}'s buffer is detached (transferred?)`);
  }
  throw fail(TypeError, fn, what, `must be the bytes of a .safetensors file (a Uint8Array or an ArrayBuffer), got ${describe(bytes)}`);
}

/**
 * @internal Parses a .safetensors file; errors name `fn` and `what` (the
 * parameter). Returns { tensors: { name: { dtype, shape, data } }, metadata }.
 * raw: each tensor { dtype, shape, bytes } instead, its bytes a view of the
 * file's, nothing converted (tensorValues converts one).
 */
export function parseSafetensors(fn, what, input, { raw = false } = {}) {
  const bytes = asBytes(fn, what, input);
  const bad = (message) => fail(RangeError, fn, what, `is not a valid .safetensors file: ${message}`);
  if (bytes.length < 8) throw bad(`${bytes.length} bytes, fewer than the 8 of the header length`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = Number(view.getBigUint64(0, true));
  if (n > MAX_HEADER) throw bad(`the header length ${n} is above the format's limit of ${MAX_HEADER} bytes`);
  if (8 + n > bytes.length) throw bad(`the header length ${n} runs past the end of the ${bytes.length} bytes`);
  let header;
  try {
    // ignoreBOM: a byte order mark stays in the text, where the parser refuses it as the reference does
    header = parseHeader(new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes.subarray(8, 8 + n)));
  } catch (error) {
    throw bad(`the header is not UTF-8 JSON as the reference parser reads it (${error.message})`);
  }
  if (!(header instanceof Map)) throw bad(`the header must be a JSON object, got ${Array.isArray(header) ? 'an array' : show(header)}`);
  if (header.repeated?.has('__metadata__')) throw bad('__metadata__ is given twice');
  const dataStart = 8 + n;
  const dataLength = bytes.length - dataStart;
  let metadata = {};
  const entries = [];
  for (const [name, info] of header) {
    if (name === '__metadata__') {
      if (info === null) continue; // the reference's Option<HashMap>: null is none
      if (!(info instanceof Map) || ![...info.values()].every((v) => typeof v === 'string')) {
        throw bad('__metadata__ must map strings to strings');
      }
      metadata = Object.fromEntries(info); // own keys, '__proto__' included
      continue;
    }
    if (!(info instanceof Map)) throw bad(`tensor '${name}' must be an object { dtype, shape, data_offsets }`);
    for (const field of ['dtype', 'shape', 'data_offsets']) {
      if (info.repeated?.has(field)) throw bad(`tensor '${name}' gives ${field} twice`);
    }
    const dtype = info.get('dtype');
    if (typeof dtype !== 'string') throw bad(`tensor '${name}' has no dtype string`);
    const big = usizes(info.get('shape'));
    if (!big) {
      throw bad(`tensor '${name}' must have a shape of non-negative integers (integer literals up to 2^64 - 1), got ${show(info.get('shape'))}`);
    }
    const offsetsBig = usizes(info.get('data_offsets'), 2);
    if (!offsetsBig || offsetsBig[0] > offsetsBig[1]) {
      throw bad(`tensor '${name}' must have data_offsets [begin, end] with 0 <= begin <= end, got ${show(info.get('data_offsets'))}`);
    }
    if (!Object.hasOwn(BYTES, dtype)) {
      throw fail(RangeError, fn, what, `tensor '${name}' has dtype ${dtype}: posenc reads the floating dtypes ${SAFETENSORS_DTYPES.join(', ')}`);
    }
    const overflow = shapeOverflow(big, BITS[dtype]);
    if (overflow) throw bad(`tensor '${name}' has the shape [${big.join(', ')}]: ${overflow}`);
    if (![...big, ...offsetsBig].every((v) => v <= BigInt(Number.MAX_SAFE_INTEGER))) {
      throw bad(`tensor '${name}' has a shape or data_offsets past 2^53 - 1, which posenc does not read: shape [${big.join(', ')}], data_offsets [${offsetsBig.join(', ')}]`);
    }
    const shape = big.map(Number);
    const offsets = offsetsBig.map(Number);
    const count = shape.reduce((a, b) => a * b, 1);
    if (offsets[1] - offsets[0] !== count * BYTES[dtype]) {
      throw bad(`tensor '${name}' (${dtype} [${shape.join(', ')}]) needs ${count * BYTES[dtype]} bytes, its data_offsets span ${offsets[1] - offsets[0]}`);
    }
    if (offsets[1] > dataLength) throw bad(`tensor '${name}' ends at byte ${offsets[1]}, past the ${dataLength} data bytes`);
    entries.push({ name, dtype, shape, offsets });
  }
  // the tensors tile the data exactly, as the reference parser requires
  const sorted = [...entries].sort((a, b) => a.offsets[0] - b.offsets[0] || a.offsets[1] - b.offsets[1]);
  let end = 0;
  for (const e of sorted) {
    if (e.offsets[0] !== end) {
      throw bad(`tensor '${e.name}' starts at byte ${e.offsets[0]}, expected ${end} (tensors must not overlap or leave gaps)`);
    }
    end = e.offsets[1];
  }
  if (end !== dataLength) throw bad(`the tensors cover ${end} of the ${dataLength} data bytes`);

  const tensors = {};
  for (const { name, dtype, shape, offsets } of entries) {
    const t = { dtype, shape: [...shape], bytes: bytes.subarray(dataStart + offsets[0], dataStart + offsets[1]) };
    setOwn(tensors, name, raw ? t : { dtype, shape: t.shape, data: tensorValues(t) });
  }
  return { tensors, metadata };
}

/** @internal The values of a raw tensor ({ dtype, bytes }: parseSafetensors' raw) as a new Float32Array. */
export function tensorValues({ dtype, bytes }) {
  const count = bytes.length / BYTES[dtype];
  const data = new Float32Array(count);
  if (dtype === 'F32' && bytes.byteOffset % 4 === 0 && littleEndian()) {
    data.set(new Float32Array(bytes.buffer, bytes.byteOffset, count));
    return data;
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < count; i++) {
    const o = i * BYTES[dtype];
    if (dtype === 'F32') data[i] = view.getFloat32(o, true);
    else if (dtype === 'F64') data[i] = view.getFloat64(o, true);
    else if (dtype === 'F16') data[i] = fromF16(view.getUint16(o, true));
    else {
      u32[0] = view.getUint16(o, true) << 16;
      data[i] = f32[0];
    }
  }
  return data;
}

const littleEndian = () => new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * Reads a .safetensors file (Hugging Face's format): every tensor converted
 * to a Float32Array (F64, F32, F16 and BF16 are read; other dtypes are a
 * RangeError). The file is validated as the reference parser does: header
 * length, UTF-8 JSON, shapes, offsets that tile the data exactly.
 * @param {Uint8Array | ArrayBuffer} bytes the whole file (Node's Buffer works)
 * @returns {{ tensors: Record<string, { dtype: string, shape: number[], data: Float32Array }>, metadata: Record<string, string> }}
 */
export function readSafetensors(bytes) {
  return parseSafetensors('readSafetensors', 'bytes', bytes);
}

// ---------------------------------------------------------------- writing

/**
 * @internal The header bytes writeSafetensors would write for F32 tensors
 * `entries` ({ name, shape, count } in order) and `metadata`, padded to 8:
 * computed entry by entry, without building the header (or the tensors).
 */
export function headerBytes(entries, metadata) {
  const utf8 = (text) => new TextEncoder().encode(text).length;
  let bytes = 2; // { }
  let first = true;
  const add = (key, value) => {
    bytes += (first ? 0 : 1) + utf8(JSON.stringify(key)) + 1 + utf8(JSON.stringify(value));
    first = false;
  };
  if (metadata) add('__metadata__', metadata);
  let offset = 0;
  for (const { name, shape, count } of entries) {
    add(name, { dtype: 'F32', shape, data_offsets: [offset, offset + 4 * count] });
    offset += 4 * count;
  }
  return Math.ceil(bytes / 8) * 8;
}

/** The most header bytes a file may have (the reference's MAX_HEADER_SIZE). */
export const MAX_HEADER_BYTES = MAX_HEADER;

const stringMap = {
  optional: true,
  check(fn, name, v) {
    const map = isPlainObject(v) ? snapshot(v) : null;
    if (!map || !Object.values(map).every((x) => typeof x === 'string')) {
      throw new TypeError(`posenc.${fn}: ${name} must map strings to strings, got ${describe(v)}`);
    }
    return map;
  },
};
/** writeSafetensors' options. */
export const writeSpec = { metadata: stringMap };

/**
 * Writes tensors as a .safetensors file, in the order of the object's keys.
 * Each tensor is { shape, data, dtype? }: data a Float32Array, Float64Array
 * or Array of numbers with product(shape) elements; dtype 'F32' (default),
 * 'F16' or 'BF16' (rounded to nearest even). A bare Float32Array is a 1-D
 * tensor. The header is padded with spaces to a multiple of 8 bytes, as the
 * reference writer does, so every tensor starts aligned.
 * @param {Record<string, { shape: number[], data: ArrayLike<number>, dtype?: 'F32' | 'F16' | 'BF16' } | Float32Array>} tensors
 * @param {{ metadata?: Record<string, string> }} [options]
 * @returns {Uint8Array}
 */
export function writeSafetensors(tensors, options = {}) {
  const fn = 'writeSafetensors';
  if (!isPlainObject(tensors)) {
    throw new TypeError(`posenc.${fn}: tensors must be an object { name: { shape, data, dtype? } }, got ${describe(tensors)}`);
  }
  const { metadata } = readOptions(fn, options, writeSpec);
  // JSON.stringify writes a lone surrogate as a \u escape, which the reference parser refuses
  const unicode = (what, text) => {
    if (hasLoneSurrogate(text)) {
      throw new RangeError(`posenc.${fn}: ${what} must be valid Unicode (UTF-8 cannot hold a lone surrogate), got ${JSON.stringify(text)}`);
    }
  };
  for (const [key, value] of Object.entries(metadata ?? {})) {
    unicode('metadata', key);
    unicode('metadata', value);
  }
  const header = {};
  if (metadata) setOwn(header, '__metadata__', { ...metadata });
  const parts = [];
  let offset = 0;
  for (const [name, t] of Object.entries(snapshot(tensors))) {
    if (name === '__metadata__') throw new RangeError(`posenc.${fn}: '__metadata__' is reserved, not a tensor name`);
    unicode('tensor names', name);
    const what = `tensors['${name}']`;
    const tensor = typeOf(t) === 'Float32Array' ? { shape: [t.length], data: t } : isPlainObject(t) ? snapshot(t) : null;
    if (!tensor) {
      throw new TypeError(`posenc.${fn}: ${what} must be { shape, data, dtype? } or a Float32Array, got ${describe(t)}`);
    }
    for (const key of Object.keys(tensor)) {
      if (!['shape', 'data', 'dtype'].includes(key)) throw new TypeError(`posenc.${fn}: unknown key '${key}' in ${what} (known: shape, data, dtype)`);
    }
    const { data } = tensor;
    const shape = Array.isArray(tensor.shape) ? tensor.shape.slice() : tensor.shape; // each dimension read once
    const dtype = tensor.dtype ?? 'F32';
    if (!['F32', 'F16', 'BF16'].includes(dtype)) {
      throw new RangeError(`posenc.${fn}: ${what}.dtype must be one of 'F32', 'F16', 'BF16', got ${describe(dtype)}`);
    }
    if (!Array.isArray(shape) || !shape.every((s) => Number.isSafeInteger(s) && s >= 0)) {
      throw new TypeError(`posenc.${fn}: ${what}.shape must be an Array of non-negative integers, got ${describe(shape)}`);
    }
    if (!(Array.isArray(data) || ['Float32Array', 'Float64Array'].includes(typeOf(data)))) {
      throw new TypeError(`posenc.${fn}: ${what}.data must be a Float32Array, Float64Array or Array of numbers, got ${describe(data)}`);
    }
    const overflow = shapeOverflow(shape, BITS[dtype]);
    if (overflow) throw new RangeError(`posenc.${fn}: ${what}.shape [${shape.join(', ')}]: ${overflow}, which the reference parser refuses`);
    const count = shape.reduce((a, b) => a * b, 1);
    if (data.length !== count) {
      throw new RangeError(`posenc.${fn}: ${what}.data must have ${count} elements (shape [${shape.join(', ')}]), got ${data.length}`);
    }
    const size = count * BYTES[dtype];
    setOwn(header, name, { dtype, shape, data_offsets: [offset, offset + size] });
    parts.push({ dtype, data, count, at: offset });
    offset += size;
  }
  let json = new TextEncoder().encode(JSON.stringify(header));
  const padded = Math.ceil(json.length / 8) * 8;
  if (padded > MAX_HEADER) {
    throw new RangeError(
      `posenc.${fn}: the header would be ${padded} bytes, above the format's limit of ${MAX_HEADER} that readers (posenc's and the reference's) refuse: write fewer tensors or shorter metadata`,
    );
  }
  const out = new Uint8Array(8 + padded + offset);
  const view = new DataView(out.buffer);
  view.setBigUint64(0, BigInt(padded), true);
  out.set(json, 8);
  out.fill(0x20, 8 + json.length, 8 + padded);
  json = null;
  const start = 8 + padded;
  for (const { dtype, data, count, at } of parts) {
    for (let i = 0; i < count; i++) {
      const o = start + at + i * BYTES[dtype];
      const x = data[i]; // read once: an accessor could answer differently each time
      if (typeof x !== 'number') {
        throw new TypeError(`posenc.${fn}: tensor data must be numbers, got ${describe(x)} at index ${i}`);
      }
      if (dtype === 'F32') view.setFloat32(o, x, true);
      else if (dtype === 'F16') view.setUint16(o, toF16(x), true);
      else view.setUint16(o, toBF16(x), true);
    }
  }
  return out;
}
