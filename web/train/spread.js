// train/spread.js: torch's figures of the trained models from
// web/models/manifest.json, as the section's views draw them: per model and
// measure the mean over the three training seeds or one seed's figure, the
// lowest to highest seed (the bands), and the per-position shares. The
// manifest is fetched once; each view that follows it is redrawn when it
// arrives and when the section's task changes (train/client.js).
import { EVAL_NS } from '../models/tasks.js';
import { MODELS, TASK_NAMES, loadSpread } from './models.js';
import { currentTask, evaluator } from './client.js';

/** The seed settings of the views: the mean over seeds 1-3, or one seed. */
export const SEEDS = Object.freeze(['mean', '1', '2', '3']);

/** A seed setting in a title: 'mean of seeds 1–3' or 'seed 2'. */
export const seedWords = (seed) => (seed === 'mean' ? 'mean of seeds 1–3' : `seed ${seed}`);

/** The task's name to open a title: 'Copy', 'Reversal'. */
export const taskTitle = (task) => `${TASK_NAMES[task][0].toUpperCase()}${TASK_NAMES[task].slice(1)}`;

/**
 * A view's data() over rows of { key, what, v } (v: one value per n of
 * EVAL_NS): the CSV/JSON table, one row per model and measure, labelled
 * key:what, under the header [`model:${measure}`, n=8, ...].
 */
export function measureTable(rows, measure) {
  return {
    rows: rows.length, cols: EVAL_NS.length,
    read: (r0, k, out) => {
      for (let r = 0; r < k; r++) out.set(rows[r0 + r].v, r * EVAL_NS.length);
    },
    header: [`model:${measure}`, ...EVAL_NS.map((n) => `n=${n}`)],
    rowLabel: (r) => `${rows[r].key}:${rows[r].what}`,
  };
}

let spread = null; // task -> model key -> { seeds, overSeeds, records }
let error = null;
let loading = null;
const followers = new Set();

/** Redraws `redraw` when the manifest arrives (or fails) and when the section's task changes. */
export function followManifest(redraw) {
  followers.add(redraw);
  // the evaluator speaks after every point scored: redraw only when the task changed
  let task = currentTask();
  evaluator().subscribe(() => {
    if (currentTask() === task) return;
    task = currentTask();
    redraw();
  });
  loading ??= loadSpread().then((x) => {
    spread = x;
  }, (e) => {
    error = e.message;
  }).finally(() => followers.forEach((f) => f()));
}

/** Why the manifest could not be loaded, or null. */
export const manifestError = () => error;

const seedFigure = (m, n, field, seed) => (seed === 'mean' ? m.overSeeds[n][field].mean : m.records.find((r) => String(r.seed) === seed).scores[n][field]);

/**
 * model key -> { values, band } of a measure per n of EVAL_NS: values the
 * mean over the seeds (seed 'mean') or one seed's, band { lo, hi } the
 * lowest and highest seed; null before the manifest.
 */
export function figures(task, field, seed = 'mean') {
  const models = spread?.[task];
  if (!models) return null;
  return Object.fromEntries(MODELS.map((key) => {
    const m = models[key];
    if (!m) return [key, null]; // a manifest from a partial run
    return [key, {
      values: EVAL_NS.map((n) => seedFigure(m, n, field, seed)),
      band: { lo: EVAL_NS.map((n) => m.overSeeds[n][field].min), hi: EVAL_NS.map((n) => m.overSeeds[n][field].max) },
    }];
  }));
}

/** model key -> its per-position shares at n (the mean over seeds, or one seed's); null before the manifest. */
export function perPosition(task, n, seed = 'mean') {
  const models = spread?.[task];
  if (!models) return null;
  return Object.fromEntries(MODELS.map((key) => {
    const m = models[key];
    if (!m) return [key, null];
    return [key, seed === 'mean' ? m.overSeeds[n].perPosition : m.records.find((r) => String(r.seed) === seed).scores[n].perPosition];
  }));
}
