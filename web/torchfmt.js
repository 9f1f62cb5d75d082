// torchfmt.js: prints a 1-D or 2-D tensor the way PyTorch's repr does
// (torch/_tensor_str.py: _Formatter, _vector_str, _tensor_str_with_formatter,
// default print options: precision 4, linewidth 80, no summarization here),
// so the notebook view can be compared with the notebook's printed text.

const PRECISION = 4;
const LINEWIDTH = 80;

// Python's round-half-even on the exact decimal expansion of a double, for
// the digit string of |x| (e.g. "0.03125" -> "0.0312" at 4 places).
function roundDigits(intPart, frac, places) {
  const kept = intPart + frac.slice(0, places);
  const rest = frac.slice(places);
  const half = rest[0] > '5' || (rest[0] === '5' && /[1-9]/.test(rest.slice(1)));
  const tie = rest[0] === '5' && !/[1-9]/.test(rest.slice(1));
  let digits = kept;
  if (half || (tie && Number(kept[kept.length - 1]) % 2 === 1)) {
    digits = (BigInt(kept) + 1n).toString().padStart(kept.length, '0');
  }
  return { int: digits.slice(0, digits.length - places) || '0', frac: digits.slice(digits.length - places) };
}

const sign = (x) => (x < 0 || Object.is(x, -0) ? '-' : '');

/** Python's f"{x:.{p}f}". */
export function pyFixed(x, p = PRECISION) {
  if (!Number.isFinite(x)) return x !== x ? 'nan' : `${sign(x)}inf`;
  const [i, f] = Math.abs(x).toFixed(100).split('.');
  const r = roundDigits(i, f, p);
  return `${sign(x)}${r.int}${p ? `.${r.frac}` : ''}`;
}

/** Python's f"{x:.{p}e}": mantissa with p decimals, exponent with a sign and 2+ digits. */
export function pyExp(x, p = PRECISION) {
  if (!Number.isFinite(x)) return x !== x ? 'nan' : `${sign(x)}inf`;
  if (x === 0) return `${sign(x)}${(0).toFixed(p)}e+00`;
  const [m, e] = Math.abs(x).toExponential(100).split('e');
  const [i, f] = m.split('.');
  let r = roundDigits(i, f, p);
  let exp = Number(e);
  if (r.int.length > 1) {
    // 9.99995 rounded up to 10.0000: renormalize
    r = { int: r.int[0], frac: (r.int.slice(1) + r.frac).slice(0, p) };
    exp += 1;
  }
  const es = `${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return `${sign(x)}${r.int}${p ? `.${r.frac}` : ''}e${es}`;
}

// torch's _Formatter for floating tensors: picks integer, fixed or scientific
// mode from the nonzero finite values and pads every element to one width.
function formatter(values) {
  const nz = Array.from(values).filter((v) => Number.isFinite(v) && v !== 0);
  let intMode = true;
  let sci = false;
  let width = 1;
  if (nz.length) {
    const abs = nz.map(Math.abs);
    const min = Math.min(...abs);
    const max = Math.max(...abs);
    intMode = nz.every((v) => v === Math.ceil(v));
    if (intMode) {
      sci = max / min > 1000 || max > 1e8;
      for (const v of nz) width = Math.max(width, sci ? pyExp(v).length : pyFixed(v, 0).length + 1);
    } else {
      sci = max / min > 1000 || max > 1e8 || min < 1e-4;
      for (const v of nz) width = Math.max(width, (sci ? pyExp(v) : pyFixed(v)).length);
    }
  }
  const format = (v) => {
    let s;
    if (sci) s = pyExp(v);
    else if (intMode) s = pyFixed(v, 0) + (Number.isFinite(v) ? '.' : '');
    else s = pyFixed(v);
    return s.padStart(width, ' ');
  };
  return { width, format };
}

function vectorStr(values, indent, f) {
  const perLine = Math.max(1, Math.floor((LINEWIDTH - indent) / (f.width + 2)));
  const data = Array.from(values, f.format);
  const lines = [];
  for (let i = 0; i < data.length; i += perLine) lines.push(data.slice(i, i + perLine).join(', '));
  return `[${lines.join(`,\n${' '.repeat(indent + 1)}`)}]`;
}

/** torch's repr of a tensor with `shape` ([n] or [rows, cols]) holding `values` row-major. */
export function formatTensor(values, shape) {
  const f = formatter(values);
  const indent = 'tensor('.length;
  if (shape.length === 1) return `tensor(${vectorStr(values, indent, f)})`;
  const [rows, cols] = shape;
  const slices = [];
  for (let r = 0; r < rows; r++) slices.push(vectorStr(values.slice(r * cols, (r + 1) * cols), indent + 1, f));
  return `tensor([${slices.join(`,\n${' '.repeat(indent + 1)}`)}])`;
}
