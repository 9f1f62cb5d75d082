// views/train.js: "Train short, test long". Token accuracy of the six
// trained copy-task models (web/models/) against the evaluation length n,
// computed live by posenc in module workers (train/worker.js, two on two cores) on the seeded
// evaluation sequences of models/copy-task.js: none of the numbers drawn is
// stored anywhere. RoPE's curve can be redrawn under RoPE scaling applied at
// inference (linear, dynamic NTK, YaRN), the unscaled curve left dashed. The
// score drawn is teacher-forced token accuracy, greedy exact match (each
// sequence generated with the KV cache, Kazemnejad et al. 2023's measure), or
// both (greedy dotted). Under each scheme's curve a band spans the lowest to
// the highest figure over the three training seeds (torch's, on every
// evaluation sequence: models/manifest.json); the curves are seed 1's models.
import { int, num, choice } from '../state.js';
import { EVAL_NS, VOCAB_SIZE } from '../models/copy-task.js';
import { SCHEMES, NAMES, SCALINGS, TRAIN_MAX_N, loadSpread, ropeScaling, sequencesAt } from '../train/copy-models.js';
import { FIELDS, createEvaluator } from '../train/client.js';
import { drawAccuracy } from '../draw/accuracy-plot.js';
import { PALETTE, PALETTE_DARK } from '../draw/lines.js';

const CHANCE = 1 / (VOCAB_SIZE - 2); // 16 symbols
const SCALING_NAMES = { linear: 'linear', dynamic: 'dynamic NTK', yarn: 'YaRN' };
/** The score setting: its measures (client.js) and what the plot's y axis says. */
const SCORES = {
  token: { measures: ['token'], axis: 'token accuracy', title: 'token accuracy' },
  greedy: { measures: ['greedy'], axis: 'greedy exact match', title: 'greedy exact match' },
  both: { measures: ['token', 'greedy'], axis: 'accuracy', title: 'token accuracy, greedy exact match dotted' },
};
const GREEDY_DASH = [2, 3];

let ev = null;
let section = null;
let spread = null; // scheme -> the manifest's figures over seeds, once loaded
let bands = null; // scheme -> field -> { lo, hi } per n: the spread as the plot draws it
let spreadError = null;
/** The rows of the spread in the downloads: per scheme, each score's lowest and highest over the seeds. */
const SPREAD_ROWS = Object.values(FIELDS).flatMap((k) => ['min', 'max'].map((end) => ({ k, end })));

/** The series the settings ask for: the six models, and RoPE scaled when a scaling is chosen. */
function seriesOf(s) {
  const scaling = ropeScaling(s.scaling, s.factor);
  const out = SCHEMES.map((scheme) => ({ key: scheme, scheme, scaling: null }));
  if (scaling) out.push({ key: 'rope-scaled', scheme: 'rope', scaling });
  return out;
}

const labelOf = (key, s) => (key === 'rope-scaled' ? `RoPE, ${SCALING_NAMES[s.scaling]} ×${s.factor}` : NAMES[key]);

/** Writes the progress bar and its line of text. */
function showProgress() {
  const bar = section.querySelector('progress.progress');
  const text = section.querySelector('.progress-text');
  const { done, total, kept, ms, doneAt, finished } = ev.progress;
  bar.max = Math.max(1, total);
  bar.value = done;
  section.dataset.evalDone = String(finished);
  if (finished && doneAt !== null) section.dataset.evalDoneAt = doneAt.toFixed(0); // when the last point arrived
  const scored = kept ? `${total} points, the ${total - kept} new ones scored` : `${total} points scored`;
  text.textContent = finished
    ? `${scored} by posenc in ${ev.workers === 1 ? 'a worker' : `${ev.workers} workers`}${ms !== null ? ` in ${(ms / 1000).toFixed(1)} s` : ''}.`
    : `Scoring ${done} of ${total} points…`;
}

