// train/client.js: the page's side of train/worker.js (one or two of them),
// shared by the views that draw the trained models' scores (views/train.js
// asks, the others read). It keeps the scores computed so far, series by
// series, and asks the workers only for what the current settings lack:
// changing RoPE's scaling recomputes RoPE's scaled curve alone; a new
// sequence count or task, every point. A new request replaces the workers'
// current job, so stale work stops at the next point.
import { EVAL_NS } from '../models/tasks.js';

/**
 * The one evaluator of the page, made on first use. Returns
 * { want(series, perN), series, perN, points(key) -> Map(n -> scoreTask's measures), failures(key) -> Map(n -> message),
 *   progress: { done, total, kept, ms, doneAt, finished }, error, workers, subscribe(onUpdate) }.
 * series: [{ key, task, model, scaling }] (model: a key of models.js MODELS).
 */
let shared = null;
export function evaluator() {
  shared ??= createEvaluator();
  return shared;
}

function createEvaluator() {
  // Two workers where there are two cores or more: the points split between them by their
  // cost, and on a busy machine two threads also get a larger share of the CPU than one.
  const count = Math.max(1, Math.min(2, navigator.hardwareConcurrency || 1));
  const workers = Array.from({ length: count }, () => new Worker(new URL('./worker.js', import.meta.url), { type: 'module' }));
  const store = new Map(); // key -> { sig, points: Map }
  const listeners = new Set();
  const update = () => listeners.forEach((f) => f());
  let id = 0;
  let wanted = '';
  let started = 0;
  let running = 0; // workers still busy with the current job
  let crashed = null; // why a worker died: no later job can finish, so it stays the error
  const ev = {
    workers: workers.length,
    series: [],
    perN: 0,
    progress: { done: 0, total: 0, kept: 0, ms: null, doneAt: null, finished: false },
    error: null,
    points: (key) => store.get(key)?.points ?? new Map(),
    /** n -> why posenc could not score that point of the series (a model it cannot run). */
    failures: (key) => store.get(key)?.failures ?? new Map(),
    subscribe(onUpdate) {
      listeners.add(onUpdate);
    },
    want(series, perN) {
      const sig = JSON.stringify([series, perN]);
      if (sig === wanted) return;
      wanted = sig;
      ev.series = series;
      ev.perN = perN;
      const tasks = [];
      for (const s of series) {
        const own = JSON.stringify([s.task, s.model, s.scaling, perN]);
        if (store.get(s.key)?.sig !== own) store.set(s.key, { sig: own, points: new Map(), failures: new Map() });
        const have = store.get(s.key).points;
        for (const n of EVAL_NS) {
          if (!have.has(n) && !store.get(s.key).failures.has(n)) tasks.push({ key: s.key, task: s.task, model: s.model, scaling: s.scaling, n, count: perN });
        }
      }
      for (const key of store.keys()) if (!series.some((s) => s.key === key)) store.delete(key);
      const total = series.length * EVAL_NS.length;
      // kept: points still valid from earlier settings, not scored again
      ev.progress = { done: total - tasks.length, total, kept: total - tasks.length, ms: null, doneAt: null, finished: false };
      ev.error = crashed;
      if (!crashed) {
        started = performance.now();
        id++;
        running = workers.length;
        split(tasks, workers.length).forEach((part, w) => workers[w].postMessage({ id, tasks: part }));
      }
      update();
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
      const { id: _, key, n, failed, ...scores } = data;
      if (failed) store.get(key)?.failures.set(n, failed);
      else store.get(key)?.points.set(n, scores);
      ev.progress = { ...ev.progress, done: ev.progress.done + 1 };
    }
    update();
  };
  for (const w of workers) {
    w.onmessage = onmessage;
    w.onerror = (e) => {
      crashed = `the evaluation worker failed: ${e.message || 'could not start'}`;
      ev.error = crashed;
      update();
    };
  }
  return ev;
}

// A point's cost, roughly: sequences x tokens x (tokens + a per-token share for the
// projections and feed-forward), twice over (the teacher-forced pass and the greedy decoding).
const cost = (t) => t.count * (2 * t.n + 2) * (2 * t.n + 2 + 256);

/**
 * Splits tasks into `k` lists of about equal cost (largest first to the lightest list),
 * each list ordered by n, so that every curve grows from the left.
 */
function split(tasks, k) {
  const load = new Array(k).fill(0);
  const owner = new Map();
  for (const t of [...tasks].sort((a, b) => cost(b) - cost(a))) {
    const w = load.indexOf(Math.min(...load));
    load[w] += cost(t);
    owner.set(t, w);
  }
  const order = [...tasks].sort((a, b) => a.n - b.n);
  return Array.from({ length: k }, (_, w) => order.filter((t) => owner.get(t) === w));
}

/** The task the section's views draw: the one views/train.js last asked for (copy before it has). */
export const currentTask = () => shared?.series[0]?.task ?? 'copy';
