// train-client.js: the page's side of train-worker.js. It keeps the scores
// computed so far, series by series, and asks the worker only for what the
// current settings lack: changing RoPE's scaling recomputes RoPE's scaled
// curve alone; a new sequence count, every point. A new request replaces the
// worker's current job, so stale work stops at the next point.
import { EVAL_NS } from './models/copy-task.js';
import { sequencesAt } from './copy-models.js';

/**
 * series: [{ key, scheme, scaling }]; onUpdate() runs after every result.
 * Returns { want(series, perN), points(key) -> Map(n -> { tokenAccuracy, exactMatch, count }),
 *           progress: { done, total, ms, finished }, error }.
 */
export function createEvaluator(onUpdate) {
  const worker = new Worker(new URL('./train-worker.js', import.meta.url), { type: 'module' });
  const store = new Map(); // key -> { sig, points: Map }
  let id = 0;
  let wanted = '';
  let started = 0;
  const ev = {
    progress: { done: 0, total: 0, ms: null, finished: false },
    error: null,
    points: (key) => store.get(key)?.points ?? new Map(),
    want(series, perN) {
      const sig = JSON.stringify([series, perN]);
      if (sig === wanted) return;
      wanted = sig;
      const tasks = [];
      for (const s of series) {
        const own = JSON.stringify([s.scheme, s.scaling, perN]);
        if (store.get(s.key)?.sig !== own) store.set(s.key, { sig: own, points: new Map() });
        const have = store.get(s.key).points;
        for (const n of EVAL_NS) if (!have.has(n)) tasks.push({ key: s.key, scheme: s.scheme, scaling: s.scaling, n, count: sequencesAt(n, perN) });
      }
      for (const key of store.keys()) if (!series.some((s) => s.key === key)) store.delete(key);
      const total = series.length * EVAL_NS.length;
      ev.progress = { done: total - tasks.length, total, ms: null, finished: false };
      ev.error = null;
      started = performance.now();
      worker.postMessage({ id: ++id, tasks });
    },
  };
  worker.onmessage = ({ data }) => {
    if (data.id !== id) return; // a replaced job's last point
    if (data.error) ev.error = `the evaluation failed: ${data.error}`;
    else if (data.finished) ev.progress = { ...ev.progress, ms: performance.now() - started, finished: true };
    else {
      store.get(data.key)?.points.set(data.n, { tokenAccuracy: data.tokenAccuracy, exactMatch: data.exactMatch, count: data.count });
      ev.progress = { ...ev.progress, done: ev.progress.done + 1 };
    }
    onUpdate();
  };
  worker.onerror = (e) => {
    ev.error = `the evaluation worker failed: ${e.message || 'could not start'}`;
    onUpdate();
  };
  return ev;
}
