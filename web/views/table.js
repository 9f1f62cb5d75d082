// views/table.js: the sinusoidal table as a heatmap (the JAX/Flax tutorial's figure):
// rows are positions, columns dimensions, coolwarm from -1 to +1. Rows are
// computed in strips straight into the painter, so 8192 x 2048 never needs
// one 64 MB array.
import { int, num, choice } from '../state.js';
import { drawHeatmapFigure } from '../draw/heatmap.js';

const LAYOUTS = ['interleaved', 'concatenated', 'tensor2tensor', 'fairseq'];

/** Which sine/cosine and which frequency index column k of a layout holds (null: a zero column). */
export function columnKind(layout, d, k) {
  if (layout === 'interleaved') return { fn: k % 2 ? 'cos' : 'sin', i: k >> 1 };
  const sines = layout === 'concatenated' ? Math.ceil(d / 2) : Math.floor(d / 2);
  if (k < sines) return { fn: 'sin', i: k };
  if (k < 2 * sines || layout === 'concatenated') return { fn: 'cos', i: k - sines };
  return null;
}

const tableOptions = (s) => ({ dModel: s.d, base: s.base, layout: s.layout });

export default {
  id: 'table',
  labels: { d: 'dModel', len: 'length', base: 'base', layout: 'layout' },
  params: { d: int(2, 2048, 64), len: int(1, 8192, 50), base: num(1, 1e12, 10000), layout: choice(LAYOUTS, 'interleaved') },

  check(s) {
    return s.layout === 'fairseq' && s.d < 4 ? "the fairseq layout needs dModel >= 4 (its formula divides by zero below that)" : null;
  },

  /** The values, for the picture and the downloads: rows computed on demand by posenc. */
  data(s, posenc) {
    return {
      rows: s.len, cols: s.d,
      read: (r0, n, out) => posenc.sinusoidal({ length: n, offset: r0, out, ...tableOptions(s) }),
      header: ['position', ...Array.from({ length: s.d }, (_, k) => `dim${k}`)],
    };
  },

  draw(ctx, t, size, s, posenc) {
    const data = this.data(s, posenc);
    const fig = drawHeatmapFigure(ctx, t, size, {
      ...data, min: -1, max: 1,
      title: 'Positional Encoding Heatmap', xLabel: 'Embedding Dimension', yLabel: 'Sequence Position', barLabel: 'Encoding Value',
    });
    const w = posenc.sinusoidalFrequencies(tableOptions(s));
    return {
      ...fig, rows: s.len, cols: s.d, min: -1, max: 1,
      describe(row, col) {
        const value = posenc.sinusoidal({ length: 1, offset: row, ...tableOptions(s) })[col];
        const kind = columnKind(s.layout, s.d, col);
        if (!kind) return `position ${row} · dimension ${col}: the zero column of an odd dModel · value ${value}`;
        const omega = w[kind.i];
        return `position ${row} · dimension ${col} = ${kind.fn}(p·ω${sub(kind.i)}) · ω${sub(kind.i)} = ${omega.toPrecision(5)} rad/position (period ${(2 * Math.PI / omega).toPrecision(4)}) · angle ${(row * omega).toPrecision(6)} rad · value ${value.toFixed(6)}`;
      },
    };
  },
};

const SUBSCRIPTS = '₀₁₂₃₄₅₆₇₈₉';
export const sub = (n) => String(n).replace(/\d/g, (c) => SUBSCRIPTS[c]);
