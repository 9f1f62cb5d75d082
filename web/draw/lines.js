// lines.js: a line plot (value against position) with a legend, for the
// dimension curves and the RoPE scaling curves. Geometry is recorded on the
// canvas (data-plot in device px, data-x-min/max, data-y-min/max, data-colors)
// so tests can find where a point must be drawn.
import { drawAxes, niceTicks } from './axes.js';

/** matplotlib's tab10 (the labml figure's colours), in order. */
export const PALETTE = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];
/** Lighter twins for the dark theme, same hues. */
export const PALETTE_DARK = ['#5aa9e6', '#ffa04d', '#5fd35f', '#ff6b6b', '#b99be0', '#c49a8f', '#f3a6da', '#b0b0b0', '#dede4a', '#4fd8e8'];

/**
 * Draws series [{ label, color, x: number[] | null, y: ArrayLike<number>, dash?, width?, alpha?, legend? }]
 * (x defaults to 0, 1, 2, ...) into a canvas of `size` (CSS px) with
 * opts { xMin, xMax, yMin, yMax, xLabel, yLabel, title, marks?, box? }:
 * marks are vertical reference lines [{ x, label }].
 * @returns {{ plot: {x,y,w,h} (device px), xAt, yAt, xOf }}
 */
export function drawLines(ctx, t, size, series, opts) {
  const { dpr } = size;
  // opts.box: the part of the canvas to use (CSS px), by default all of it
  const box = opts.box ?? { x: 0, y: 0, w: size.width, h: size.height };
  const { w: width, h: height } = box;
  const narrow = width < 480;
  const m = { left: box.x + (narrow ? 46 : 60), right: 14, top: box.y + (opts.title ? 34 : 14), bottom: 46 };
  const plot = {
    x: Math.round(m.left * dpr), y: Math.round(m.top * dpr),
    w: Math.max(1, Math.floor((box.x + width - m.left - m.right) * dpr)), h: Math.max(1, Math.floor((box.y + height - m.top - m.bottom) * dpr)),
  };
  const css = { x: plot.x / dpr, y: plot.y / dpr, w: plot.w / dpr, h: plot.h / dpr };
  const { xMin, xMax, yMin, yMax } = opts;
  const xAt = (v) => css.x + ((v - xMin) / (xMax - xMin || 1)) * css.w;
  const yAt = (v) => css.y + (1 - (v - yMin) / (yMax - yMin || 1)) * css.h;
  const xTicks = niceTicks(xMin, xMax, Math.max(2, Math.floor(css.w / 80)));
  const yTicks = niceTicks(yMin, yMax, Math.max(2, Math.floor(css.h / 50)));

  ctx.save();
  ctx.strokeStyle = t.grid;
  ctx.lineWidth = 1;
  ctx.beginPath();
  for (const v of yTicks) {
    ctx.moveTo(css.x, Math.round(yAt(v)) + 0.5);
    ctx.lineTo(css.x + css.w, Math.round(yAt(v)) + 0.5);
  }
  for (const v of xTicks) {
    ctx.moveTo(Math.round(xAt(v)) + 0.5, css.y);
    ctx.lineTo(Math.round(xAt(v)) + 0.5, css.y + css.h);
  }
  ctx.stroke();
  ctx.strokeStyle = t.muted;
  ctx.strokeRect(css.x + 0.5, css.y + 0.5, css.w - 1, css.h - 1);
  for (const mark of opts.marks ?? []) {
    ctx.setLineDash([4, 4]);
    ctx.beginPath();
    ctx.moveTo(xAt(mark.x), css.y);
    ctx.lineTo(xAt(mark.x), css.y + css.h);
    ctx.stroke();
    ctx.setLineDash([]);
    ctx.fillStyle = t.muted;
    ctx.font = `11px ${t.font}`;
    ctx.textAlign = 'left';
    ctx.textBaseline = 'top';
    ctx.fillText(mark.label, xAt(mark.x) + 4, css.y + 4);
  }
  ctx.restore();

  ctx.save();
  ctx.beginPath();
  ctx.rect(css.x, css.y, css.w, css.h);
  ctx.clip();
  ctx.lineJoin = 'round';
  for (const s of series) {
    ctx.lineWidth = s.width ?? opts.lineWidth ?? 2;
    ctx.globalAlpha = s.alpha ?? 1;
    ctx.strokeStyle = s.color;
    ctx.setLineDash(s.dash ?? []);
    ctx.beginPath();
    for (const [i, j] of m4(s.y.length, s.x, xAt, css.w * dpr, s.y)) {
      const px = xAt(s.x ? s.x[i] : i);
      const py = yAt(s.y[i]);
      if (j === 0) ctx.moveTo(px, py);
      else ctx.lineTo(px, py);
    }
    ctx.stroke();
  }
  ctx.restore();

  drawAxes(ctx, t, css, { title: opts.title, x: { ticks: xTicks, at: xAt, label: opts.xLabel }, y: { ticks: yTicks, at: yAt, label: opts.yLabel, labelGap: narrow ? 34 : 46 } });
  const legend = drawLegend(ctx, t, css, series.filter((s) => s.legend !== false));
  // the legend box in device px: points under it are hidden (tests skip them)
  if (!opts.box) ctx.canvas.dataset.legend = [legend.x, legend.y, legend.w, legend.h].map((v) => Math.round(v * dpr)).join(',');
  return { plot, xAt, yAt, xOf: (px) => xMin + ((px - css.x) / css.w) * (xMax - xMin) };
}

