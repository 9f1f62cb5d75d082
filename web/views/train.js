// views/train.js: "Train short, test long". A measure of the trained models
// of one task (web/models/: six schemes, and learned and RoPE positions
// trained at randomized positions) against the evaluation length n, computed
// live by posenc in module workers (train/worker.js, two on two cores) on the
// seeded evaluation sequences of models/tasks.js: none of the numbers drawn is
// stored anywhere. RoPE's curve can be redrawn under RoPE scaling applied at
// inference (linear, dynamic NTK, YaRN), the unscaled curve left dashed. The
// measure drawn is teacher-forced token accuracy, greedy token accuracy (each
// sequence generated with the KV cache), both (greedy dotted), or exact
// match. Under each model's curve a band spans the lowest to the highest
// figure over the three training seeds (torch's, on every evaluation
// sequence: models/manifest.json); the curves are seed 1's models. The task
// chosen here is the one the section's other views draw (train/client.js).
import { int, num, choice } from '../state.js';
import { EVAL_NS, TASKS } from '../models/tasks.js';
import { COLOR_INDEX, MODELS, NAMES, SCALINGS, TASK_NAMES, TRAIN_MAX_N, ropeScaling, schemeOf } from '../train/models.js';
import { evaluator } from '../train/client.js';
import { figures, followManifest, manifestError } from '../train/spread.js';
import { drawLengthPlot, SHARE } from '../draw/length-plot.js';
import { PALETTE, PALETTE_DARK } from '../draw/lines.js';

const SYMBOLS = 16;
const SCALING_NAMES = { linear: 'linear', dynamic: 'dynamic NTK', yarn: 'YaRN' };
/**
 * The score setting: the measures drawn and what the plot says. Chance is a
 * line only for token-level shares (1/16 of the symbols); a whole sequence
 * right by chance is 16^-n, no line.
 */
const SCORES = {
  token: { fields: ['tokenAccuracy'], axis: 'token accuracy', title: 'token accuracy, teacher-forced', chance: true },
  greedy: { fields: ['greedyTokenAccuracy'], axis: 'greedy token accuracy', title: 'greedy token accuracy', chance: true },
  both: { fields: ['tokenAccuracy', 'greedyTokenAccuracy'], axis: 'token accuracy', title: 'token accuracy, greedy dotted', chance: true },
  exact: { fields: ['exactMatch'], axis: 'exact match', title: 'exact match (every target token right)', chance: false },
};
const GREEDY_DASH = [2, 3];
/** The measures of a point, in the downloads' order (models/tasks.js scoreTask). */
export const MEASURES = Object.freeze(['tokenAccuracy', 'exactMatch', 'greedyTokenAccuracy', 'correctPrefix', 'loss']);

let ev = null;
let section = null;

/** The series the settings ask for: the task's models, and RoPE scaled when a scaling is chosen. */
function seriesOf(s) {
  const scaling = ropeScaling(s.scaling, s.factor);
  const out = MODELS.map((model) => ({ key: model, task: s.task, model, scaling: null }));
  if (scaling) out.push({ key: 'rope-scaled', task: s.task, model: 'rope', scaling });
  return out;
}

const labelOf = (key, s) => (key === 'rope-scaled' ? `RoPE, ${SCALING_NAMES[s.scaling]} ×${s.factor}` : NAMES[key]);

/** A model's band for a measure: the manifest's lowest and highest over the seeds per n, or null. */
const bandOf = (task, model, field) => figures(task, field)?.[model]?.band ?? null;

/** Writes the progress bar and its line of text. */
function showProgress() {
  const bar = section.querySelector('progress.progress');
  const text = section.querySelector('.progress-text');
  const { done, total, kept, ms, doneAt, finished } = ev.progress;
  bar.max = Math.max(1, total);
  bar.value = done;
  section.dataset.evalDone = String(finished);
  if (finished && doneAt !== null) section.dataset.evalDoneAt = doneAt.toFixed(0); // when the last point arrived
  const where = ev.workers === 1 ? 'a worker' : `${ev.workers} workers`;
  // every point kept from the settings before (the scaled curve dropped, a measure switched): nothing new was scored
  const all = kept === total && total > 0;
  const scored = all ? `${total} points scored` : kept ? `${total} points, the ${total - kept} new ones scored` : `${total} points scored`;
  // a model posenc could not run: named, with posenc's message, under the others' curves
  const failed = ev.series.map((x) => [x.key, [...ev.failures(x.key).values()]]).filter(([, m]) => m.length);
  const why = failed.map(([key, m]) => ` ${NAMES[key] ?? key}: ${m.length} points not scored (${m[0]}).`).join('');
  text.textContent = (finished
    ? `${scored} by posenc in ${where}${all ? ', kept from the settings before (nothing new to score)' : ms !== null ? ` in ${(ms / 1000).toFixed(1)} s` : ''}.`
    : `Scoring ${done} of ${total} points…`) + why;
}

