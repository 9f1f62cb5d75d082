// length-plot.js: a measure against the evaluation length n, one curve per
// series, on a log2 x axis (n = 8 ... 256 at their true places: 48 sits
// between 32 and 64 where log2 puts it), with the training range shaded, an
// optional reference line (chance, or a uniform guess's loss), and a series'
// band (a range per n) shaded under its line and named in the legend. Each
// computed point is a disk on a ring of the background, so its centre pixel
// has the series' colour even where lines cross it. The geometry is recorded
// on the canvas (data-plot; data-x-scale 'log2', data-ns, data-x-pad;
// data-y-min/max; data-series; data-reference; data-legend, each entry's
// swatch; data-x-min/max are the first
// and last index of ns, the read-out's range) for tests to find where each
// point must be.
import { drawAxes } from './axes.js';

export const RADIUS = 3.5; // CSS px
/** The y axis of a share (accuracy): 0 to 105% (room above 100% for the disks). */
export const SHARE = Object.freeze({ max: 1.05, ticks: [0, 0.2, 0.4, 0.6, 0.8, 1], format: (v) => `${Math.round(v * 100)}%` });

/** Legend items ({ w: CSS px }) in rows that fit a plot `width` wide, 14 px between items. */
export function legendRows(items, width) {
  const rows = [];
  let row = [];
  let used = 0;
  for (const it of items) {
    if (row.length && used + it.w + 14 > width - 16) {
      rows.push(row);
      row = [];
      used = 0;
    }
    row.push(it);
    used += it.w + 14;
  }
  if (row.length) rows.push(row);
  return rows;
}

/**
 * ns: the n values (increasing, > 0); series: [{ label, color, values: (number | undefined)[] per n,
 * dash?, markers?, band?: { lo: number[], hi: number[] } per n }];
 * trainMax: the last trained n; y: { max, ticks, format, label } (default SHARE, 'token accuracy');
 * reference: { value, label } or null: a dashed horizontal line; bandNote: the legend's words for the bands.
 * Returns { plot (device px), xAt(i) -> the CSS px of ns[i], xOf(px) -> the index of the nearest n (CSS px) }.
 */
