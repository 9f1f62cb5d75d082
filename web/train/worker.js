// train/worker.js: the module worker of the "train short, test long" views.
// It loads posenc and the models of web/models/, and scores them point by
// point (one model at one n), posting each result as it comes, so the page
// draws the curves as they grow and stays responsive. A new job replaces the
// current one between two points (the page's controls cancel stale work).
//
// A point is every measure of models/tasks.js scoreTask: teacher-forced
// (token accuracy, exact match, correct prefix, loss, per-position accuracy,
// from one causal pass per sequence) and greedy token accuracy (each sequence
// generated with the KV cache). A randomized-positions model reads the
// seeded position ids of models/tasks.js evalPositions.
//
// Messages in:  { id, tasks: [{ key, task, model, scaling, n, count }] }
// Messages out: { id, key, n, ...scoreTask's measures } per point, or
//               { id, key, n, failed: message } for a point posenc could not score,
//               { id, finished: true } at the end, { id, error } on failure.
import * as posenc from '../dist/encoder.mjs';
import { scoreTask } from '../models/tasks.js';
import { generateWith, loadModel, modelOptions, positionsOf } from './models.js';

const ready = posenc.init();
let job = null;
let model = null; // { sig, encoder }: the encoder of the last task, kept while the next task uses it

// A zero-delay turn of the event loop between points (setTimeout would be clamped), so new jobs get in.
const channel = new MessageChannel();
const tick = () =>
  new Promise((resolve) => {
    channel.port1.onmessage = () => resolve();
    channel.port2.postMessage(0);
  });

async function encoderFor(task) {
  const sig = JSON.stringify([task.task, task.model, task.scaling]);
  if (model?.sig === sig) return model.encoder;
  const bytes = await loadModel(task.task, task.model);
  model?.encoder.dispose();
  model = null;
  // keepAttention: false: the scores need logits only, not layers x heads x seq^2 floats
  const encoder = posenc.createEncoder(modelOptions(posenc, bytes, task.scaling, { keepAttention: false }));
  model = { sig, encoder };
  return encoder;
}

/** Every measure of one task's point (models/tasks.js scoreTask). */
function score(encoder, task) {
  return scoreTask(task.task, task.n, task.count, {
    logitsOf: (tokens, positions) => encoder.logits(tokens, positions ? { causal: true, positions } : { causal: true }),
    generate: (prompt, n, positions) => generateWith(encoder, prompt, n, positions),
    positionsOf: positionsOf(task.model),
  });
}

// One loop at a time works through the current job; onmessage only swaps the job.
let running = false;
async function run() {
  if (running) return;
  running = true;
  try {
    while (job) {
      const j = job;
      try {
        await ready;
        const task = j.tasks[j.next];
        const encoder = await encoderFor(task);
        if (job === j) {
          // a point that cannot be scored (a model posenc cannot run) is reported, and the job goes on
          let result;
          try {
            result = score(encoder, task);
          } catch (error) {
            result = { failed: error.message };
          }
          postMessage({ id: j.id, key: task.key, n: task.n, ...result });
          if (++j.next === j.tasks.length) {
            if (job === j) job = null;
            postMessage({ id: j.id, finished: true });
          }
        }
      } catch (error) {
        if (job === j) job = null;
        postMessage({ id: j.id, error: error.message });
      }
      await tick();
    }
  } finally {
    running = false;
  }
}

onmessage = (e) => {
  job = { ...e.data, next: 0 };
  // every model of the job fetched at once (about 2 MB per task), not one by one as the points reach it
  for (const t of job.tasks) loadModel(t.task, t.model).catch(() => {});
  if (!job.tasks.length) {
    postMessage({ id: job.id, finished: true });
    job = null;
    return;
  }
  run();
};
