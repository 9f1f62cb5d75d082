// encoder-ort.mjs: the committed copy-task models (web/models/) in posenc and
// in ONNX Runtime Web, side by side in one Node process (`make bench` runs it;
// alone: `node bench/encoder-ort.mjs`, after `make bench-ort`).
//
// - ORT: onnxruntime-web (pinned in bench/ort/, installed by make bench only),
//   the wasm backend (SIMD), one thread, on the models exported from torch by
//   tools/train/export_onnx.py (opset 14, fixed length) into build/onnx/.
// - posenc: createEncoder({ weights: file bytes }).logits(tokens, { causal: true }),
//   with the default options (keepAttention: false: like ORT, no attention
//   probabilities kept) and with keepAttention: true (the attention view's).
// Per model and length n, the contenders run interleaved: BENCH_ENCODER_ROUNDS
// rounds (default 31; more, up to 10x, until the row has run 1.5 s), after 3
// warm-up rounds and at least 300 ms (3 s before the first row). The table
// gives medians, posenc's speed as a multiple of ORT's (ORT ms / posenc ms:
// above 1, posenc is faster), and the largest |posenc - ORT| logit relative
// to the largest |logit|, from the same run. Where torch, the exported files
// or ORT are missing, a row says so and nothing is timed.
//
// GFLOP/s count the products a causal pass needs, the same count for both:
// per layer 2n(4d^2 + 2 d dFF) for the projections and the feed-forward block
// plus 2 d n(n+1) for q k^T and p v over the keys j <= i, and 2 n d vocab for
// the LM head. The peak beside them is probe_f32x4_madd (bench/probes.c): 12
// independent f32x4 multiply-add chains, compiled as the SIMD build compiles
// the kernels, timed right after each row (the machine is shared: its speed
// moves, and the peak with it).
//
// Filters: BENCH_MODELS=rope,t5 BENCH_LENGTHS=258 (default: every model, n = 66, 258, 514);
// BENCH_TRACE=1 prints every time of every row.
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import * as posenc from '../dist/encoder.mjs';
import { loadIndex, loadOrt, loadProbes, median, onnxFile, peakGflops, relDiff, root } from './ort-peer.mjs';

const ROUNDS = Number(process.env.BENCH_ENCODER_ROUNDS || 31);
const WARMUP = 3;
const LENGTHS = (process.env.BENCH_LENGTHS || '66,258,514').split(',').map(Number);
const ONLY = process.env.BENCH_MODELS ? process.env.BENCH_MODELS.split(',') : null;
/** The bench's tokens, as tools/train/export_onnx.py traces them: BOS, then 2 + (7 i mod (vocab - 2)). */
const benchTokens = (n, vocab) => Int32Array.from({ length: n }, (_, i) => (i === 0 ? 0 : 2 + ((7 * i) % (vocab - 2))));

/** Multiply-adds of one causal pass, times 2 (see the head comment). */
function flops(c, n) {
  const d = c.dModel;
  const layer = 2 * n * (4 * d * d + 2 * d * c.dFF) + 2 * d * n * (n + 1);
  return c.layers * layer + 2 * n * d * c.vocabSize;
}

