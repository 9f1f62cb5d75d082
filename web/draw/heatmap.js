// heatmap.js: paints a rows x cols matrix into a plot rectangle with one
// ImageData write (never a fillRect per cell) and draws its axes and colour bar.
//
// Pixel <-> cell mapping (tests/demo/ use the same rule): in a plot of w
// device pixels, pixel x covers the columns [floor(x * cols / w),
// max(that + 1, floor((x + 1) * cols / w))); rows likewise with h. A pixel
// covering one cell shows that cell; a pixel covering several (a table larger
// than the canvas) shows their mean, a box filter: fast columns fade to the
// neutral colour instead of aliasing into false stripes.
import { SIZE, TABLE } from './colormap.js';
import { drawAxes, drawColorBar, niceTicks } from './axes.js';

// The colour table as little-endian RGBA words, for Uint32Array writes.
const WORDS = new Uint32Array(SIZE);
for (let i = 0; i < SIZE; i++) WORDS[i] = ((255 << 24) | (TABLE[3 * i + 2] << 16) | (TABLE[3 * i + 1] << 8) | TABLE[3 * i]) >>> 0;

/** A matrix source over a typed array, row-major [rows][cols]. */
export function matrixSource(array, rows, cols) {
  return { rows, cols, read: (r0, n, out) => out.set(array.subarray(r0 * cols, (r0 + n) * cols)) };
}

/** First cell index covered by pixel i of n pixels over `cells` cells (i may be n). */
const start = (i, cells, n) => Math.floor((i * cells) / n);

/**
 * Fills plot (device px, integers) from source { rows, cols, read(r0, n, out) }:
 * read writes rows r0 .. r0 + n - 1 into out (a Float32Array of n * cols).
 * Non-finite values (masked attention) take `maskColor` ([r, g, b]).
 */
export function paintCells(ctx, plot, source, min, max, maskColor = [128, 128, 128]) {
  const { rows, cols } = source;
  const { w, h } = plot;
  const img = ctx.createImageData(w, h);
  const px = new Uint32Array(img.data.buffer);
  const mask = ((255 << 24) | (maskColor[2] << 16) | (maskColor[1] << 8) | maskColor[0]) >>> 0;
  const c0 = new Int32Array(w);
  const c1 = new Int32Array(w);
  for (let x = 0; x < w; x++) {
    c0[x] = start(x, cols, w);
    c1[x] = Math.max(c0[x] + 1, start(x + 1, cols, w));
  }
  const wide = cols > w;
  const maxBand = Math.max(1, Math.ceil(rows / h) + 1);
  const buf = new Float32Array(maxBand * cols);
  const prefix = new Float64Array(cols + 1);
  const scale = max > min ? 1 / (max - min) : 0;
  const word = (v) => {
    if (!Number.isFinite(v)) return mask;
    const t = scale ? (v - min) * scale : 0.5;
    return WORDS[Math.round((t < 0 ? 0 : t > 1 ? 1 : t) * (SIZE - 1))];
  };
  let prev = -1;
  let prevEnd = -1;
  for (let y = 0; y < h; y++) {
    const r0 = start(y, rows, h);
    const r1 = Math.max(r0 + 1, start(y + 1, rows, h));
    const line = y * w;
    if (r0 === prev && r1 === prevEnd) {
      px.copyWithin(line, line - w, line); // same rows as the pixel row above
      continue;
    }
    prev = r0;
    prevEnd = r1;
    const band = r1 - r0;
    source.read(r0, band, buf.subarray(0, band * cols));
    if (band === 1 && !wide) {
      for (let x = 0; x < w; x++) px[line + x] = word(buf[c0[x]]);
      continue;
    }
    // Mean over the band's rows and each pixel's columns, through column prefix sums.
    for (let c = 0; c < cols; c++) {
      let s = 0;
      for (let r = 0; r < band; r++) s += buf[r * cols + c];
      prefix[c + 1] = prefix[c] + s;
    }
    for (let x = 0; x < w; x++) px[line + x] = word((prefix[c1[x]] - prefix[c0[x]]) / ((c1[x] - c0[x]) * band));
  }
  ctx.putImageData(img, plot.x, plot.y);
}

/**
 * The plot rectangle (device px, integers) for rows x cols inside a canvas of
 * width x height CSS px with `margin` (CSS px). Cells of 4 device px or more
 * get a whole number of pixels each (even cells); `square` makes them square.
 */
export function heatmapLayout({ width, height, dpr, rows, cols, margin, square = false }) {
  const availW = Math.max(1, Math.floor((width - margin.left - margin.right) * dpr));
  const availH = Math.max(1, Math.floor((height - margin.top - margin.bottom) * dpr));
  let w = availW;
  let h = availH;
  if (square) w = h = Math.min(availW, availH);
  const cw = Math.floor(w / cols);
  const ch = Math.floor(h / rows);
  if (square && Math.min(cw, ch) >= 4) {
    w = Math.min(cw, ch) * cols;
    h = Math.min(cw, ch) * rows;
  } else {
    if (cw >= 4) w = cw * cols;
    if (ch >= 4) h = ch * rows;
  }
  const x = Math.round(margin.left * dpr) + Math.floor((availW - w) / 2);
  const y = Math.round(margin.top * dpr) + Math.floor((availH - h) / 2);
  return { x, y, w, h };
}

