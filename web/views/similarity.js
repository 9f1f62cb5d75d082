// views/similarity.js: PE(p) . PE(q) for every pair of positions. The table
// comes from posenc; the dot products are plain sums over its rows, so the
// picture shows what the table itself implies: a Toeplitz matrix (constant
// diagonals), since the sum is over cos((p - q) * w_i).
import { int, num } from '../state.js';
import { drawHeatmapFigure, matrixSource } from '../draw/heatmap.js';
import { drawLines, PALETTE, PALETTE_DARK } from '../draw/lines.js';

// Three rows of the matrix, each from its diagonal on: PE(p) . PE(p + D)
// against D. They fall on one curve, which is the point.
function drawRows(ctx, t, size, s, g, m, box) {
  const palette = t.dark ? PALETTE_DARK : PALETTE;
  const starts = [...new Set([0, Math.floor(s.len / 3), Math.floor((2 * s.len) / 3)])];
  const series = starts.map((p, j) => ({
    label: `p = ${p}`, color: palette[j], width: 2.5 - j * 0.75, dash: j ? [6, 4 + 2 * j] : [],
    x: Array.from({ length: s.len - p }, (_, D) => D),
    y: Float32Array.from({ length: s.len - p }, (_, D) => g[p * s.len + p + D]),
  }));
  drawLines(ctx, t, size, series, {
    box, xMin: 0, xMax: s.len - 1, yMin: -m, yMax: m, title: 'Rows from the diagonal: PE(p) · PE(p + D)', xLabel: 'Distance D', yLabel: '',
  });
}

export default {
  id: 'similarity',
  labels: { d: 'dModel', len: 'length', base: 'base' },
  params: { d: int(2, 1024, 64), len: int(1, 512, 100), base: num(1, 1e12, 10000) },

  // Gram matrix of the table rows, accumulated in double, symmetric.
  gram(s, posenc) {
    const { d, len } = s;
    const t = posenc.sinusoidal({ length: len, dModel: d, base: s.base });
    const g = new Float32Array(len * len);
    for (let p = 0; p < len; p++) {
      for (let q = 0; q <= p; q++) {
        let sum = 0;
        for (let k = 0, a = p * d, b = q * d; k < d; k++) sum += t[a + k] * t[b + k];
        g[p * len + q] = g[q * len + p] = sum;
      }
    }
    return g;
  },

  data(s, posenc) {
    return { ...matrixSource(this.gram(s, posenc), s.len, s.len), header: ['p', ...Array.from({ length: s.len }, (_, q) => `q${q}`)] };
  },

  draw(ctx, t, size, s, posenc) {
    const g = this.gram(s, posenc);
    const data = { ...matrixSource(g, s.len, s.len) };
    // A scale symmetric around 0; the diagonal PE(p).PE(p) (d/2 for even d) is the largest value.
    let m = 0;
    for (const v of g) m = Math.max(m, Math.abs(v));
    m = m || 1;
    // Wide screens: the heatmap on the left, rows of it as curves on the right.
    const split = size.width >= 760 && s.len >= 4;
    const heatWidth = split ? Math.min(size.height + 90, size.width * 0.55) : size.width;
    const fig = drawHeatmapFigure(ctx, t, size, {
      ...data, min: -m, max: m, square: true,
      margin: split ? { left: 62, right: size.width - heatWidth + 86, top: 34, bottom: 46 } : undefined,
      title: 'Dot product PE(p) · PE(q)', xLabel: 'Position q', yLabel: 'Position p', barLabel: 'PE(p) · PE(q)',
    });
    if (split) drawRows(ctx, t, size, s, g, m, { x: heatWidth + 20, y: 0, w: size.width - heatWidth - 20, h: size.height });
    return {
      ...fig, rows: s.len, cols: s.len, min: -m, max: m,
      describe: (p, q) => `p = ${p} · q = ${q} · p − q = ${p - q} · PE(p)·PE(q) = ${g[p * s.len + q].toFixed(5)} (of at most ${m.toFixed(3)})`,
    };
  },
};
