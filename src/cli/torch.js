// torch.js: prints an n-dimensional array the way PyTorch's repr does, so the
// CLI's tables read like the notebook's cells. Follows torch/_tensor_str.py
// with the default print options: precision 4, linewidth 80, summarization
// above 1000 elements with 3 edge items (_Formatter, _vector_str,
// _tensor_str_with_formatter, get_summarized_data, _add_suffixes).

const PRECISION = 4;
const LINEWIDTH = 80;
const THRESHOLD = 1000;
const EDGEITEMS = 3;

const sign = (x) => (x < 0 || Object.is(x, -0) ? '-' : '');

// Rounds the decimal digits of |x| half-to-even, as Python's formatting does on
// the exact binary value (JS toFixed rounds ties up: 0.03125 -> 0.0313, Python 0.0312).
function roundDigits(int, frac, places) {
  const kept = int + frac.slice(0, places);
  const rest = frac.slice(places);
  const above = rest[0] > '5' || (rest[0] === '5' && /[1-9]/.test(rest.slice(1)));
  const tie = rest[0] === '5' && !/[1-9]/.test(rest.slice(1));
  let digits = kept;
  if (above || (tie && Number(kept[kept.length - 1]) % 2 === 1)) {
    digits = (BigInt(kept) + 1n).toString().padStart(kept.length, '0');
  }
  return { int: digits.slice(0, digits.length - places) || '0', frac: digits.slice(digits.length - places) };
}

/** Python's f"{x:.{p}f}". */
export function pyFixed(x, p = PRECISION) {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? 'nan' : `${sign(x)}inf`;
  if (Math.abs(x) >= 1e21) return `${sign(x)}${BigInt(Math.abs(x))}${p ? `.${'0'.repeat(p)}` : ''}`;
  const [i, f] = Math.abs(x).toFixed(100).split('.');
  const r = roundDigits(i, f, p);
  return `${sign(x)}${r.int}${p ? `.${r.frac}` : ''}`;
}

