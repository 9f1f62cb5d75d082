// train/worker.js: the module worker of the "train short, test long" view.
// It loads posenc and the six models, and scores the copy task point by
// point (one scheme at one n), posting each result as it comes, so the page
// draws the curves as they grow and stays responsive. A new job replaces the
// current one between two points (the page's controls cancel stale work).
//
// A point is teacher-forced (measure 'token': token accuracy and exact match
// from one causal pass per sequence) or greedy (measure 'greedy': greedy exact
// match, each sequence generated with the KV cache, encoder.generate).
//
// Messages in:  { id, tasks: [{ key, scheme, scaling, n, count, measure }] }
// Messages out: { id, key, n, count, measure, tokenAccuracy, exactMatch } or
//               { id, key, n, count, measure, greedyExactMatch } per point,
//               { id, finished: true } at the end, { id, error } on failure.
import * as posenc from '../dist/encoder.mjs';
import { copyAccuracy, copyGreedy } from '../models/copy-task.js';
import { SCHEMES, loadModel, modelOptions } from './copy-models.js';

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
  const sig = JSON.stringify([task.scheme, task.scaling]);
  if (model?.sig === sig) return model.encoder;
  const bytes = await loadModel(task.scheme);
  model?.encoder.dispose();
  model = null;
  // keepAttention: false: the scores need logits only, not layers x heads x seq^2 floats
  const encoder = posenc.createEncoder(modelOptions(posenc, bytes, task.scaling, { keepAttention: false }));
  model = { sig, encoder };
  return encoder;
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
          const r = task.measure === 'greedy'
            ? copyGreedy((prompt, n) => encoder.generate(prompt, { maxNewTokens: n }), task.n, task.count)
            : copyAccuracy((tokens) => encoder.logits(tokens, { causal: true }), task.n, task.count);
          postMessage({ id: j.id, key: task.key, n: task.n, count: task.count, measure: task.measure, ...r });
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
  if (!job.tasks.length) {
    postMessage({ id: job.id, finished: true });
    job = null;
    return;
  }
  run();
};

// start fetching every model while posenc compiles
for (const scheme of SCHEMES) loadModel(scheme).catch(() => {});
