// formats.js: the CLI's output formats. Each format is a generator over a
// tensor { shape, dtype, read(start, count) } (read returns the row-major
// elements start .. start + count - 1 as a typed array) that yields the output
// in pieces (strings or bytes) of about CHUNK values, so memory stays bounded
// whatever the size of the tensor.
import { endianness } from 'node:os';
import { MAX_WIDTH, writeFinite, writeText } from './decimal.js';
import { formatTorch } from './torch.js';

/** Values formatted per piece: about 4 MB of CSV text, 1 MB of float32 bytes. */
export const CHUNK = 1 << 18;

/** dtype -> NumPy's descr (little-endian) and bytes per element. */
const DTYPES = {
  float32: { descr: '<f4', bytes: 4, setter: 'setFloat32' },
  float64: { descr: '<f8', bytes: 8, setter: 'setFloat64' },
  int32: { descr: '<i4', bytes: 4, setter: 'setInt32' },
};

const COMMA = 44;
const NEWLINE = 10;
const OPEN = 91;
const CLOSE = 93;
const product = (dims) => dims.reduce((a, b) => a * b, 1);

/**
 * A byte buffer of at least `size` bytes, reused from piece to piece (a piece
 * is written before the next is made): garbage would otherwise pile up to
 * tens of MB between collections.
 */
function reusable() {
  let buffer = new Uint8Array(0);
  return (size) => {
    if (buffer.length < size) buffer = new Uint8Array(size);
    return buffer;
  };
}

/**
 * The tensor's rows of its last axis, a piece at a time:
 * yields { values, rows } with whole rows only (at least one row a piece).
 */
function* rowPieces({ shape, read }) {
  const cols = shape.length ? shape[shape.length - 1] : 1;
  const rows = product(shape.slice(0, -1));
  const perPiece = Math.max(1, Math.floor(CHUNK / Math.max(cols, 1)));
  for (let r = 0; r < rows; r += perPiece) {
    const n = Math.min(perPiece, rows - r);
    yield { values: read(r * cols, n * cols), rows: n, first: r };
  }
}

/** CSV: one line per row of the last axis (leading axes flattened); inf/-inf/nan as NumPy writes them. */
function* csv(tensor) {
  const { shape, dtype } = tensor;
  const cols = shape.length ? shape[shape.length - 1] : 1;
  if (product(shape) === 0) return;
  const buffer = reusable();
  for (const { values, rows } of rowPieces(tensor)) {
    const out = buffer(values.length * (MAX_WIDTH[dtype] + 1) + rows);
    let at = 0;
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      if (Number.isFinite(v)) at = writeFinite(out, at, v, dtype);
      else at = writeText(out, at, Number.isNaN(v) ? 'nan' : v > 0 ? 'inf' : '-inf');
      out[at++] = (i + 1) % cols === 0 ? NEWLINE : COMMA;
    }
    yield out.subarray(0, at);
  }
}

/**
 * JSON: { shape, dtype, data } with data nested by shape, exactly as
 * JSON.stringify writes it. JSON has no infinities: they are written as the
 * strings "Infinity", "-Infinity" and "NaN", which JS Number() and Python
 * float() both read back.
 */
function* json(tensor) {
  const { shape, dtype } = tensor;
  yield `${JSON.stringify({ shape, dtype }).slice(0, -1)},"data":`;
  const leading = shape.slice(0, -1);
  if (shape.length === 0 || product(leading) === 0) {
    // nothing to read: only brackets ([[], []] for shape [2, 0, 5])
    const nest = (axis) => (axis >= leading.length ? [] : Array.from({ length: shape[axis] }, () => nest(axis + 1)));
    yield `${JSON.stringify(shape.length ? nest(0) : tensor.read(0, 1)[0])}}\n`;
    return;
  }
  const buffer = reusable();
  for (const { values, rows, first } of rowPieces(tensor)) {
    const cols = values.length / rows;
    const out = buffer(values.length * (MAX_WIDTH[dtype] + 3) + rows * (2 * leading.length + 3));
    let at = 0;
    for (let r = 0; r < rows; r++) {
      // brackets between rows: each leading axis whose index wraps to 0 at this row closes and reopens
      let wraps = 0;
      for (let axis = leading.length - 1, q = first + r; axis >= 0 && q % leading[axis] === 0; axis--) {
        wraps += 1;
        q /= leading[axis];
      }
      if (first + r === 0) for (let i = 0; i < leading.length; i++) out[at++] = OPEN;
      else {
        for (let i = 0; i < wraps; i++) out[at++] = CLOSE;
        out[at++] = COMMA;
        for (let i = 0; i < wraps; i++) out[at++] = OPEN;
      }
      out[at++] = OPEN;
      for (let c = 0; c < cols; c++) {
        const v = values[r * cols + c];
        if (c > 0) out[at++] = COMMA;
        if (Number.isFinite(v)) at = writeFinite(out, at, v, dtype);
        else at = writeText(out, at, `"${v}"`);
      }
      out[at++] = CLOSE;
    }
    yield out.subarray(0, at);
  }
  yield `${']'.repeat(leading.length)}}\n`;
}

/** Raw little-endian element bytes, row-major, no header. */
function* raw({ shape, dtype, read }) {
  const { bytes, setter } = DTYPES[dtype];
  const size = product(shape);
  const buffer = reusable();
  for (let start = 0; start < size; start += CHUNK) {
    const values = read(start, Math.min(CHUNK, size - start));
    if (endianness() === 'LE') {
      yield new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
    } else {
      const out = buffer(values.length * bytes).subarray(0, values.length * bytes);
      const view = new DataView(out.buffer);
      for (let i = 0; i < values.length; i++) view[setter](i * bytes, values[i], true);
      yield out;
    }
  }
}

/**
 * NumPy's .npy, format version 1.0: the magic "\x93NUMPY", the version bytes
 * 1 0, a little-endian uint16 header length, then a Python dict literal padded
 * with spaces and ended by "\n" so that the data starts at a multiple of 64
 * bytes, then the raw little-endian data (numpy/lib/format.py).
 */
function* npy(tensor) {
  const { descr } = DTYPES[tensor.dtype];
  const shape = tensor.shape.length === 1 ? `(${tensor.shape[0]},)` : `(${tensor.shape.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  const preamble = 10; // magic (6) + version (2) + header length (2)
  header += ' '.repeat(63 - ((preamble + header.length) % 64)) + '\n';
  const out = new Uint8Array(preamble + header.length);
  out.set([0x93, ...Buffer.from('NUMPY', 'latin1'), 1, 0, header.length & 0xff, header.length >> 8]);
  out.set(Buffer.from(header, 'latin1'), preamble);
  yield out;
  yield* raw(tensor);
}

/** torch's repr: only the values it shows are read (a summarized tensor shows its edges). */
function* table(tensor) {
  yield `${formatTorch(tensor, tensor.shape, tensor.dtype)}\n`;
}

/** Format name -> generator of output pieces. 'table' is torch's repr. */
export const FORMATS = { table, csv, json, raw, npy };

/** Formats that write bytes (refused on a terminal). */
export const BINARY = new Set(['raw', 'npy']);

/** The format an --out file name implies, or undefined. */
export function formatOfPath(path) {
  const ext = /\.([A-Za-z0-9]+)$/.exec(path)?.[1].toLowerCase();
  return { npy: 'npy', csv: 'csv', json: 'json', bin: 'raw', raw: 'raw', f32: 'raw', i32: 'raw', f64: 'raw', txt: 'table' }[ext];
}