export function drawLengthPlot(ctx, t, size, { ns, series, trainMax, y = { ...SHARE, label: 'token accuracy' }, reference = null, title, bandNote = 'band: lowest to highest of the training seeds' }) {
  const { width, height, dpr } = size;
  const narrow = width < 480;
  ctx.save();
  ctx.font = `12px ${t.font}`;
  // the legend under the axis label, wrapped to the width; the bands get an entry of their own
  const banded = series.some((s) => s.band);
  // a narrow plot names the bands by their first words (up to the comma)
  if (narrow) bandNote = bandNote.replace(/,.*$/, ': lowest to highest');
  const items = [...series.map((s) => ({ s, w: 30 + ctx.measureText(s.label).width })), ...(banded ? [{ band: true, w: 30 + ctx.measureText(bandNote).width }] : [])];
  const rows = legendRows(items, width);
  const legendH = rows.length * 18 + 4;
  const m = { left: narrow ? 52 : 58, right: 12, top: title ? 30 : 10, bottom: 44 + legendH };
  const plot = {
    x: Math.round(m.left * dpr), y: Math.round(m.top * dpr),
    w: Math.max(1, Math.floor((width - m.left - m.right) * dpr)), h: Math.max(1, Math.floor((height - m.top - m.bottom) * dpr)),
  };
  const css = { x: plot.x / dpr, y: plot.y / dpr, w: plot.w / dpr, h: plot.h / dpr };
  const pad = Math.round(Math.min(28, css.w / 20) * dpr) / dpr;
  const [lo, hi] = [Math.log2(ns[0]), Math.log2(ns[ns.length - 1])];
  const xAt = (n) => css.x + pad + ((Math.log2(n) - lo) / (hi - lo)) * (css.w - 2 * pad);
  const yAt = (v) => css.y + (1 - v / y.max) * css.h;
  const alpha = t.dark ? 0.22 : 0.14;

  // the training range, then the grid, the frame and the reference line
  ctx.fillStyle = t.grid;
  ctx.globalAlpha = t.dark ? 0.45 : 0.5;
  ctx.fillRect(css.x, css.y, xAt(trainMax) - css.x, css.h);
  ctx.globalAlpha = 1;
  ctx.strokeStyle = t.grid;
  ctx.lineWidth = 1;
  ctx.beginPath();
  for (const v of y.ticks) {
    ctx.moveTo(css.x, Math.round(yAt(v)) + 0.5);
    ctx.lineTo(css.x + css.w, Math.round(yAt(v)) + 0.5);
  }
  ctx.stroke();
  ctx.strokeStyle = t.muted;
  ctx.strokeRect(css.x + 0.5, css.y + 0.5, css.w - 1, css.h - 1);
  ctx.fillStyle = t.muted;
  ctx.font = `11px ${t.font}`;
  if (reference) {
    ctx.setLineDash([5, 4]);
    ctx.beginPath();
    ctx.moveTo(css.x, yAt(reference.value));
    ctx.lineTo(css.x + css.w, yAt(reference.value));
    ctx.stroke();
    ctx.setLineDash([]);
    // labelled at the left, in the training range, where the curves are at 100% (or a loss near 0)
    ctx.textAlign = 'left';
    ctx.textBaseline = 'bottom';
    ctx.fillText(reference.label, css.x + 4, yAt(reference.value) - 2);
  }
  ctx.textAlign = 'left';
  ctx.textBaseline = 'top';
  ctx.fillText(narrow ? `trained n ≤ ${trainMax}` : `trained on n ≤ ${trainMax}`, css.x + 4, css.y + 4);

  // the lines, clipped to the plot (the disks come after the axes); under them each
  // series' band, from band.lo to band.hi per n, translucent in the series' colour
  ctx.beginPath();
  ctx.rect(css.x, css.y, css.w, css.h);
  ctx.clip();
  ctx.globalAlpha = alpha;
  for (const s of series) {
    if (!s.band) continue;
    ctx.fillStyle = s.color;
    ctx.beginPath();
    s.band.hi.forEach((v, i) => ctx.lineTo(xAt(ns[i]), yAt(v)));
    for (let i = s.band.lo.length - 1; i >= 0; i--) ctx.lineTo(xAt(ns[i]), yAt(s.band.lo[i]));
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
      if (pen) ctx.lineTo(xAt(ns[i]), yAt(v));
      else ctx.moveTo(xAt(ns[i]), yAt(v));
      pen = true;
    });
    ctx.stroke();
  }
  ctx.setLineDash([]);
  ctx.restore();

  // every n gets a tick; on a narrow plot only the powers of two are labelled (48, 96, 192 would collide)
  const label = (n) => (narrow && (n & (n - 1)) !== 0 ? '' : String(n));
  drawAxes(ctx, t, css, {
    title,
    x: { ticks: ns, at: xAt, format: label, label: narrow ? 'n (log scale)' : 'n, the symbols of the source (log scale; a sequence is 2n + 2 tokens)' },
    y: { ticks: y.ticks, at: yAt, format: y.format, label: y.label, labelGap: narrow ? 42 : 46 },
  });

  // every disk over the lines and the axes, unclipped: a score of exactly 0 sits on the bottom edge
  ctx.save();
  for (const s of series) {
    if (s.markers === false) continue;
    s.values.forEach((v, i) => {
      if (v === undefined) return;
      ctx.fillStyle = t.bg;
      ctx.beginPath();
      ctx.arc(xAt(ns[i]), yAt(v), RADIUS + 1.5, 0, 2 * Math.PI);
      ctx.fill();
      ctx.fillStyle = s.color;
      ctx.beginPath();
      ctx.arc(xAt(ns[i]), yAt(v), RADIUS, 0, 2 * Math.PI);
      ctx.fill();
    });
  }
  ctx.restore();

  // the legend: a line (and disk) per series over its band's tint when it has one; then the bands' entry
  ctx.save();
  ctx.font = `12px ${t.font}`;
  ctx.textBaseline = 'middle';
  const legend = []; // each entry's swatch (device px), for tests
  rows.forEach((r, j) => {
    const ly = css.y + css.h + 44 + 9 + j * 18;
    let x = Math.max(8, (width - r.reduce((a, it) => a + it.w + 14, -14)) / 2);
    for (const it of r) {
      const { s } = it;
      legend.push({ label: it.band ? bandNote : s.label, band: Boolean(it.band || s.band), x: Math.round(x * dpr), y: Math.round((ly - 6) * dpr), w: Math.round(20 * dpr), h: Math.round(12 * dpr) });
      if (it.band || s.band) {
        ctx.globalAlpha = alpha;
        ctx.fillStyle = it.band ? t.muted : s.color;
        ctx.fillRect(x, ly - 6, 20, 12);
        ctx.globalAlpha = 1;
      }
      if (!it.band) {
        ctx.strokeStyle = s.color;
        ctx.lineWidth = 2;
        ctx.setLineDash(s.dash ?? []);
        ctx.beginPath();
        ctx.moveTo(x, ly);
        ctx.lineTo(x + 20, ly);
        ctx.stroke();
        ctx.setLineDash([]);
        if (s.markers !== false) {
          ctx.fillStyle = s.color;
          ctx.beginPath();
          ctx.arc(x + 10, ly, RADIUS, 0, 2 * Math.PI);
          ctx.fill();
        }
      }
      ctx.fillStyle = t.fg;
      ctx.fillText(it.band ? bandNote : s.label, x + 26, ly);
      x += it.w + 14;
    }
  });
  ctx.restore();

  Object.assign(ctx.canvas.dataset, {
    xScale: 'log2', ns: JSON.stringify(ns), title: title ?? '', xMin: 0, xMax: ns.length - 1, xPad: String(pad * dpr), yMin: 0, yMax: y.max,
    reference: JSON.stringify(reference && { value: reference.value, label: reference.label }),
    legend: JSON.stringify(legend),
    series: JSON.stringify(series.map((s) => ({ label: s.label, color: s.color, markers: s.markers !== false, band: s.band ?? null }))),
  });
  // the read-out follows the nearest n
  const xOf = (px) => {
    let best = 0;
    ns.forEach((n, i) => {
      if (Math.abs(xAt(n) - px) < Math.abs(xAt(ns[best]) - px)) best = i;
    });
    return best;
  };
  return { plot, xAt: (i) => xAt(ns[i]), xOf };
}
