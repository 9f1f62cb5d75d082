// train/client.js: the page's side of train/worker.js (one or two of them). It keeps the scores
// computed so far, series by series, and asks the worker only for what the
// current settings lack: changing RoPE's scaling recomputes RoPE's scaled
// curve alone; a new sequence count, every point. A new request replaces the
// worker's current job, so stale work stops at the next point.
import { EVAL_NS } from '../models/copy-task.js';
import { sequencesAt } from './copy-models.js';

/** What each measure of a point holds: teacher-forced scores, or greedy exact match. */
export const FIELDS = Object.freeze({ token: 'tokenAccuracy', greedy: 'greedyExactMatch' });

/**
 * series: [{ key, scheme, scaling }]; measures: ['token'] (teacher-forced),
 * ['greedy'] (greedy exact match), or both; onUpdate() runs after every result.
 * Returns { want(series, perN, measures), points(key) -> Map(n -> { count, tokenAccuracy?,
 *           exactMatch?, greedyExactMatch? }), progress: { done, total, kept, ms, doneAt, finished },
 *           error, workers }.
 */
export function createEvaluator(onUpdate) {
  // Two workers where there are two cores or more: the points split between them by their
  // cost, and on a busy machine two threads also get a larger share of the CPU than one.
  const count = Math.max(1, Math.min(2, navigator.hardwareConcurrency || 1));
  const workers = Array.from({ length: count }, () => new Worker(new URL('./worker.js', import.meta.url), { type: 'module' }));
  const store = new Map(); // key -> { sig, points: Map }
  let id = 0;
  let wanted = '';
  let started = 0;
  let running = 0; // workers still busy with the current job
  let crashed = null; // why a worker died: no later job can finish, so it stays the error
  const ev = {
    workers: workers.length,
    progress: { done: 0, total: 0, kept: 0, ms: null, doneAt: null, finished: false },
    error: null,
    points: (key) => store.get(key)?.points ?? new Map(),
    want(series, perN, measures = ['token']) {
      const sig = JSON.stringify([series, perN, measures]);
      if (sig === wanted) return;
      wanted = sig;
      const tasks = [];
      for (const s of series) {
        const own = JSON.stringify([s.scheme, s.scaling, perN]);
        if (store.get(s.key)?.sig !== own) store.set(s.key, { sig: own, points: new Map() });
        const have = store.get(s.key).points;
        for (const measure of measures) {
          for (const n of EVAL_NS) {
            if (have.get(n)?.[FIELDS[measure]] === undefined) tasks.push({ key: s.key, scheme: s.scheme, scaling: s.scaling, n, count: sequencesAt(n, perN), measure });
          }
        }
      }
      for (const key of store.keys()) if (!series.some((s) => s.key === key)) store.delete(key);
      const total = series.length * EVAL_NS.length * measures.length;
      // kept: points still valid from earlier settings, not scored again
      ev.progress = { done: total - tasks.length, total, kept: total - tasks.length, ms: null, doneAt: null, finished: false };
      ev.error = crashed;
      if (crashed) return;
      started = performance.now();
      id++;
      running = workers.length;
      split(tasks, workers.length).forEach((part, w) => workers[w].postMessage({ id, tasks: part }));
    },
  };
  const onmessage = ({ data }) => {
    if (data.id !== id) return; // a replaced job's last point
    if (data.error) ev.error = `the evaluation failed: ${data.error}`;
    else if (data.finished) {
      if (--running === 0) {
        const now = performance.now();
        ev.progress = { ...ev.progress, ms: now - started, doneAt: now, finished: true };
      }
    } else {
      const points = store.get(data.key)?.points;
      if (points) {
        const scores = data.measure === 'greedy' ? { greedyExactMatch: data.greedyExactMatch } : { tokenAccuracy: data.tokenAccuracy, exactMatch: data.exactMatch };
        points.set(data.n, { ...points.get(data.n), count: data.count, ...scores });
      }
      ev.progress = { ...ev.progress, done: ev.progress.done + 1 };
    }
    onUpdate();
  };
  for (const w of workers) {
    w.onmessage = onmessage;
    w.onerror = (e) => {
      crashed = `the evaluation worker failed: ${e.message || 'could not start'}`;
      ev.error = crashed;
      onUpdate();
    };
  }
  return ev;
}

// A point's cost, roughly: sequences x layers x tokens x (tokens + a per-token share for the
// projections and feed-forward), the 4-layer models (NoPE, ALiBi) twice the 2-layer ones.
const LAYERS = { none: 4, alibi: 4 };
const cost = (t) => t.count * (LAYERS[t.scheme] ?? 2) * (2 * t.n + 2) * (2 * t.n + 2 + 256);

/** Splits tasks into `k` lists of about equal cost (largest first to the lightest list), each in the original order. */
function split(tasks, k) {
  const load = new Array(k).fill(0);
  const owner = new Map();
  for (const t of [...tasks].sort((a, b) => cost(b) - cost(a))) {
    const w = load.indexOf(Math.min(...load));
    load[w] += cost(t);
    owner.set(t, w);
  }
  return Array.from({ length: k }, (_, w) => tasks.filter((t) => owner.get(t) === w));
}
