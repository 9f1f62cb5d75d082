// kernels.mjs: the encoder's kernels called straight (bench/kernels.c, built
// into build/bench/kernels.wasm), at the shapes of the copy-task models
// (d_model 64, 4 heads of 16, d_ff 128): what a prefill (34 tokens), a
// one-token step and a full pass spend per call, against the wasm SIMD peak
// (probe_f32x4_madd, bench/probes.c) timed in the same rounds. `make bench`
// runs it; alone: `node bench/kernels.mjs` (BENCH_ROUNDS, default 40).
//
// Every measure runs round-robin, each call repeated until it takes about a
// millisecond; the table gives the fastest round of each (the machine is
// shared: the fastest is the one least disturbed) and its GFLOP/s (2 flops a
// multiply-add; for attention, q k^T and p v over the keys j <= i).
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { loadProbes } from './ort-peer.mjs';

const ROUNDS = Number(process.env.BENCH_ROUNDS || 40);
const FILE = new URL('../build/bench/kernels.wasm', import.meta.url);
if (!existsSync(FILE)) {
  console.log('kernels.mjs: build/bench/kernels.wasm is missing (make build/bench/kernels.wasm)');
  process.exit(0);
}
const { instance } = await WebAssembly.instantiate(readFileSync(FILE), { env: { emscripten_notify_memory_growth() {} } });
const k = instance.exports;
k._initialize();
const probes = await loadProbes();

const FLOATS = 1 << 20;
const base = k.malloc(4 * FLOATS);
const heap = new Float32Array(k.memory.buffer, base, FLOATS);
for (let i = 0; i < FLOATS; i++) heap[i] = Math.sin(i * 0.37) * 0.5;
const at = (i) => base + 4 * i; // disjoint regions of 128 Ki floats each
const [Y, X, W, B, Q, K, V, S] = [0, 1, 2, 3, 4, 5, 6, 7].map((r) => at(r * 131072));

const D = 64;
const HEAD = 16;
const FF = 128;
const linear = (rows, outs, n) => ({ run: (reps) => k.kernel_linear(Y, X, rows, W, outs, n, B, reps), flops: 2 * rows * outs * n });
const attend = (first, rows, parts) => {
  let flops = 0; // the whole kernel's count: none for a part
  for (let i = first; parts % 4 === 0 && i < first + rows; i++) flops += 4 * HEAD * (i + 1);
  return { run: (reps) => k.kernel_attend(Y, Q, K, V, D, HEAD, first, rows, S, parts, reps), flops };
};
const measures = {
  'linear 34 x 64 <- 64 (prefill: q, k, v, out)': linear(34, D, D),
  'linear 34 x 128 <- 64 (prefill: feed-forward in)': linear(34, FF, D),
  'linear 34 x 64 <- 128 (prefill: feed-forward out)': linear(34, D, FF),
  'linear 1 x 64 <- 64 (step: q, k, v, out)': linear(1, D, D),
  'linear 1 x 128 <- 64 (step: feed-forward in)': linear(1, FF, D),
  'linear 1 x 18 <- 64 (LM head, one row)': linear(1, 18, D),
  'linear 514 x 64 <- 64 (full pass n = 514)': linear(514, D, D),
  'GELU 34 x 128': { run: (reps) => k.kernel_gelu(X, 34 * FF, reps), flops: 0 },
  'layer norm 34 x 64': { run: (reps) => k.kernel_layer_norm(Y, X, 34, D, W, reps), flops: 0 },
  'attention head, prefill 34': attend(0, 34, 0),
  'attention head, one query at 289': attend(289, 1, 0),
  'attention head, causal n = 514': attend(0, 514, 0),
  '  its q k^T (nn_linear)': attend(0, 514, 1),
  '  + a pass over each row (nn_row_max)': attend(0, 514, 2),
  '  + softmax (nn_softmax_row_max)': attend(0, 514, 3),
  '  + p v (nn_mix): the parts whole': attend(0, 514, 4),
};
if (probes) measures['peak: probe_f32x4_madd'] = { run: (reps) => probes.probe_f32x4_madd(0.5, 1, 3000 * reps), flops: 96 * 3000 };

// repetitions for about a millisecond a round
const reps = {};
for (const [name, m] of Object.entries(measures)) {
  let n = 1;
  for (;;) {
    const t0 = performance.now();
    m.run(n);
    if (performance.now() - t0 > 0.5 || n > 1e6) break;
    n *= 2;
  }
  reps[name] = n * 2;
}
const best = {};
for (let r = 0; r < ROUNDS; r++) {
  for (const [name, m] of Object.entries(measures)) {
    const t0 = performance.now();
    m.run(reps[name]);
    const us = ((performance.now() - t0) * 1e3) / reps[name];
    best[name] = Math.min(best[name] ?? Infinity, us);
  }
}
console.log(`\nThe encoder's kernels called straight (bench/kernels.c): ${os.cpus()[0].model}, Node ${process.version}, ${ROUNDS} rounds round-robin, the fastest of each`);
console.log('| kernel, shape | us per call | GFLOP/s |');
console.log('| --- | ---: | ---: |');
for (const [name, m] of Object.entries(measures)) {
  const us = best[name];
  console.log(`| ${name} | ${us.toFixed(3)} | ${m.flops ? (m.flops / us / 1e3).toFixed(1) : ''} |`);
}
