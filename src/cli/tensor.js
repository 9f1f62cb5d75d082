// tensor.js: the tensors the CLI writes, as { shape, dtype, read(start, count) }
// where read returns the row-major elements start .. start + count - 1. A
// command whose API call takes an offset computes its rows a chunk at a time,
// when read, so a table of any length is written in bounded memory; the others
// compute once.

const ARRAYS = { float32: Float32Array, float64: Float64Array, int32: Int32Array };

/** A tensor already computed: `data` holds its elements. */
export const computed = (data, shape, dtype) => ({
  shape,
  dtype,
  read: (start, count) => data.subarray(start, start + count),
});

/**
 * A tensor [parts][rows][width] whose rows are computed on demand:
 * compute(first, count, out) returns the `parts` arrays of rows first ..
 * first + count - 1 (each count * width elements), filling the arrays `out`
 * when given. `rows` and `width` are the options as given: unless they make
 * more than `chunk` elements, compute(0, rows) runs once, now, and the library
 * checks every option as it does for any call. A longer tensor is checked now
 * by its first and last row (the library's checks of the range of positions),
 * then computed a chunk of rows at a time into buffers that are reused: what
 * read returns is valid until the next read.
 */
export function rowChunked({ rows, width, parts = 1, compute, shape, dtype, chunk }) {
  const Typed = ARRAYS[dtype];
  const chunkRows = Math.max(1, Math.floor(chunk / width));
  if (!(Number.isSafeInteger(rows) && rows > chunkRows)) {
    const computedParts = compute(0, rows);
    if (parts === 1) return computed(computedParts[0], shape, dtype);
    const data = new Typed(computedParts.reduce((n, p) => n + p.length, 0));
    computedParts.forEach((p, i) => data.set(p, i * p.length));
    return computed(data, shape, dtype);
  }
  compute(0, 1);
  compute(rows - 1, 1);
  const partSize = rows * width;
  const rowBuffers = Array.from({ length: parts }, () => new Typed(chunkRows * width));
  let readBuffer = new Typed(0);
  return {
    shape,
    dtype,
    read(start, count) {
      if (readBuffer.length < count) readBuffer = new Typed(count);
      const out = readBuffer.subarray(0, count);
      for (let done = 0; done < count; ) {
        const at = start + done;
        const part = Math.floor(at / partSize);
        const first = Math.floor((at % partSize) / width);
        const end = Math.min(rows, first + chunkRows, Math.ceil(((at % partSize) + count - done) / width));
        const n = end - first;
        const values = compute(first, n, rowBuffers.map((b) => b.subarray(0, n * width)))[part];
        const skip = (at % partSize) - first * width;
        const take = Math.min(count - done, values.length - skip);
        out.set(values.subarray(skip, skip + take), done);
        done += take;
      }
      return out;
    },
  };
}

/** `offset` (an option as given) moved down `rows` rows: as given for rows = 0. */
export const offsetBy = (offset, rows) => (rows === 0 ? offset : (offset ?? 0) + rows);