/** The cell under a device pixel of the canvas, or null outside the plot. */
export function cellAt(plot, rows, cols, dx, dy) {
  const x = Math.floor(dx) - plot.x;
  const y = Math.floor(dy) - plot.y;
  if (x < 0 || y < 0 || x >= plot.w || y >= plot.h) return null;
  return { row: start(y, rows, plot.h), col: start(x, cols, plot.w) };
}

/**
 * A square panel of `side` CSS px at (x, y) CSS px for cells x cells, in device pixels: whole
 * device pixels per cell when that loses little room (15% at most; the snapped square is
 * centred in the box), else cells of uneven pixels. Used by the views of attention heads.
 */
export function snapPanel(x, y, side, cells, dpr) {
  const full = Math.floor(side * dpr);
  const cell = Math.floor(full / cells);
  const w = cell >= 1 && cell * cells >= 0.85 * full ? cell * cells : full;
  const shift = Math.floor((full - w) / 2);
  return { x: Math.round(x * dpr) + shift, y: Math.round(y * dpr) + shift, w, h: w };
}

/**
 * Paints a cells x cells matrix (row-major `matrix`) into a panel from snapPanel, between
 * plot.min and plot.max, frames it, and leaves the context set for its title (11 px,
 * centred, on the baseline's bottom): the caller writes the title where its layout wants it.
 */
export function paintPanel(ctx, t, plot, dpr, matrix, cells) {
  const read = (r0, n, out) => out.set(matrix.subarray(r0 * cells, (r0 + n) * cells));
  paintCells(ctx, plot, { rows: cells, cols: cells, read }, plot.min, plot.max);
  ctx.strokeStyle = t.grid;
  ctx.lineWidth = 1;
  ctx.strokeRect(plot.x / dpr - 0.5, plot.y / dpr - 0.5, plot.w / dpr + 1, plot.h / dpr + 1);
  ctx.fillStyle = t.fg;
  ctx.font = `11px ${t.font}`;
  ctx.textAlign = 'center';
  ctx.textBaseline = 'bottom';
}

/** The cell under (dx, dy) in any of several same-size panels (one per head), with `head` and its `plot`. */
export function panelCellAt(panels, rows, cols, dx, dy) {
  for (let h = 0; h < panels.length; h++) {
    const c = cellAt(panels[h], rows, cols, dx, dy);
    if (c) return { ...c, head: h, plot: panels[h] };
  }
  return null;
}

/**
 * A complete figure: cells, axes, colour bar. opts: { rows, cols, read, min,
 * max, title, xLabel, yLabel, barLabel, integer, square, margin, rowTick,
 * colTick (cell index -> label value), maskColor }. Records the geometry on
 * the canvas (data-plot, data-rows, data-cols, data-min, data-max) for tests
 * and returns { plot, dpr }.
 */
export function drawHeatmapFigure(ctx, t, size, opts) {
  const { width, height, dpr } = size;
  const narrow = width < 480;
  const margin = opts.margin ?? { left: narrow ? 44 : 62, right: narrow ? 64 : 86, top: 34, bottom: 46 };
  const plot = heatmapLayout({ width, height, dpr, rows: opts.rows, cols: opts.cols, margin, square: opts.square });
  paintCells(ctx, plot, opts, opts.min, opts.max, opts.maskColor);
  const css = { x: plot.x / dpr, y: plot.y / dpr, w: plot.w / dpr, h: plot.h / dpr };
  const colAt = (c) => css.x + ((c + 0.5) * css.w) / opts.cols;
  const rowAt = (r) => css.y + ((r + 0.5) * css.h) / opts.rows;
  const xTicks = niceTicks(0, opts.cols - 1, Math.max(2, Math.floor(css.w / 70)), true);
  const yTicks = niceTicks(0, opts.rows - 1, Math.max(2, Math.floor(css.h / 45)), true);
  drawAxes(ctx, t, css, {
    title: opts.title,
    x: { ticks: xTicks, at: colAt, label: opts.xLabel, format: opts.colTick && ((c) => String(opts.colTick(c)).replace('-', '−')) },
    y: { ticks: yTicks, at: rowAt, label: opts.yLabel, format: opts.rowTick && ((r) => String(opts.rowTick(r)).replace('-', '−')), labelGap: narrow ? 32 : 44 },
  });
  const bar = { x: plot.x + plot.w + Math.round(14 * dpr), y: plot.y, w: Math.round(12 * dpr), h: plot.h };
  drawColorBar(ctx, t, dpr, bar, opts.min, opts.max, opts.barLabel, opts.integer);
  return { plot, dpr };
}

/** Writes a figure's geometry onto its canvas, the contract tests read. */
export function recordGeometry(canvas, plot, { rows, cols, min, max }) {
  Object.assign(canvas.dataset, { plot: [plot.x, plot.y, plot.w, plot.h].join(','), rows, cols, min, max });
}
