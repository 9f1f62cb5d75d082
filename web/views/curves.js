// views/curves.js: chosen columns of the table against position (labml's
// figure: dims 4..7 of a 20-wide table over 100 positions).
import { int, num, intList } from '../state.js';
import { drawLines, PALETTE, PALETTE_DARK } from '../draw/lines.js';

export default {
  id: 'curves',
  labels: { d: 'dModel', len: 'length', dims: 'dimensions', base: 'base' },
  params: { d: int(2, 2048, 20), len: int(2, 8192, 100), dims: intList(2047, [4, 5, 6, 7]), base: num(1, 1e12, 10000) },

  check(s) {
    const bad = s.dims.find((k) => k >= s.d);
    return bad === undefined ? null : `dimension ${bad} does not exist: dModel is ${s.d} (dimensions 0 to ${s.d - 1})`;
  },

  // The chosen columns of posenc's table: [dims.length][len].
  // Computed in strips of rows: a long, wide table is never held whole.
  columns(s, posenc) {
    const cols = s.dims.map(() => new Float32Array(s.len));
    const strip = Math.max(1, Math.floor(262144 / s.d));
    const buf = new Float32Array(strip * s.d);
    for (let r0 = 0; r0 < s.len; r0 += strip) {
      const n = Math.min(strip, s.len - r0);
      posenc.sinusoidal({ length: n, offset: r0, dModel: s.d, base: s.base, out: buf.subarray(0, n * s.d) });
      s.dims.forEach((k, j) => {
        for (let r = 0; r < n; r++) cols[j][r0 + r] = buf[r * s.d + k];
      });
    }
    return cols;
  },

  data(s, posenc) {
    const cols = this.columns(s, posenc);
    return {
      rows: s.len, cols: s.dims.length,
      read: (r0, n, out) => {
        for (let r = 0; r < n; r++) cols.forEach((c, j) => (out[r * cols.length + j] = c[r0 + r]));
      },
      header: ['position', ...s.dims.map((k) => `dim${k}`)],
    };
  },

  draw(ctx, t, size, s, posenc) {
    const palette = t.dark ? PALETTE_DARK : PALETTE;
    const cols = this.columns(s, posenc);
    const series = cols.map((y, j) => ({ label: `dim ${s.dims[j]}`, color: palette[j % palette.length], y }));
    const fig = drawLines(ctx, t, size, series, {
      xMin: 0, xMax: s.len - 1, yMin: -1, yMax: 1, title: 'Positional encoding', xLabel: 'Position', yLabel: 'Encoding Value',
      lineWidth: s.len > 600 ? 1.25 : 2,
    });
    Object.assign(ctx.canvas.dataset, { xMin: 0, xMax: s.len - 1, yMin: -1, yMax: 1, colors: JSON.stringify(series.map((x) => x.color)) });
    return {
      ...fig,
      describe(p) {
        return `position ${p} · ${series.map((x, j) => `${x.label}: ${cols[j][p].toFixed(4)}`).join(' · ')}`;
      },
    };
  },
};
