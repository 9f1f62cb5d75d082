// decode.mjs: greedy generation of 256 tokens with the KV cache
// (encoder.generate: the prompt once, then one token per step at O(length))
// against recomputing the whole prefix at every step (encoder.logits on the
// sequence so far, the argmax of its last row: O(length^2) per step), side by
// side in one process, round-robin, on each copy-task model of web/models/
// after a 34-token copy prompt (n = 32). Both must give the same tokens.
// `make bench`; alone: `node bench/decode.mjs` (BENCH_ROUNDS, default 3).
import { readFileSync } from 'node:fs';
import * as posenc from '../dist/encoder.mjs';
import { copySequence, evalSymbols } from '../web/models/copy-task.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS || 3);
const NEW_TOKENS = 256;
const median = (t) => [...t].sort((a, b) => a - b)[t.length >> 1];
const manifest = JSON.parse(readFileSync(new URL('../web/models/manifest.json', import.meta.url)));

await posenc.init();
const prompt = Array.from(copySequence(evalSymbols(32, 0))).slice(0, 34); // [BOS, s_1..s_32, SEP]

/** The plain loop: the full causal pass over the prefix at every step. */
function recompute(enc) {
  const V = enc.config.vocabSize;
  const seq = [...prompt];
  for (let i = 0; i < NEW_TOKENS; i++) {
    const last = enc.logits(seq, { causal: true }).subarray((seq.length - 1) * V);
    let best = 0;
    for (let v = 1; v < V; v++) if (last[v] > last[best]) best = v;
    seq.push(best);
  }
  return Int32Array.from(seq.slice(prompt.length));
}

console.log(`Greedy generation of ${NEW_TOKENS} tokens after a ${prompt.length}-token prompt (${prompt.length + NEW_TOKENS - 1} positions), median of ${ROUNDS} rounds, ${posenc.wasmBuild()} build`);
console.log('| model | KV cache ms | recompute ms | recompute / cache | cache ms per token |');
console.log('| --- | ---: | ---: | ---: | ---: |');
let failed = false;
// the copy task's six models (the manifest also lists the reversal's and the randomized-positions ones)
for (const m of manifest.models.filter((x) => x.task === 'copy' && x.positions === 'sequential')) {
  const enc = posenc.createEncoder({ weights: readFileSync(new URL(`../web/models/${m.file}`, import.meta.url)), keepAttention: false });
  const times = { cache: [], recompute: [] };
  let tokens = {};
  for (let r = 0; r < ROUNDS; r++) {
    for (const [name, run] of [['cache', () => enc.generate(prompt, { maxNewTokens: NEW_TOKENS })], ['recompute', () => recompute(enc)]]) {
      const t0 = performance.now();
      tokens[name] = run();
      times[name].push(performance.now() - t0);
    }
  }
  const same = tokens.cache.every((t, i) => t === tokens.recompute[i]);
  if (!same) failed = true;
  const [cache, full] = [median(times.cache), median(times.recompute)];
  console.log(`| copy-${m.scheme}${same ? '' : ' (TOKENS DIFFER)'} | ${cache.toFixed(1)} | ${full.toFixed(1)} | ${(full / cache).toFixed(1)}x | ${(cache / NEW_TOKENS).toFixed(3)} |`);
  enc.dispose();
}
if (failed) {
  console.error('decode.mjs: the cached and recomputed generations differ');
  process.exitCode = 1;
}