export default {
  id: 'train',
  labels: { seqs: 'sequences per n', scaling: 'RoPE scaling', factor: 'factor', score: 'score' },
  params: { seqs: int(1, 64, 6), scaling: choice(SCALINGS, 'none'), factor: num(0, 64, 4), score: choice(Object.keys(SCORES), 'token') },

  attach(el, redraw) {
    section = el;
    ev = createEvaluator(() => {
      showProgress();
      redraw();
    });
    loadSpread().then((x) => {
      spread = x;
      bands = Object.fromEntries(SCHEMES.map((scheme) => [scheme, Object.fromEntries(Object.values(FIELDS).map((field) => {
        const over = x[scheme].overSeeds;
        return [field, { lo: EVAL_NS.map((n) => over[n][field].min), hi: EVAL_NS.map((n) => over[n][field].max) }];
      }))]));
      redraw();
    }, (e) => {
      spreadError = e.message;
      redraw();
    });
  },

  /**
   * Rows per series: token accuracy, exact match and the sequences scored, one column per n; then
   * greedy exact match per series; NaN where not scored (greedy: unless the score setting asks for it);
   * then per scheme the lowest and highest token accuracy and greedy exact match over the training
   * seeds (the bands; NaN until the manifest is loaded).
   */
  data(s) {
    const series = seriesOf(s);
    const rows = [
      ...series.flatMap((x) => ['tokenAccuracy', 'exactMatch', 'count'].map((k) => ({ key: x.key, k }))),
      ...series.map((x) => ({ key: x.key, k: 'greedyExactMatch' })),
      ...SCHEMES.flatMap((key) => SPREAD_ROWS.map(({ k, end }) => ({ key, k, end }))),
    ];
    return {
      rows: rows.length, cols: EVAL_NS.length,
      read(r0, n, out) {
        for (let r = 0; r < n; r++) {
          const { key, k, end } = rows[r0 + r];
          const points = ev.points(key);
          const over = spread?.[key].overSeeds;
          EVAL_NS.forEach((m, c) => (out[r * EVAL_NS.length + c] = (end ? over?.[m][k][end] : points.get(m)?.[k]) ?? NaN));
        }
      },
      header: ['series:score', ...EVAL_NS.map((n) => `n=${n}`)],
      rowLabel: (r) => `${rows[r].key}:${rows[r].k === 'count' ? 'sequences' : rows[r].k}${rows[r].end ? `:seeds ${rows[r].end}` : ''}`,
    };
  },

  draw(ctx, t, size, s) {
    const series = seriesOf(s);
    const score = SCORES[s.score];
    ev.want(series, s.seqs, score.measures);
    showProgress();
    if (ev.error) throw new Error(ev.error);
    if (spreadError) throw new Error(spreadError);
    const palette = t.dark ? PALETTE_DARK : PALETTE;
    const scaled = series.length > SCHEMES.length;
    // one curve per series and measure: teacher-forced with disks; greedy with disks alone,
    // dotted without them beside token accuracy
    const drawn = score.measures.flatMap((measure) => series.map((x) => {
      const points = ev.points(x.key);
      const plain = scaled && x.key === 'rope';
      const field = FIELDS[measure];
      const label = plain ? 'RoPE, unscaled' : labelOf(x.key, s);
      const beside = measure === 'greedy' && score.measures.length > 1;
      return {
        key: x.key,
        label: beside ? `${label}, greedy` : label,
        color: palette[SCHEMES.indexOf(x.scheme)],
        values: EVAL_NS.map((n) => points.get(n)?.[field]),
        dash: beside ? GREEDY_DASH : plain ? [4, 3] : undefined,
        markers: !plain && !beside,
        // the spread over seeds, under the unscaled model's curve of the first score drawn
        band: x.scaling === null && !beside ? bands?.[x.scheme][field] ?? null : null,
      };
    }));
    const counts = [...new Set(EVAL_NS.map((n) => sequencesAt(n, s.seqs)))].join('/');
    const narrow = size.width < 480;
    const title = `${narrow ? score.title[0].toUpperCase() + score.title.slice(1) : `Copy task, ${score.title}`}: ${counts} sequences per n`;
    const fig = drawAccuracy(ctx, t, size, { ns: EVAL_NS, series: drawn, trainMax: TRAIN_MAX_N, chance: CHANCE, title, yLabel: score.axis });
    return {
      ...fig,
      describe: (i) => {
        const n = EVAL_NS[i];
        const parts = drawn.map((d) => `${d.label} ${d.values[i] === undefined ? '…' : `${(100 * d.values[i]).toFixed(1)}%`}`);
        return `n = ${n} (${sequencesAt(n, s.seqs)} sequences) · ${parts.join(' · ')}`;
      },
    };
  },
};