/** Python's f"{x:.{p}e}": p decimals, a signed exponent of at least 2 digits. */
export function pyExp(x, p = PRECISION) {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? 'nan' : `${sign(x)}inf`;
  if (x === 0) return `${sign(x)}${(0).toFixed(p)}e+00`;
  const [m, e] = Math.abs(x).toExponential(100).split('e');
  const [i, f] = m.split('.');
  let r = roundDigits(i, f, p);
  let exp = Number(e);
  if (r.int.length > 1) {
    // 9.99995 rounded up to 10.0000: one more power of ten
    r = { int: r.int[0], frac: (r.int.slice(1) + r.frac).slice(0, p) };
    exp += 1;
  }
  return `${sign(x)}${r.int}${p ? `.${r.frac}` : ''}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
}

// torch's _Formatter: integers print as they are; floats pick integer ("1."),
// fixed or scientific mode from their nonzero finite values, and every element
// is padded to one width.
function formatter(values, isFloat) {
  if (!isFloat) {
    const width = values.reduce((w, v) => Math.max(w, String(v).length), 1);
    return { width, format: (v) => String(v).padStart(width) };
  }
  const nonzero = values.filter((v) => Number.isFinite(v) && v !== 0);
  let intMode = true;
  let sci = false;
  let width = 1;
  if (nonzero.length) {
    let min = Infinity;
    let max = 0;
    for (const v of nonzero) {
      min = Math.min(min, Math.abs(v));
      max = Math.max(max, Math.abs(v));
      if (v !== Math.ceil(v)) intMode = false;
    }
    if (intMode) {
      sci = max / min > 1000 || max > 1e8;
      for (const v of nonzero) width = Math.max(width, sci ? pyExp(v).length : pyFixed(v, 0).length + 1);
    } else {
      sci = max / min > 1000 || max > 1e8 || min < 1e-4;
      for (const v of nonzero) width = Math.max(width, (sci ? pyExp(v) : pyFixed(v)).length);
    }
  }
  const format = (v) => {
    let s;
    if (sci) s = pyExp(v);
    else if (intMode) s = pyFixed(v, 0) + (Number.isFinite(v) ? '.' : '');
    else s = pyFixed(v);
    return s.padStart(width);
  };
  return { width, format };
}

// A nested view of a flat row-major array: the indices of sub-array `i` along the first axis.
const strides = (shape) => shape.map((_, k) => shape.slice(k + 1).reduce((a, b) => a * b, 1));

// The indices kept along one axis when summarizing: the first and last EDGEITEMS.
function axisIndices(n, summarize) {
  const range = (from, count) => Array.from({ length: count }, (_, i) => from + i);
  if (!summarize || n <= 2 * EDGEITEMS) return range(0, n);
  return [...range(0, EDGEITEMS), null, ...range(n - EDGEITEMS, EDGEITEMS)]; // never the whole axis: it may be millions long
}

// Every value that get_summarized_data keeps (what the formatter measures).
function summarized(get, shape, summarize) {
  const st = strides(shape);
  const out = [];
  const walk = (axis, base) => {
    if (axis === shape.length) {
      out.push(get(base));
      return;
    }
    for (const i of axisIndices(shape[axis], summarize)) if (i !== null) walk(axis + 1, base + i * st[axis]);
  };
  walk(0, 0);
  return out;
}

/**
 * The element getter (flat index -> value) of `source`: an array-like, or a
 * tensor { read(start, count) } of which only the elements torch shows are
 * read (the first and last EDGEITEMS along every axis when summarizing), so a
 * huge tensor prints without ever being held.
 */
function elements(source, shape, summarize) {
  if (typeof source.read !== 'function') return (i) => source[i];
  const size = shape.reduce((a, b) => a * b, 1);
  if (!summarize) {
    const all = source.read(0, size);
    return (i) => all[i];
  }
  const st = strides(shape);
  const last = shape.length - 1;
  const kept = new Map();
  const walk = (axis, base) => {
    if (axis < last) {
      for (const i of axisIndices(shape[axis], true)) if (i !== null) walk(axis + 1, base + i * st[axis]);
      return;
    }
    const n = shape[last];
    const runs = n > 2 * EDGEITEMS ? [[0, EDGEITEMS], [n - EDGEITEMS, EDGEITEMS]] : [[0, n]];
    for (const [start, count] of runs) {
      const values = source.read(base + start, count);
      for (let k = 0; k < count; k++) kept.set(base + start + k, values[k]);
    }
  };
  walk(0, 0);
  return (i) => kept.get(i);
}

function tensorStr(get, shape, st, axis, base, indent, summarize, f) {
  const dims = shape.length - axis;
  if (dims === 1) {
    const items = axisIndices(shape[axis], summarize).map((i) => (i === null ? ' ...' : f.format(get(base + i * st[axis]))));
    const perLine = Math.max(1, Math.floor((LINEWIDTH - indent) / (f.width + 2)));
    const lines = [];
    for (let i = 0; i < items.length; i += perLine) lines.push(items.slice(i, i + perLine).join(', '));
    return `[${lines.join(`,\n${' '.repeat(indent + 1)}`)}]`;
  }
  const slices = axisIndices(shape[axis], summarize).map((i) =>
    i === null ? '...' : tensorStr(get, shape, st, axis + 1, base + i * st[axis], indent + 1, summarize, f),
  );
  return `[${slices.join(`,${'\n'.repeat(dims - 1)}${' '.repeat(indent + 1)}`)}]`;
}

/**
 * torch's repr of a tensor with `shape`: `tensor([[ 0.0000,  1.0000, ...]])`.
 * `data` holds its elements row-major: a typed array or array, or a tensor
 * { read(start, count) } (only the elements shown are read). dtype is
 * 'float32' (torch's default, no suffix), 'float64' or 'int32' (suffixed
 * `dtype=torch.float64`, ...).
 */
export function formatTorch(data, shape, dtype) {
  const prefix = 'tensor(';
  const indent = prefix.length;
  const suffixes = [];
  const size = shape.reduce((a, b) => a * b, 1);
  let body;
  if (size === 0) {
    body = '[]';
    if (shape.length !== 1) suffixes.push(`size=(${shape.join(', ')})`);
  } else {
    const summarize = size > THRESHOLD;
    const get = elements(data, shape, summarize);
    const f = formatter(summarized(get, shape, summarize), dtype !== 'int32');
    body = shape.length === 0 ? f.format(get(0)).trim() : tensorStr(get, shape, strides(shape), 0, 0, indent, summarize, f);
  }
  if (dtype !== 'float32') suffixes.push(`dtype=torch.${dtype}`);
  let text = prefix + body;
  let lastLine = text.length - text.lastIndexOf('\n') + 1;
  for (const s of suffixes) {
    if (lastLine + s.length + 2 > LINEWIDTH) {
      text += `,\n${' '.repeat(indent)}${s}`;
      lastLine = indent + s.length;
    } else {
      text += `, ${s}`;
      lastLine += s.length + 2;
    }
  }
  return `${text})`;
}
