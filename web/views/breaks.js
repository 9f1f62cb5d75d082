// views/breaks.js: "Where it breaks": per-position accuracy of every model of
// the section's task (train/client.js currentTask) at one evaluation length
// n, one row per model, one column per target position i = 1..n: the share
// of evaluation sequences whose target token t_i the model predicts right
// (teacher-forced), torch's figures from web/models/manifest.json (the mean
// over the three training seeds, or one seed's). The training length is
// marked: a model that copies a prefix as long as its training shows a red
// block up to i = 32 and blue beyond. Colours: the page's coolwarm map from 0
// (blue) to 1 (red), chance 1/16 near the blue end.
import { choice } from '../state.js';
import { EVAL_NS } from '../models/tasks.js';
import { MODELS, NAMES, TRAIN_MAX_N } from '../train/models.js';
import { currentTask } from '../train/client.js';
import { SEEDS, followManifest, manifestError, perPosition, seedWords, taskTitle } from '../train/spread.js';
import { heatmapLayout, paintCells } from '../draw/heatmap.js';
import { drawAxes, drawColorBar, niceTicks } from '../draw/axes.js';

export default {
  id: 'breaks',
  labels: { n: 'n', seed: 'seed' },
  params: { n: choice(EVAL_NS.map(String), '128'), seed: choice(SEEDS, 'mean') },

  attach(el, redraw) {
    followManifest(redraw);
  },

  /** Rows per model, columns per target position. */
  data(s) {
    const n = Number(s.n);
    const rows = perPosition(currentTask(), n, s.seed);
    if (!rows) throw new Error('the manifest is still loading');
    return {
      rows: MODELS.length, cols: n,
      read: (r0, k, out) => {
        for (let r = 0; r < k; r++) out.set(rows[MODELS[r0 + r]] ?? new Array(n).fill(NaN), r * n);
      },
      header: ['model', ...Array.from({ length: n }, (_, i) => `i=${i + 1}`)],
      rowLabel: (r) => MODELS[r],
    };
  },

  draw(ctx, t, size, s) {
    if (manifestError()) throw new Error(manifestError());
    const { width, dpr } = size;
    const task = currentTask();
    const n = Number(s.n);
    const rows = perPosition(task, n, s.seed);
    const narrow = width < 480;
    if (!rows) {
      ctx.fillStyle = t.muted;
      ctx.font = `13px ${t.font}`;
      ctx.fillText('Loading the manifest…', 12, 24);
      return { plot: { x: 0, y: 0, w: 1, h: 1 }, rows: 1, cols: 1, min: 0, max: 1, describe: () => '' };
    }
    const names = MODELS.map((k) => (narrow ? NAMES[k].replace('randomized', 'rand.') : NAMES[k]));
    ctx.font = `11px ${t.font}`;
    const left = Math.ceil(Math.max(...names.map((x) => ctx.measureText(x).width))) + 14;
    const margin = { left, right: narrow ? 70 : 80, top: 34, bottom: 46 };
    const plot = heatmapLayout({ width, height: size.height, dpr, rows: MODELS.length, cols: n, margin });
    const flat = new Float32Array(MODELS.length * n);
    flat.fill(NaN); // a model missing from the manifest (a partial run) stays grey
    MODELS.forEach((k, r) => rows[k] && flat.set(rows[k], r * n));
    paintCells(ctx, plot, { rows: MODELS.length, cols: n, read: (r0, k, out) => out.set(flat.subarray(r0 * n, (r0 + k) * n)) }, 0, 1);
    const css = { x: plot.x / dpr, y: plot.y / dpr, w: plot.w / dpr, h: plot.h / dpr };
    const colEdge = (c) => css.x + (c * css.w) / n;
    // the training length: a line after position 32, when the sequence is longer
    if (n > TRAIN_MAX_N) {
      ctx.save();
      ctx.strokeStyle = t.fg;
      ctx.setLineDash([4, 3]);
      ctx.beginPath();
      ctx.moveTo(Math.round(colEdge(TRAIN_MAX_N)) + 0.5, css.y - 4);
      ctx.lineTo(Math.round(colEdge(TRAIN_MAX_N)) + 0.5, css.y + css.h);
      ctx.stroke();
      ctx.restore();
    }
    const xTicks = [...new Set([1, ...niceTicks(0, n, Math.max(2, Math.floor(css.w / 60)), true).filter((i) => i >= 1), n])];
    const seeds = seedWords(s.seed);
    drawAxes(ctx, t, css, {
      title: narrow
        ? `${taskTitle(task)}, n = ${n}, ${s.seed === 'mean' ? 'mean of seeds' : `seed ${s.seed}`}`
        : `${taskTitle(task)}, n = ${n}: share of sequences with target i right (${seeds})`,
      x: { ticks: xTicks, at: (i) => colEdge(i - 0.5), label: narrow ? `target position i (dashed: ${TRAIN_MAX_N})` : `target position i (dashed: i = ${TRAIN_MAX_N}, the longest trained)` },
      y: { ticks: MODELS.map((_, r) => r), at: (r) => css.y + ((r + 0.5) * css.h) / MODELS.length, format: (r) => names[r], label: '', labelGap: left },
    });
    const bar = { x: plot.x + plot.w + Math.round(12 * dpr), y: plot.y, w: Math.round(12 * dpr), h: plot.h };
    drawColorBar(ctx, t, dpr, bar, 0, 1, 'share right');
    ctx.canvas.dataset.models = JSON.stringify(MODELS);
    ctx.canvas.dataset.task = task;
    return {
      plot, rows: MODELS.length, cols: n, min: 0, max: 1,
      describe: (r, c) => `${NAMES[MODELS[r]]} · target ${c + 1} of ${n} · ${rows[MODELS[r]] ? `${(100 * rows[MODELS[r]][c]).toFixed(1)}% of sequences right (${seeds}, torch)` : 'not in the manifest'}`,
    };
  },
};