async function row(ort, probes, entry, warmupMs = 300) {
  const file = new URL(`web/models/${entry.model}`, root);
  const lean = posenc.createEncoder({ weights: readFileSync(file) }); // the default options
  const enc = posenc.createEncoder({ weights: readFileSync(file), keepAttention: true });
  const c = enc.config;
  const tokens = benchTokens(entry.n, c.vocabSize);
  const session = await ort.InferenceSession.create(readFileSync(onnxFile(entry.file)), {
    executionProviders: ['wasm'],
    graphOptimizationLevel: 'all',
  });
  const feeds = { tokens: new ort.Tensor('int64', BigInt64Array.from(tokens, BigInt), [1, entry.n]) };
  const out = {};
  const contenders = {
    ort: async () => (out.ort = (await session.run(feeds)).logits.data),
    posenc: () => (out.posenc = enc.logits(tokens, { causal: true })),
    lean: () => (out.lean = lean.logits(tokens, { causal: true })),
  };
  const times = Object.fromEntries(Object.keys(contenders).map((k) => [k, []]));
  // warm-up: at least WARMUP rounds and warmupMs, so both engines' code is optimized (V8 tiers wasm up while it runs)
  const start = performance.now();
  for (let r = 0; r < WARMUP || performance.now() - start < warmupMs; r++) for (const run of Object.values(contenders)) await run();
  // at least ROUNDS rounds, and at least ~1.5 s of them: short rows get more samples, so that the
  // preemptions of a shared machine (a few ms each) stay a minority that the median ignores
  const timed = performance.now();
  for (let r = 0; r < ROUNDS || (r < 10 * ROUNDS && performance.now() - timed < 1500); r++) {
    for (const [name, run] of Object.entries(contenders)) {
      const t0 = performance.now();
      await run();
      times[name].push(performance.now() - t0);
    }
  }
  if (process.env.BENCH_TRACE) console.log(JSON.stringify(Object.fromEntries(Object.entries(times).map(([k, t]) => [k, t.map((x) => +x.toFixed(2))]))));
  await session.release();
  enc.dispose();
  lean.dispose();
  const ms = Object.fromEntries(Object.entries(times).map(([k, t]) => [k, median(t)]));
  const peak = peakGflops(probes);
  return { ms, peak, diff: Math.max(relDiff(out.posenc, out.ort), relDiff(out.lean, out.ort)), same: relDiff(out.lean, out.posenc), gflop: flops(c, entry.n) / 1e9 };
}

export async function encoderOrtTasks() {
  console.log(`\nposenc against ONNX Runtime Web (wasm SIMD, 1 thread) on the copy-task models: ${os.cpus()[0].model}, Node ${process.version}, ${ROUNDS} rounds interleaved, medians`);
  const probes = await loadProbes();
  if (!probes) console.log('wasm SIMD peak: build/bench/probes.wasm is missing (make build/bench/probes.wasm): no peak column');
  const index = loadIndex();
  const { ort, missing } = await loadOrt();
  if (ort) console.log(`onnxruntime-web ${ort.env.versions?.web ?? '?'}; peak: probe_f32x4_madd (12 chains of f32x4 mul + add), timed after each row`);
  console.log('| model | layers | n | ORT ms | posenc ms | x ORT | posenc keepAttention ms | x ORT | max diff (rel) | ORT GFLOP/s | posenc GFLOP/s | peak GFLOP/s | posenc % of peak |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  const manifest = JSON.parse(readFileSync(new URL('web/models/manifest.json', root)));
  let warmed = false;
  for (const m of manifest.models) {
    if (ONLY && !ONLY.includes(m.scheme)) continue;
    const limit = m.config.positional.type === 'learned' ? m.config.positional.maxLength : Infinity;
    for (const n of [...new Set(LENGTHS.map((n) => Math.min(n, limit)))]) {
      const head = `| ${m.scheme} | ${m.config.layers} | ${n} |`;
      const entry = index?.models.find((e) => e.scheme === m.scheme && e.n === n);
      const skip = !index ? 'build/onnx/index.json is missing (torch? make bench runs tools/train/export_onnx.py)'
        : !entry || !existsSync(onnxFile(entry.file)) ? `no exported file for n = ${n} in build/onnx/`
          : missing;
      if (skip) {
        console.log(`${head} skipped: ${skip} ||||||||||`);
        continue;
      }
      // the first row warms up for 3 s: V8 compiles ORT's large module's hot code in the background meanwhile
      const { ms, peak, diff, same, gflop } = await row(ort, probes, { ...entry, model: m.file }, warmed ? 300 : 3000);
      warmed = true;
      if (same !== 0) console.log(`warning: keepAttention true and the default differ by ${same} (relative)`);
      const rate = gflop / (ms.lean / 1e3);
      const peakCells = peak ? `${peak.toFixed(1)} | ${((100 * rate) / peak).toFixed(0)}` : '- | -';
      console.log(`${head} ${ms.ort.toFixed(2)} | ${ms.lean.toFixed(2)} | ${(ms.ort / ms.lean).toFixed(2)}x | ${ms.posenc.toFixed(2)} | ${(ms.ort / ms.posenc).toFixed(2)}x | ${diff.toExponential(1)} | ${(gflop / (ms.ort / 1e3)).toFixed(1)} | ${rate.toFixed(1)} | ${peakCells} |`);
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await posenc.init();
  await encoderOrtTasks();
}