/**
 * The points worth drawing, as [index, order] pairs: all of them when there
 * are fewer than two per device pixel; otherwise, per pixel column, the
 * first, lowest, highest and last (M4 aggregation, Jugel et al. 2014), which
 * rasterizes to the same line with a fraction of the path.
 */
function* m4(n, xs, xAt, pixels, y) {
  if (n <= 2 * pixels) {
    for (let i = 0; i < n; i++) yield [i, i];
    return;
  }
  let k = 0;
  let i = 0;
  const x0 = xAt(xs ? xs[0] : 0);
  const scale = pixels / Math.max(1e-9, xAt(xs ? xs[n - 1] : n - 1) - x0);
  while (i < n) {
    const col = Math.floor((xAt(xs ? xs[i] : i) - x0) * scale);
    let lo = i;
    let hi = i;
    let j = i;
    while (j + 1 < n && Math.floor((xAt(xs ? xs[j + 1] : j + 1) - x0) * scale) === col) {
      j++;
      if (y[j] < y[lo]) lo = j;
      if (y[j] > y[hi]) hi = j;
    }
    for (const idx of [...new Set([i, Math.min(lo, hi), Math.max(lo, hi), j])]) yield [idx, k++];
    i = j + 1;
  }
}

// The legend: top right, inside the plot, on the plot's background.
function drawLegend(ctx, t, css, series) {
  ctx.save();
  ctx.font = `12px ${t.font}`;
  const rowH = 17;
  const w = 34 + Math.max(...series.map((s) => ctx.measureText(s.label).width));
  const h = series.length * rowH + 8;
  const x = css.x + css.w - w - 8;
  const y = css.y + 8;
  ctx.globalAlpha = 0.88;
  ctx.fillStyle = t.bg;
  ctx.fillRect(x, y, w, h);
  ctx.globalAlpha = 1;
  ctx.strokeStyle = t.grid;
  ctx.strokeRect(x + 0.5, y + 0.5, w - 1, h - 1);
  ctx.textBaseline = 'middle';
  series.forEach((s, i) => {
    const cy = y + 4 + rowH * i + rowH / 2;
    ctx.strokeStyle = s.color;
    ctx.lineWidth = 2;
    ctx.setLineDash(s.dash ?? []);
    ctx.beginPath();
    ctx.moveTo(x + 6, cy);
    ctx.lineTo(x + 24, cy);
    ctx.stroke();
    ctx.fillStyle = t.fg;
    ctx.fillText(s.label, x + 29, cy);
  });
  ctx.restore();
  return { x, y, w, h };
}
