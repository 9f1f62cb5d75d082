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

/** The dtypes readSafetensors converts and writeSafetensors writes. */
export const SAFETENSORS_DTYPES = ['F32', 'F16', 'BF16', 'F64'];
const BYTES = { F64: 8, F32: 4, F16: 2, BF16: 2 };
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

/** number -> binary16 bits, rounded to nearest even (overflow to infinity). */
function toF16(x) {
  f32[0] = x;
  const bits = u32[0];
  const sign = (bits >>> 16) & 0x8000;
  const a = Math.abs(f32[0]);
  if (Number.isNaN(a)) return sign | 0x7e00;
  if (a >= 65520) return sign | 0x7c00; // rounds past the largest half, 65504
  if (a < 2 ** -14) return sign | roundEven(a * 2 ** 24); // subnormal (or zero)
  const exp = Math.floor(Math.log2(a));
  const e = a >= 2 ** (exp + 1) ? exp + 1 : a < 2 ** exp ? exp - 1 : exp;
  const m = roundEven((a / 2 ** e - 1) * 1024); // 0..1024; 1024 carries into the exponent
  return sign | (((e + 15) << 10) + m);
}

function roundEven(v) {
  const r = Math.round(v);
  return r - v === 0.5 && r % 2 ? r - 1 : r;
}

/** number -> bfloat16 bits: the high half of the float32, rounded to nearest even. */
function toBF16(x) {
  f32[0] = x;
  const bits = u32[0];
  if (Number.isNaN(f32[0])) return (bits >>> 16) | 0x40;
  return (bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16;
}

// ---------------------------------------------------------------- reading

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

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
 */
export function parseSafetensors(fn, what, input) {
  const bytes = asBytes(fn, what, input);
  const bad = (message) => fail(RangeError, fn, what, `is not a valid .safetensors file: ${message}`);
  if (bytes.length < 8) throw bad(`${bytes.length} bytes, fewer than the 8 of the header length`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = Number(view.getBigUint64(0, true));
  if (n > MAX_HEADER) throw bad(`the header length ${n} is above the format's limit of ${MAX_HEADER} bytes`);
  if (8 + n > bytes.length) throw bad(`the header length ${n} runs past the end of the ${bytes.length} bytes`);
  let header;
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(8, 8 + n)));
  } catch (error) {
    throw bad(`the header is not UTF-8 JSON (${error.message})`);
  }
  if (!isObject(header)) throw bad(`the header must be a JSON object, got ${describe(header)}`);
  const dataStart = 8 + n;
  const dataLength = bytes.length - dataStart;
  let metadata = {};
  const entries = [];
  for (const [name, info] of Object.entries(header)) {
    if (name === '__metadata__') {
      if (!isObject(info) || !Object.values(info).every((v) => typeof v === 'string')) {
        throw bad('__metadata__ must map strings to strings');
      }
      metadata = { ...info };
      continue;
    }
    if (!isObject(info)) throw bad(`tensor '${name}' must be an object { dtype, shape, data_offsets }`);
    const { dtype, shape, data_offsets: offsets } = info;
    if (typeof dtype !== 'string') throw bad(`tensor '${name}' has no dtype string`);
    if (!Array.isArray(shape) || !shape.every((s) => Number.isSafeInteger(s) && s >= 0)) {
      throw bad(`tensor '${name}' must have a shape of non-negative integers, got ${JSON.stringify(shape)}`);
    }
    if (!Array.isArray(offsets) || offsets.length !== 2 || !offsets.every((o) => Number.isSafeInteger(o) && o >= 0) || offsets[0] > offsets[1]) {
      throw bad(`tensor '${name}' must have data_offsets [begin, end] with 0 <= begin <= end, got ${JSON.stringify(offsets)}`);
    }
    if (!(dtype in BYTES)) {
      throw fail(RangeError, fn, what, `tensor '${name}' has dtype ${dtype}: posenc reads the floating dtypes ${SAFETENSORS_DTYPES.join(', ')}`);
    }
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
    const count = (offsets[1] - offsets[0]) / BYTES[dtype];
    const at = dataStart + offsets[0];
    const data = new Float32Array(count);
    if (dtype === 'F32' && (bytes.byteOffset + at) % 4 === 0 && littleEndian()) {
      data.set(new Float32Array(bytes.buffer, bytes.byteOffset + at, count));
    } else {
      for (let i = 0; i < count; i++) {
        const o = at + i * BYTES[dtype];
        if (dtype === 'F32') data[i] = view.getFloat32(o, true);
        else if (dtype === 'F64') data[i] = view.getFloat64(o, true);
        else if (dtype === 'F16') data[i] = fromF16(view.getUint16(o, true));
        else {
          u32[0] = view.getUint16(o, true) << 16;
          data[i] = f32[0];
        }
      }
    }
    setOwn(tensors, name, { dtype, shape: [...shape], data });
  }
  return { tensors, metadata };
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

export function writeSafetensors(tensors, options = {}) {
  const fn = 'writeSafetensors';
  if (!isPlainObject(tensors)) {
    throw new TypeError(`posenc.${fn}: tensors must be an object { name: { shape, data, dtype? } }, got ${describe(tensors)}`);
  }
  const { metadata } = readOptions(fn, options, { metadata: stringMap });
  const header = {};
  if (metadata) setOwn(header, '__metadata__', { ...metadata });
  const parts = [];
  let offset = 0;
  for (const [name, t] of Object.entries(snapshot(tensors))) {
    if (name === '__metadata__') throw new RangeError(`posenc.${fn}: '__metadata__' is reserved, not a tensor name`);
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
