// views/notebook.js: the PyTorch notebook's cells (even_i, denominator, position,
// even_PE, odd_PE, PE), each tensor computed by posenc and printed as torch
// prints it, so the text can be read against the notebook line by line.
import { int, num } from '../state.js';
import { formatTorch } from '../src/cli/torch.js';

const columns = (table, d, len, first) => {
  const half = d / 2;
  return Float32Array.from({ length: len * half }, (_, i) => table[Math.floor(i / half) * d + first + 2 * (i % half)]);
};

function cell(name, code, call, text, { wide = false, note = '' } = {}) {
  const div = document.createElement('div');
  div.className = wide ? 'cell wide' : 'cell';
  div.dataset.tensor = name;
  const p = (cls, s) => Object.assign(document.createElement('p'), { className: cls, textContent: s });
  div.append(p('code', code), p('call', call), Object.assign(document.createElement('pre'), { textContent: text }));
  if (note) div.append(p('note', note));
  return div;
}

export default {
  id: 'notebook',
  labels: { d: 'd_model', len: 'max_sequence_length', base: 'base' },
  params: { d: int(2, 16, 6, 2), len: int(1, 32, 10), base: num(1, 1e12, 10000) },

  data(s, posenc) {
    const table = posenc.sinusoidal({ length: s.len, dModel: s.d, base: s.base });
    return {
      rows: s.len, cols: s.d,
      read: (r0, n, out) => out.set(table.subarray(r0 * s.d, (r0 + n) * s.d)),
      header: ['position', ...Array.from({ length: s.d }, (_, k) => `dim${k}`)],
    };
  },

  render(container, s, posenc) {
    const { d, len, base } = s;
    const b = base === 10000 ? '' : `, base: ${base}`;
    const w = posenc.sinusoidalFrequencies({ dModel: d, base });
    const table = posenc.sinusoidal({ length: len, dModel: d, base });
    const evenI = Float64Array.from(w, (_, i) => 2 * i);
    const denominator = Float64Array.from(w, (x) => 1 / x);
    const position = Float64Array.from({ length: len }, (_, i) => i);
    const shape = `torch.Size([${len}, ${d / 2}])`;
    const exactNote = 'posenc keeps 1/ω exact in double; torch rounds the exponent to float32 first, so its last digit can differ (the notebook prints 464.1590 for 10000^(2/3) = 464.15888…).';
    container.replaceChildren(
      cell('even_i', 'even_i = torch.arange(0, d_model, 2).float()', 'the sine columns 0, 2, …, d_model − 2', formatTorch(evenI, [d / 2], 'float32')),
      cell('denominator', `denominator = torch.pow(${base}, even_i/d_model)`, `1 / sinusoidalFrequencies({ dModel: ${d}${b} })`, formatTorch(denominator, [d / 2], 'float32'), { note: exactNote }),
      cell('position', 'position = torch.arange(max_sequence_length, dtype=torch.float).reshape(max_sequence_length, 1)', 'the row index of the table', formatTorch(position, [len, 1], 'float32')),
      cell('even_PE', 'even_PE = torch.sin(position / denominator)', `sinusoidal({ length: ${len}, dModel: ${d}${b} }), columns 0, 2, 4, …`, `${formatTorch(columns(table, d, len, 0), [len, d / 2], 'float32')}\n${shape}`),
      cell('odd_PE', 'odd_PE = torch.cos(position / denominator)', 'the same table, columns 1, 3, 5, …', `${formatTorch(columns(table, d, len, 1), [len, d / 2], 'float32')}\n${shape}`),
      cell('PE', 'PE = torch.flatten(torch.stack([even_PE, odd_PE], dim=2), start_dim=1, end_dim=2)', `sinusoidal({ length: ${len}, dModel: ${d}${b} })`, formatTorch(table, [len, d], 'float32'), { wide: true }),
    );
  },
};
