// accuracy-plot.js: accuracy against the evaluation length n, one curve per
// series, on a categorical x axis (the n values evenly spaced), with the
// training range shaded and chance marked, and a series' band (a range per
// n) shaded under its line. Each computed point is a disk on a
// ring of the background, so its centre pixel has the series' colour even
// where lines cross it. The geometry is recorded on the canvas (data-plot,
// data-x-min/max = category indices, data-x-pad, data-y-min/max,
// data-series) for tests to find where each point must be.
import { drawAxes } from './axes.js';

export const Y_MAX = 1.05; // room above 100% for the disks
export const RADIUS = 3.5; // CSS px

/**
 * ns: the n values; series: [{ label, color, values: (number | undefined)[] per n, dash?, markers?,
 * band?: { lo: number[], hi: number[] } per n }];
 * trainMax: the last trained n; chance: the chance level; yLabel: the score (default 'token accuracy').
 * Returns { plot (device px), xAt(i), xOf(px) (CSS px) }.
 */
export function drawAccuracy(ctx, t, size, { ns, series, trainMax, chance, title, yLabel = 'token accuracy' }) {
  const { width, height, dpr } = size;
  const narrow = width < 480;
  ctx.save();
  ctx.font = `12px ${t.font}`;
  // the legend under the axis label, wrapped to the width
  const items = series.map((s) => ({ s, w: 30 + ctx.measureText(s.label).width }));
  const rows = [];
  let row = [];
  let used = 0;
  const room = width - 16;
  for (const it of items) {
    if (row.length && used + it.w + 14 > room) {
      rows.push(row);
      row = [];
      used = 0;
    }
    row.push(it);
    used += it.w + 14;
  }
  if (row.length) rows.push(row);
  const legendH = rows.length * 18 + 4;
  const m = { left: narrow ? 52 : 58, right: 12, top: title ? 30 : 10, bottom: 44 + legendH };
  const plot = {
    x: Math.round(m.left * dpr), y: Math.round(m.top * dpr),
    w: Math.max(1, Math.floor((width - m.left - m.right) * dpr)), h: Math.max(1, Math.floor((height - m.top - m.bottom) * dpr)),
  };
  const css = { x: plot.x / dpr, y: plot.y / dpr, w: plot.w / dpr, h: plot.h / dpr };
  const pad = Math.round(Math.min(28, css.w / (2 * ns.length)) * dpr) / dpr;
  const last = ns.length - 1;
  const xAt = (i) => css.x + pad + (i / last) * (css.w - 2 * pad);
  const yAt = (v) => css.y + (1 - v / Y_MAX) * css.h;

  // the training range, then the grid, the frame and chance
  const k = ns.lastIndexOf(ns.filter((n) => n <= trainMax).pop());
  ctx.fillStyle = t.grid;
  ctx.globalAlpha = t.dark ? 0.45 : 0.5;
  ctx.fillRect(css.x, css.y, xAt(k) - css.x, css.h);
  ctx.globalAlpha = 1;
  ctx.strokeStyle = t.grid;
  ctx.lineWidth = 1;
  ctx.beginPath();
  const yTicks = [0, 0.2, 0.4, 0.6, 0.8, 1];
  for (const v of yTicks) {
    ctx.moveTo(css.x, Math.round(yAt(v)) + 0.5);
    ctx.lineTo(css.x + css.w, Math.round(yAt(v)) + 0.5);
  }
  ctx.stroke();
  ctx.strokeStyle = t.muted;
  ctx.strokeRect(css.x + 0.5, css.y + 0.5, css.w - 1, css.h - 1);
  ctx.setLineDash([5, 4]);
  ctx.beginPath();
  ctx.moveTo(css.x, yAt(chance));
  ctx.lineTo(css.x + css.w, yAt(chance));
  ctx.stroke();
  ctx.setLineDash([]);
  ctx.fillStyle = t.muted;
  ctx.font = `11px ${t.font}`;
  // chance is labelled at the left, in the training range, where every curve is near 100%
  ctx.textAlign = 'left';
  ctx.textBaseline = 'bottom';
  ctx.fillText(`chance 1/${Math.round(1 / chance)}`, css.x + 4, yAt(chance) - 2);
  // the range's label halfway down, clear of the points (all near 100% there)
  ctx.textBaseline = 'middle';
  ctx.fillText(narrow ? `trained n ≤ ${trainMax}` : `trained on n ≤ ${trainMax}`, css.x + 4, yAt(0.5));

  // the lines, clipped to the plot (the disks come after the axes); under them each
  // series' band, from band.lo to band.hi per n, translucent in the series' colour
  ctx.beginPath();
  ctx.rect(css.x, css.y, css.w, css.h);
  ctx.clip();
  ctx.globalAlpha = t.dark ? 0.22 : 0.14;
  for (const s of series) {
    if (!s.band) continue;
    ctx.fillStyle = s.color;
    ctx.beginPath();
    s.band.hi.forEach((v, i) => ctx.lineTo(xAt(i), yAt(v)));
    for (let i = s.band.lo.length - 1; i >= 0; i--) ctx.lineTo(xAt(i), yAt(s.band.lo[i]));
    ctx.closePath();
    ctx.fill();
  }
  ctx.globalAlpha = 1;
  ctx.lineJoin = 'round';
  for (const s of series) {
    ctx.strokeStyle = s.color;
    ctx.lineWidth = s.dash ? 1.5 : 2;
    ctx.setLineDash(s.dash ?? []);
    ctx.beginPath();
    let pen = false;
    s.values.forEach((v, i) => {
      if (v === undefined) return void (pen = false);
      if (pen) ctx.lineTo(xAt(i), yAt(v));
      else ctx.moveTo(xAt(i), yAt(v));
      pen = true;
    });
    ctx.stroke();
  }
  ctx.setLineDash([]);
  ctx.restore();

  drawAxes(ctx, t, css, {
    title,
    x: { ticks: ns.map((_, i) => i), at: xAt, format: (i) => String(ns[i]), label: narrow ? 'n, the symbols to copy' : 'n, the symbols to copy (a sequence is 2n + 2 tokens)' },
    y: { ticks: yTicks, at: yAt, format: (v) => `${Math.round(v * 100)}%`, label: yLabel, labelGap: narrow ? 42 : 46 },
  });

  // every disk over the lines and the axes, unclipped: a score of exactly 0 (greedy exact
  // match far out) sits on the bottom edge, over the x axis' ticks
  ctx.save();
  for (const s of series) {
    if (s.markers === false) continue;
    s.values.forEach((v, i) => {
      if (v === undefined) return;
      ctx.fillStyle = t.bg;
      ctx.beginPath();
      ctx.arc(xAt(i), yAt(v), RADIUS + 1.5, 0, 2 * Math.PI);
      ctx.fill();
      ctx.fillStyle = s.color;
      ctx.beginPath();
      ctx.arc(xAt(i), yAt(v), RADIUS, 0, 2 * Math.PI);
      ctx.fill();
    });
  }
  ctx.restore();

  // the legend
  ctx.save();
  ctx.font = `12px ${t.font}`;
  ctx.textBaseline = 'middle';
  rows.forEach((r, j) => {
    const y = css.y + css.h + 44 + 9 + j * 18;
    let x = Math.max(8, (width - r.reduce((a, it) => a + it.w + 14, -14)) / 2);
    for (const { s, w } of r) {
      ctx.strokeStyle = s.color;
      ctx.lineWidth = 2;
      ctx.setLineDash(s.dash ?? []);
      ctx.beginPath();
      ctx.moveTo(x, y);
      ctx.lineTo(x + 20, y);
      ctx.stroke();
      ctx.setLineDash([]);
      if (s.markers !== false) {
        ctx.fillStyle = s.color;
        ctx.beginPath();
        ctx.arc(x + 10, y, RADIUS, 0, 2 * Math.PI);
        ctx.fill();
      }
      ctx.fillStyle = t.fg;
      ctx.fillText(s.label, x + 26, y);
      x += w + 14;
    }
  });
  ctx.restore();

  Object.assign(ctx.canvas.dataset, {
    xMin: 0, xMax: last, xPad: String(pad * dpr), yMin: 0, yMax: Y_MAX,
    series: JSON.stringify(series.map((s) => ({ label: s.label, color: s.color, markers: s.markers !== false, band: s.band ?? null }))),
  });
  return { plot, xAt, xOf: (px) => ((px - css.x - pad) / (css.w - 2 * pad)) * last };
}