export default {
  id: 'train',
  labels: { task: 'task', seqs: 'sequences per n', scaling: 'RoPE scaling', factor: 'factor', score: 'score' },
  params: { task: choice(TASKS, 'copy'), seqs: int(1, 64, 16), scaling: choice(SCALINGS, 'none'), factor: num(0, 64, 4), score: choice(Object.keys(SCORES), 'token') },

  attach(el, redraw) {
    section = el;
    ev = evaluator();
    ev.subscribe(() => {
      showProgress();
      redraw();
    });
    followManifest(redraw);
  },

  /**
   * Rows per series: each measure of MEASURES and the sequences scored, one column per n, NaN where
   * not scored yet; then per model of the task the lowest and highest of each measure over the
   * training seeds (the bands; NaN until the manifest is loaded).
   */
  data(s) {
    const series = seriesOf(s);
    const rows = [
      ...series.flatMap((x) => [...MEASURES, 'sequences'].map((k) => ({ key: x.key, k }))),
      ...MODELS.flatMap((key) => MEASURES.flatMap((k) => ['min', 'max'].map((end) => ({ key, k, end })))),
    ];
    return {
      rows: rows.length, cols: EVAL_NS.length,
      read(r0, n, out) {
        for (let r = 0; r < n; r++) {
          const { key, k, end } = rows[r0 + r];
          const points = ev.points(key);
          const band = end && figures(s.task, k)?.[key]?.band[end === 'min' ? 'lo' : 'hi'];
          EVAL_NS.forEach((m, c) => (out[r * EVAL_NS.length + c] = (end ? band?.[c] : points.get(m)?.[k]) ?? NaN));
        }
      },
      header: ['series:measure', ...EVAL_NS.map((n) => `n=${n}`)],
      rowLabel: (r) => `${rows[r].key}:${rows[r].k}${rows[r].end ? `:seeds ${rows[r].end}` : ''}`,
    };
  },

  draw(ctx, t, size, s) {
    const series = seriesOf(s);
    const score = SCORES[s.score];
    ev.want(series, s.seqs);
    showProgress();
    if (ev.error) throw new Error(ev.error);
    if (manifestError()) throw new Error(manifestError());
    const palette = t.dark ? PALETTE_DARK : PALETTE;
    const scaled = series.length > MODELS.length;
    // one curve per series and measure: the first measure with disks; greedy beside it dotted, without
    const drawn = score.fields.flatMap((field, f) => series.map((x) => {
      const points = ev.points(x.key);
      const plain = scaled && x.key === 'rope';
      const label = plain ? 'RoPE, unscaled' : labelOf(x.key, s);
      const beside = f > 0;
      return {
        key: x.key,
        label: beside ? `${label}, greedy` : label,
        color: palette[COLOR_INDEX[x.key === 'rope-scaled' ? schemeOf(x.model) : x.model]],
        values: EVAL_NS.map((n) => points.get(n)?.[field]),
        dash: beside ? GREEDY_DASH : plain ? [4, 3] : undefined,
        markers: !plain && !beside,
        // the spread over seeds, under the unscaled model's curve of the first measure drawn
        band: x.scaling === null && !beside ? bandOf(s.task, x.model, field) : null,
      };
    }));
    const narrow = size.width < 480;
    const task = TASK_NAMES[s.task];
    const title = `${narrow ? `${task[0].toUpperCase()}${task.slice(1)}` : `${task[0].toUpperCase()}${task.slice(1)} task, ${score.title}`}: ${s.seqs} sequence${s.seqs === 1 ? '' : 's'} per n`;
    const fig = drawLengthPlot(ctx, t, size, {
      ns: EVAL_NS, series: drawn, trainMax: TRAIN_MAX_N, title,
      y: { ...SHARE, label: score.axis },
      reference: score.chance ? { value: 1 / SYMBOLS, label: `chance 1/${SYMBOLS}` } : null,
      bandNote: 'band: seeds 1–3, lowest to highest (torch, every sequence)',
    });
    return {
      ...fig,
      describe: (i) => {
        const n = EVAL_NS[i];
        const parts = drawn.map((d) => `${d.label} ${d.values[i] === undefined ? '…' : `${(100 * d.values[i]).toFixed(1)}%`}`);
        return `n = ${n} (${s.seqs} sequence${s.seqs === 1 ? '' : 's'}) · ${parts.join(' · ')}`;
      },
    };
  },
};
