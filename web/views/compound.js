// views/compound.js: greedy against teacher-forced, for every model of the
// section's task (train/client.js currentTask): one point per model and
// evaluation length n, at (teacher-forced token accuracy, greedy token
// accuracy), torch's figures from web/models/manifest.json (the mean over
// the three training seeds, or one seed's); a model's points are joined in
// the order of n and grow with it. Teacher-forced, the model always reads
// the true tokens; greedy, it reads its own, so one error feeds the next: a
// point below the diagonal is accuracy lost to compounding.
import { choice } from '../state.js';
import { EVAL_NS } from '../models/tasks.js';
import { COLOR_INDEX, MODELS, NAMES } from '../train/models.js';
import { currentTask } from '../train/client.js';
import { SEEDS, figures, followManifest, manifestError, measureTable, seedWords, taskTitle } from '../train/spread.js';
import { drawAxes } from '../draw/axes.js';
import { legendRows } from '../draw/length-plot.js';
import { PALETTE, PALETTE_DARK } from '../draw/lines.js';

/** A point's radius in CSS px: 2 at n = 8, growing with log2 n to 5 at n = 256. */
export const radiusAt = (n) => 2 + (3 * (Math.log2(n) - 3)) / 5;
const TICKS = [0, 0.2, 0.4, 0.6, 0.8, 1];

