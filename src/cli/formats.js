// formats.js: the CLI's output formats. Each encoder takes a tensor
// { data (typed array, row-major), shape, dtype } and returns a string or bytes.
import { formatTorch } from './torch.js';

/** dtype -> NumPy's descr (little-endian) and bytes per element. */
const DTYPES = {
  float32: { descr: '<f4', bytes: 4, setter: 'setFloat32' },
  float64: { descr: '<f8', bytes: 8, setter: 'setFloat64' },
  int32: { descr: '<i4', bytes: 4, setter: 'setInt32' },
};

// The shortest decimal that reads back as the same float32 (or float64) value.
function shortest(v, dtype) {
  if (Number.isNaN(v)) return 'nan';
  if (!Number.isFinite(v)) return v > 0 ? 'inf' : '-inf';
  if (dtype !== 'float32') return String(v);
  for (let p = 1; p < 9; p++) {
    const s = Number(v.toPrecision(p));
    if (Math.fround(s) === v) return String(s);
  }
  return String(Number(v.toPrecision(9)));
}

/** CSV: one line per row of the last axis (leading axes flattened); inf/-inf/nan as NumPy writes them. */
function csv({ data, shape, dtype }) {
  const cols = shape.length ? shape[shape.length - 1] : 1;
  const lines = [];
  for (let i = 0; i < data.length; i += cols) {
    lines.push(Array.from(data.subarray(i, i + cols), (v) => shortest(v, dtype)).join(','));
  }
  return lines.length ? `${lines.join('\n')}\n` : '';
}

/**
 * JSON: { shape, dtype, data } with data nested by shape. JSON has no
 * infinities: they are written as the strings "Infinity", "-Infinity" and
 * "NaN", which JS Number() and Python float() both read back.
 */
function json({ data, shape, dtype }) {
  const value = (v) => (Number.isFinite(v) ? Number(shortest(v, dtype)) : String(v));
  const nest = (axis, base, stride) => {
    if (axis === shape.length) return value(data[base]);
    const inner = stride / shape[axis];
    return Array.from({ length: shape[axis] }, (_, i) => nest(axis + 1, base + i * inner, inner));
  };
  return `${JSON.stringify({ shape, dtype, data: nest(0, 0, shape.reduce((a, b) => a * b, 1)) })}\n`;
}

/** Raw little-endian element bytes, row-major, no header. */
function raw({ data, dtype }) {
  const { bytes, setter } = DTYPES[dtype];
  const out = new Uint8Array(data.length * bytes);
  const view = new DataView(out.buffer);
  for (let i = 0; i < data.length; i++) view[setter](i * bytes, data[i], true);
  return out;
}

/**
 * NumPy's .npy, format version 1.0: the magic "\x93NUMPY", the version bytes
 * 1 0, a little-endian uint16 header length, then a Python dict literal padded
 * with spaces and ended by "\n" so that the data starts at a multiple of 64
 * bytes, then the raw little-endian data (numpy/lib/format.py).
 */
function npy(tensor) {
  const { descr } = DTYPES[tensor.dtype];
  const shape = tensor.shape.length === 1 ? `(${tensor.shape[0]},)` : `(${tensor.shape.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  const preamble = 10; // magic (6) + version (2) + header length (2)
  header += ' '.repeat(63 - ((preamble + header.length) % 64)) + '\n';
  const body = raw(tensor);
  const out = new Uint8Array(preamble + header.length + body.length);
  out.set([0x93, ...Buffer.from('NUMPY', 'latin1'), 1, 0, header.length & 0xff, header.length >> 8]);
  out.set(Buffer.from(header, 'latin1'), preamble);
  out.set(body, preamble + header.length);
  return out;
}

/** Format name -> encoder. 'table' is torch's repr. */
export const FORMATS = {
  table: ({ data, shape, dtype }) => `${formatTorch(data, shape, dtype)}\n`,
  csv,
  json,
  raw,
  npy,
};

/** Formats that write bytes (refused on a terminal). */
export const BINARY = new Set(['raw', 'npy']);

/** The format an --out file name implies, or undefined. */
export function formatOfPath(path) {
  const ext = /\.([A-Za-z0-9]+)$/.exec(path)?.[1].toLowerCase();
  return { npy: 'npy', csv: 'csv', json: 'json', bin: 'raw', raw: 'raw', f32: 'raw', i32: 'raw', f64: 'raw', txt: 'table' }[ext];
}
