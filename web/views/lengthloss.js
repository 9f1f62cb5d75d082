// views/lengthloss.js: the mean loss against n for every model of the
// section's task (train/client.js currentTask), in the manner of Press et
// al.'s Figure 1 (ALiBi, "Train Short, Test Long": perplexity against the
// inference length): the teacher-forced cross-entropy of the target tokens,
// in nats, torch's figures from web/models/manifest.json (the mean over the
// three training seeds, or one seed's), each model's band the lowest to the
// highest seed. A dashed line marks a uniform guess over the 16 symbols,
// ln 16 = 2.77 nats: a model above it is worse than guessing.
import { choice } from '../state.js';
import { EVAL_NS } from '../models/tasks.js';
import { COLOR_INDEX, MODELS, NAMES, TRAIN_MAX_N } from '../train/models.js';
import { currentTask } from '../train/client.js';
import { SEEDS, figures, followManifest, manifestError, measureTable, seedWords, taskTitle } from '../train/spread.js';
import { drawLengthPlot } from '../draw/length-plot.js';
import { niceTicks } from '../draw/axes.js';
import { PALETTE, PALETTE_DARK } from '../draw/lines.js';

export const UNIFORM = Math.log(16);
export default {
  id: 'lengthloss',
  labels: { seed: 'seed' },
  params: { seed: choice(SEEDS, 'mean') },

  attach(el, redraw) {
    followManifest(redraw);
  },

  /** Rows per model: the loss per n, then its lowest and highest over the seeds. */
  data(s) {
    const f = figures(currentTask(), 'loss', s.seed);
    if (!f) throw new Error('the manifest is still loading');
    const rows = MODELS.filter((key) => f[key]).flatMap((key) => [['loss', f[key].values], ['seeds min', f[key].band.lo], ['seeds max', f[key].band.hi]].map(([what, v]) => ({ key, what, v })));
    return measureTable(rows, 'loss');
  },

  draw(ctx, t, size, s) {
    if (manifestError()) throw new Error(manifestError());
    const task = currentTask();
    const f = figures(task, 'loss', s.seed);
    const palette = t.dark ? PALETTE_DARK : PALETTE;
    // a model missing from the manifest (a partial run) is left out
    const series = MODELS.filter((key) => !f || f[key]).map((key) => ({
      key, label: NAMES[key], color: palette[COLOR_INDEX[key]], values: f ? f[key].values : EVAL_NS.map(() => undefined), band: f ? f[key].band : null,
    }));
    // the axis covers every band, and the uniform guess with room above it
    const top = Math.max(UNIFORM * 1.15, ...series.flatMap((x) => x.band?.hi ?? []));
    const ticks = niceTicks(0, top, 5);
    const max = Math.max(top, ticks[ticks.length - 1]) * 1.04;
    const fig = drawLengthPlot(ctx, t, size, {
      ns: EVAL_NS, series, trainMax: TRAIN_MAX_N,
      title: `${taskTitle(task)}: loss of the target tokens (${seedWords(s.seed)}, torch)`,
      y: { max, ticks: ticks.filter((v) => v <= max), format: (v) => v.toFixed(1), label: 'loss (nats)' },
      reference: { value: UNIFORM, label: 'uniform guess: ln 16 = 2.77' },
      bandNote: 'band: seeds 1–3, lowest to highest',
    });
    return {
      ...fig,
      describe: (i) => `n = ${EVAL_NS[i]} · ${series.map((x) => `${x.label} ${x.values[i] === undefined ? '…' : x.values[i].toFixed(2)}`).join(' · ')} nats (uniform: 2.77)`,
    };
  },
};