export default {
  id: 'compound',
  labels: { seed: 'seed' },
  params: { seed: choice(SEEDS, 'mean') },

  attach(el, redraw) {
    followManifest(redraw);
  },

  /** Rows per model: teacher-forced and greedy token accuracy per n. */
  data(s) {
    const task = currentTask();
    const tf = figures(task, 'tokenAccuracy', s.seed);
    const greedy = figures(task, 'greedyTokenAccuracy', s.seed);
    if (!tf) throw new Error('the manifest is still loading');
    const rows = MODELS.filter((key) => tf[key]).flatMap((key) => [['tokenAccuracy', tf[key].values], ['greedyTokenAccuracy', greedy[key].values]].map(([what, v]) => ({ key, what, v })));
    return measureTable(rows, 'measure');
  },

  draw(ctx, t, size, s) {
    if (manifestError()) throw new Error(manifestError());
    const { width, height, dpr } = size;
    const narrow = width < 480;
    const task = currentTask();
    const tf = figures(task, 'tokenAccuracy', s.seed);
    const greedy = figures(task, 'greedyTokenAccuracy', s.seed);
    const palette = t.dark ? PALETTE_DARK : PALETTE;
    // a model missing from the manifest (a partial run) is left out
    const models = MODELS.filter((key) => !tf || tf[key]);
    // the legend under the plot, wrapped
    ctx.font = `12px ${t.font}`;
    const items = models.map((key) => ({ key, w: 22 + ctx.measureText(NAMES[key]).width }));
    const rowsOfLegend = legendRows(items, width);
    const legendH = rowsOfLegend.length * 18 + 4;
    const m = { left: narrow ? 52 : 62, right: 16, top: 30, bottom: 46 + legendH };
    // a square plot, centred
    const side = Math.max(40, Math.min(width - m.left - m.right, height - m.top - m.bottom));
    const left = Math.max(m.left, Math.floor((width - side) / 2));
    const plot = { x: Math.round(left * dpr), y: Math.round(m.top * dpr), w: Math.floor(side * dpr), h: Math.floor(side * dpr) };
    const css = { x: plot.x / dpr, y: plot.y / dpr, w: plot.w / dpr, h: plot.h / dpr };
    const pad = 8;
    const xAt = (v) => css.x + pad + v * (css.w - 2 * pad);
    const yAt = (v) => css.y + css.h - pad - v * (css.h - 2 * pad);

    ctx.save();
    ctx.strokeStyle = t.grid;
    ctx.lineWidth = 1;
    ctx.beginPath();
    for (const v of TICKS) {
      ctx.moveTo(xAt(v), css.y);
      ctx.lineTo(xAt(v), css.y + css.h);
      ctx.moveTo(css.x, yAt(v));
      ctx.lineTo(css.x + css.w, yAt(v));
    }
    ctx.stroke();
    ctx.strokeStyle = t.muted;
    ctx.strokeRect(css.x + 0.5, css.y + 0.5, css.w - 1, css.h - 1);
    ctx.setLineDash([5, 4]);
    ctx.beginPath();
    ctx.moveTo(xAt(0), yAt(0));
    ctx.lineTo(xAt(1), yAt(1));
    ctx.stroke();
    ctx.setLineDash([]);
    ctx.fillStyle = t.muted;
    ctx.font = `11px ${t.font}`;
    ctx.textAlign = 'right';
    ctx.textBaseline = 'bottom';
    ctx.fillText('greedy = teacher-forced', xAt(0.6) - 6, yAt(0.6) - 6);
    ctx.textAlign = 'left';
    ctx.fillText('below: lost to its own errors', xAt(0.42), yAt(0.08));
    ctx.restore();

    const points = [];
    if (tf) {
      // the lines first, then every disk (on a ring of the background) over them
      ctx.save();
      ctx.lineWidth = 1.25;
      for (const key of models) {
        ctx.strokeStyle = palette[COLOR_INDEX[key]];
        ctx.beginPath();
        EVAL_NS.forEach((n, i) => ctx.lineTo(xAt(tf[key].values[i]), yAt(greedy[key].values[i])));
        ctx.stroke();
      }
      models.forEach((key, k) => EVAL_NS.forEach((n, i) => {
        const p = { k, i, x: xAt(tf[key].values[i]), y: yAt(greedy[key].values[i]), r: radiusAt(n) };
        points.push(p);
        ctx.fillStyle = t.bg;
        ctx.beginPath();
        ctx.arc(p.x, p.y, p.r + 1.5, 0, 2 * Math.PI);
        ctx.fill();
        ctx.fillStyle = palette[COLOR_INDEX[key]];
        ctx.beginPath();
        ctx.arc(p.x, p.y, p.r, 0, 2 * Math.PI);
        ctx.fill();
      }));
      ctx.restore();
    }
    const pct = (v) => `${Math.round(v * 100)}%`;
    const seeds = seedWords(s.seed);
    drawAxes(ctx, t, css, {
      title: `${taskTitle(task)}: greedy against teacher-forced (${seeds}, torch)`,
      x: { ticks: TICKS, at: xAt, format: pct, label: 'teacher-forced token accuracy' },
      y: { ticks: TICKS, at: yAt, format: pct, label: 'greedy token accuracy', labelGap: narrow ? 40 : 46 },
    });
    // the legend; the disks grow with n (8 to 256)
    ctx.save();
    ctx.font = `12px ${t.font}`;
    ctx.textBaseline = 'middle';
    rowsOfLegend.forEach((r, j) => {
      const ly = css.y + css.h + 46 + 9 + j * 18;
      let x = Math.max(8, (width - r.reduce((a, it) => a + it.w + 14, -14)) / 2);
      for (const { key, w } of r) {
        ctx.fillStyle = palette[COLOR_INDEX[key]];
        ctx.beginPath();
        ctx.arc(x + 6, ly, 4, 0, 2 * Math.PI);
        ctx.fill();
        ctx.fillStyle = t.fg;
        ctx.fillText(NAMES[key], x + 16, ly);
        x += w + 14;
      }
    });
    ctx.restore();

    Object.assign(ctx.canvas.dataset, {
      ns: JSON.stringify(EVAL_NS), pad: String(pad * dpr), task,
      models: JSON.stringify(models.map((key) => ({ key, color: palette[COLOR_INDEX[key]] }))),
    });
    // the read-out: the point nearest the pointer (within 12 px), as a cell (model, n)
    const cellAt = (dx, dy) => {
      let best = null;
      for (const p of points) {
        const d = Math.hypot(p.x * dpr - dx, p.y * dpr - dy);
        if (d <= 12 * dpr && (!best || d < best.d)) best = { d, p };
      }
      return best && { row: best.p.k, col: best.p.i };
    };
    return {
      plot, rows: models.length, cols: EVAL_NS.length, min: 0, max: 1, cellAt,
      // the overlay rings the point instead of a grid cell's cross
      highlight: (o, cursor) => {
        const p = points.find((q) => q.k === cursor.row && q.i === cursor.col);
        if (!p) return;
        o.beginPath();
        o.arc(p.x * dpr, p.y * dpr, (p.r + 4) * dpr, 0, 2 * Math.PI);
        o.stroke();
      },
      describe: (r, c) => {
        if (!tf) return '';
        const key = models[r];
        return `${NAMES[key]}, n = ${EVAL_NS[c]} · teacher-forced ${(100 * tf[key].values[c]).toFixed(1)}% · greedy ${(100 * greedy[key].values[c]).toFixed(1)}% of target tokens (${seeds})`;
      },
    };
  },
};
