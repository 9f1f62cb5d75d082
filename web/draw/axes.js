// axes.js: ticks, axis labels, titles and the colour bar, drawn with the 2D
// context in CSS pixels around a plot rectangle. Shared by heatmaps and lines.
import { SIZE, TABLE } from './colormap.js';

/** Round tick values (1, 2, 5 times a power of ten) covering [min, max], about `count` of them. */
export function niceTicks(min, max, count = 6, integer = false) {
  if (!(max > min)) return [min];
  let step = (max - min) / Math.max(1, count);
  const p = 10 ** Math.floor(Math.log10(step));
  step = [1, 2, 5, 10].map((m) => m * p).find((s) => s >= step) ?? 10 * p;
  if (integer) step = Math.max(1, Math.round(step));
  const ticks = [];
  for (let v = Math.ceil(min / step - 1e-9) * step; v <= max + step * 1e-9; v += step) ticks.push(Math.abs(v) < step * 1e-9 ? 0 : v);
  return ticks;
}

/** A tick label: integers plainly, others with as few digits as the step needs. */
export function tickLabel(v, ticks) {
  if (Number.isInteger(v) && Math.abs(v) < 1e6) return String(v).replace('-', '−');
  const step = ticks.length > 1 ? Math.abs(ticks[1] - ticks[0]) : Math.abs(v) || 1;
  const digits = Math.max(0, Math.min(6, -Math.floor(Math.log10(step) + 1e-9)));
  const text = Math.abs(v) >= 1e6 || (v !== 0 && Math.abs(v) < 1e-4) ? v.toExponential(1) : v.toFixed(digits);
  return text.replace('-', '−');
}

function font(t, size, weight = '') {
  return `${weight} ${size}px ${t.font}`.trim();
}

/**
 * Draws ticks and labels around `rect` (CSS px). x and y are
 * { ticks, at(v) -> px, label, format? }; `title` goes above.
 */
export function drawAxes(ctx, t, rect, { x, y, title }) {
  ctx.save();
  ctx.fillStyle = t.fg;
  ctx.strokeStyle = t.muted;
  ctx.lineWidth = 1;
  ctx.font = font(t, 11);
  const fmt = (axis, v) => (axis.format ? axis.format(v) : tickLabel(v, axis.ticks));
  ctx.textAlign = 'center';
  ctx.textBaseline = 'top';
  for (const v of x.ticks) {
    const px = x.at(v);
    ctx.beginPath();
    ctx.moveTo(px, rect.y + rect.h);
    ctx.lineTo(px, rect.y + rect.h + 4);
    ctx.stroke();
    ctx.fillText(fmt(x, v), px, rect.y + rect.h + 6);
  }
  ctx.textAlign = 'right';
  ctx.textBaseline = 'middle';
  for (const v of y.ticks) {
    const py = y.at(v);
    ctx.beginPath();
    ctx.moveTo(rect.x - 4, py);
    ctx.lineTo(rect.x, py);
    ctx.stroke();
    ctx.fillText(fmt(y, v), rect.x - 6, py);
  }
  ctx.font = font(t, 12);
  ctx.textAlign = 'center';
  ctx.textBaseline = 'bottom';
  if (x.label) ctx.fillText(x.label, rect.x + rect.w / 2, rect.y + rect.h + 36);
  if (y.label) {
    ctx.save();
    ctx.translate(rect.x - (y.labelGap ?? 40), rect.y + rect.h / 2);
    ctx.rotate(-Math.PI / 2);
    ctx.fillText(y.label, 0, 0);
    ctx.restore();
  }
  if (title) {
    // shrink a long title to the canvas width (narrow phones) rather than clip it
    const room = ctx.canvas.width / ctx.getTransform().a - 8;
    let size = 14;
    ctx.font = font(t, size, '600');
    while (size > 10 && ctx.measureText(title).width > room) ctx.font = font(t, --size, '600');
    while (title.length > 8 && ctx.measureText(title).width > room) title = `${title.slice(0, -2).trimEnd()}…`;
    const half = ctx.measureText(title).width / 2;
    const cx = Math.min(Math.max(rect.x + rect.w / 2, 4 + half), room + 4 - half);
    ctx.textBaseline = 'bottom';
    ctx.fillText(title, cx, rect.y - 10);
  }
  ctx.restore();
}

/** The width of the widest label among values, in CSS px. */
export function labelWidth(ctx, t, labels) {
  ctx.save();
  ctx.font = font(t, 11);
  const w = Math.max(0, ...labels.map((s) => ctx.measureText(s).width));
  ctx.restore();
  return w;
}

/**
 * A vertical colour bar at `bar` (device px, integers) for the scale [min,
 * max] (or the fraction `part` of it), with ticks and a rotated label. Drawn
 * with ImageData from the same table as the heatmap, top = max.
 */
export function drawColorBar(ctx, t, dpr, bar, min, max, label, integer = false, part = [0, 1]) {
  // part: the fraction of the scale shown (ALiBi's biases use only its lower half)
  const [p0, p1] = part;
  [min, max] = [min + p0 * (max - min), min + p1 * (max - min)];
  const img = ctx.createImageData(bar.w, bar.h);
  const px = new Uint32Array(img.data.buffer);
  for (let y = 0; y < bar.h; y++) {
    const i = Math.round((p0 + (1 - y / Math.max(1, bar.h - 1)) * (p1 - p0)) * (SIZE - 1));
    const c = (255 << 24) | (TABLE[3 * i + 2] << 16) | (TABLE[3 * i + 1] << 8) | TABLE[3 * i];
    px.fill(c, y * bar.w, (y + 1) * bar.w);
  }
  ctx.putImageData(img, bar.x, bar.y);
  const r = { x: bar.x / dpr, y: bar.y / dpr, w: bar.w / dpr, h: bar.h / dpr };
  ctx.save();
  ctx.strokeStyle = t.muted;
  ctx.fillStyle = t.fg;
  ctx.lineWidth = 1;
  ctx.font = font(t, 11);
  ctx.textAlign = 'left';
  ctx.textBaseline = 'middle';
  const ticks = niceTicks(min, max, Math.max(2, Math.floor(r.h / 40)), integer);
  let widest = 0;
  for (const v of ticks) {
    const y = r.y + r.h - ((v - min) / (max - min || 1)) * r.h;
    ctx.beginPath();
    ctx.moveTo(r.x + r.w, y);
    ctx.lineTo(r.x + r.w + 4, y);
    ctx.stroke();
    const text = tickLabel(v, ticks);
    widest = Math.max(widest, ctx.measureText(text).width);
    ctx.fillText(text, r.x + r.w + 6, y);
  }
  ctx.font = font(t, 12);
  ctx.textAlign = 'center';
  ctx.textBaseline = 'top';
  ctx.translate(r.x + r.w + 12 + widest, r.y + r.h / 2);
  ctx.rotate(-Math.PI / 2);
  ctx.fillText(label, 0, 0);
  ctx.restore();
}
