// views/alibi.js: ALiBi's bias per head (Press et al. 2022, through
// posenc.alibiBias) as small multiples on one shared scale, so the heads'
// different slopes read as different reach: steep heads look near, shallow
// ones far. The scale is [-M, M] so that 0 is the neutral grey as on every
// other view; biases fill its blue half. Masked (causal) cells take the
// plot's background colour.
import { int, num, bool } from '../state.js';
import { paintCells, panelCellAt } from '../draw/heatmap.js';
import { drawColorBar } from '../draw/axes.js';
import { rgbOf } from '../draw/theme.js';

const SUP = { '-': '⁻', '.': '·', 0: '⁰', 1: '¹', 2: '²', 3: '³', 4: '⁴', 5: '⁵', 6: '⁶', 7: '⁷', 8: '⁸', 9: '⁹' };
/** A slope as a power of two: 2⁻¹, 2⁻⁰·⁵ (ALiBi's slopes all are). */
export const slopeText = (m) => `2${String(+Math.log2(m).toFixed(3)).replace(/[-.\d]/g, (c) => SUP[c])}`;

// The column count that gives the largest square panels for n heads in w x h.
function grid(n, w, h) {
  let best = { cols: 1, size: 0 };
  for (let cols = 1; cols <= n; cols++) {
    const rows = Math.ceil(n / cols);
    const size = Math.min(w / cols, h / rows);
    if (size > best.size) best = { cols, size };
  }
  return best;
}

const options = (s) => ({ heads: s.heads, queryLength: s.len, causal: s.causal, maxBias: s.maxBias });

export default {
  id: 'alibi',
  labels: { heads: 'heads', len: 'length', causal: 'causal', maxBias: 'maxBias' },
  params: { heads: int(1, 64, 8), len: int(1, 256, 32), causal: bool(true), maxBias: num(0, 1000, 8) },

  data(s, posenc) {
    const bias = posenc.alibiBias(options(s));
    const L = s.len;
    // CSV/JSON rows: one per (head, query), so the 3-D bias stays a table
    return {
      rows: s.heads * L, cols: L,
      read: (r0, n, out) => out.set(bias.subarray(r0 * L, (r0 + n) * L)),
      header: ['head:query', ...Array.from({ length: L }, (_, j) => `key${j}`)],
      rowLabel: (r) => `${Math.floor(r / L)}:${r % L}`,
    };
  },

  draw(ctx, t, size, s, posenc) {
    const { width, height, dpr } = size;
    const L = s.len;
    const bias = posenc.alibiBias(options(s));
    const slopes = posenc.alibiSlopes({ heads: s.heads, maxBias: s.maxBias });
    let m = 0;
    for (const v of bias) if (Number.isFinite(v)) m = Math.max(m, Math.abs(v));
    m = m || 1;
    const right = width < 480 ? 60 : 80;
    const title = 16;
    const gap = 10;
    const g = grid(s.heads, width - 8 - right, height - 8);
    const panel = Math.max(4, Math.floor((g.size - gap - title) * dpr));
    const cell = Math.floor(panel / L);
    const side = cell >= 3 ? cell * L : panel; // whole pixels per cell when they fit
    const mask = rgbOf(t.bg); // masked keys look empty, unlike the neutral grey of a zero bias
    const left = Math.max(4, (width - right - g.cols * g.size) / 2); // centre the block of panels
    const panels = [];
    ctx.save();
    ctx.font = `11px ${t.font}`;
    ctx.fillStyle = t.fg;
    ctx.textAlign = 'center';
    for (let h = 0; h < s.heads; h++) {
      const x = Math.round((left + (h % g.cols) * g.size) * dpr);
      const y = Math.round((4 + Math.floor(h / g.cols) * g.size + title) * dpr);
      const plot = { x, y, w: side, h: side };
      panels.push(plot);
      const slice = bias.subarray(h * L * L, (h + 1) * L * L);
      paintCells(ctx, plot, { rows: L, cols: L, read: (r0, n, out) => out.set(slice.subarray(r0 * L, (r0 + n) * L)) }, -m, m, mask);
      ctx.strokeStyle = t.grid; // a frame outside the cells: the masked triangle is still a square
      ctx.strokeRect(x / dpr - 1.5, y / dpr - 1.5, side / dpr + 3, side / dpr + 3);
      ctx.fillText(`head ${h} · m = ${slopeText(slopes[h])}`, (x + side / 2) / dpr, y / dpr - 5);
    }
    ctx.restore();
    const last = panels[0];
    const bar = { x: Math.round((left + g.cols * g.size + 6) * dpr), y: last.y, w: Math.round(12 * dpr), h: Math.max(40, Math.round(Math.min(height - 16, 260) * dpr) - last.y) };
    drawColorBar(ctx, t, dpr, bar, -m, m, 'Bias', false, [0, 0.5]); // biases are <= 0: the blue half
    ctx.canvas.dataset.panels = JSON.stringify(panels.map((p) => [p.x, p.y, p.w, p.h]));
    const el = ctx.canvas.closest('[data-view]').querySelector('.slopes');
    if (el) el.textContent = `slopes m: ${Array.from(slopes, (v, h) => `${h}: ${slopeText(v)} = ${+v.toPrecision(6)}`).join(' · ')}`;
    return {
      plot: panels[0], panels, rows: L, cols: L, min: -m, max: m,
      cellAt: (dx, dy) => panelCellAt(panels, L, L, dx, dy),
      describe: (i, j, c) => {
        const h = c?.head ?? 0;
        const v = bias[h * L * L + i * L + j];
        return `head ${h} (m = ${+slopes[h].toPrecision(6)}) · query i = ${i} · key j = ${j} · bias ${Number.isFinite(v) ? v.toPrecision(6) : '−∞ (masked: j > i)'}`;
      },
    };
  },
};
