// download.js: saves what a view shows as PNG (the canvas), CSV or JSON (the
// values). Files are built as Blob parts row by row, so even an 8192 x 2048
// table never becomes one giant string.

/** The shortest decimal that reads back as the same float32 (the values are float32). */
export function float32Text(v) {
  if (!Number.isFinite(v)) return v !== v ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity';
  const s = String(v);
  if (s.length <= 9) return s;
  for (let p = 6; p < 9; p++) {
    const t = v.toPrecision(p);
    if (Math.fround(Number(t)) === v) return String(Number(t));
  }
  return String(Number(v.toPrecision(9)));
}

function save(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

// Rows of data = { rows, cols, read(r0, n, out), rowLabel?(r), header: string[], text?(v) }.
function* rowsOf(data, format) {
  const chunk = Math.max(1, Math.floor(65536 / Math.max(1, data.cols)));
  const buf = new Float32Array(chunk * data.cols);
  for (let r0 = 0; r0 < data.rows; r0 += chunk) {
    const n = Math.min(chunk, data.rows - r0);
    data.read(r0, n, buf.subarray(0, n * data.cols));
    for (let r = 0; r < n; r++) {
      const cells = [];
      for (let c = 0; c < data.cols; c++) cells.push(format(buf[r * data.cols + c]));
      yield [r0 + r, cells];
    }
  }
}

/** CSV: a header line, then one line per row, the row label first. */
export function csvBlob(data) {
  const parts = [`${data.header.join(',')}\n`];
  const text = data.text ?? float32Text;
  for (const [r, cells] of rowsOf(data, text)) parts.push(`${data.rowLabel ? data.rowLabel(r) : r},${cells.join(',')}\n`);
  return new Blob(parts, { type: 'text/csv' });
}

/** JSON: { view, params, shape, rowLabels?, columns, values: [[...], ...] }; non-finite numbers as null. */
export function jsonBlob(data, meta) {
  const head = { ...meta, shape: [data.rows, data.cols], columns: data.header.slice(1) };
  if (data.rowLabel) head.rowLabels = Array.from({ length: data.rows }, (_, r) => data.rowLabel(r));
  const text = data.text ?? float32Text;
  const parts = [`${JSON.stringify(head).slice(0, -1)},"values":[\n`];
  for (const [r, cells] of rowsOf(data, (v) => (Number.isFinite(v) ? text(v) : 'null'))) {
    parts.push(`[${cells.join(',')}]${r + 1 < data.rows ? ',' : ''}\n`);
  }
  parts.push(']}\n');
  return new Blob(parts, { type: 'application/json' });
}

/** Saves a canvas as PNG. */
export function savePng(canvas, name) {
  canvas.toBlob((blob) => save(blob, name), 'image/png');
}

export { save as saveBlob };
