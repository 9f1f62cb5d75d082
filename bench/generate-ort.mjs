// generate-ort.mjs: prefill and greedy generation on the committed copy-task
// models (web/models/), posenc against ONNX Runtime Web looping a KV-cache
// step graph as transformers.js loops a decoder's, side by side in one Node
// process (`make bench` runs it; alone: `node bench/generate-ort.mjs`, after
// `make bench-ort`).
//
// - ORT: onnxruntime-web (bench/ort/), the wasm backend (SIMD), one thread,
//   on build/onnx/copy-<scheme>-step.onnx (tools/train/export_onnx.py: inputs
//   input_ids, position_ids and the past keys and values of every layer;
//   outputs the logits of the new rows and the present keys and values). A
//   generation runs the graph on the prompt with an empty past, takes the
//   argmax of the last row, then runs it on that one token with the
//   presents as the past, and so on: what transformers.js does per token
//   (new input tensors each run, the outputs fed back).
// - posenc, with the default options: a decoder (encoder.decoder()) reset and
//   fed the prompt (prefill), or reset and decoder.generate(prompt,
//   { maxNewTokens: 256 }) (generation, all in C); and encoder.generate(prompt,
//   { maxNewTokens: 256 }), which makes a decoder per call, for reference.
// The prompt: the copy task's [BOS, 32 symbols, SEP] (34 tokens, evaluation
// sequence 0 at n = 32); then 256 tokens, greedy. Prefill is the first
// token's logits after the prompt; generation is the 256 tokens (the prompt
// and 255 one-token feeds).
//
// Per model, every contender runs interleaved: BENCH_GENERATE_ROUNDS rounds
// (default 15; more, up to 10x, until the row has run 2 s) after 3 warm-up
// rounds and at least 300 ms (3 s before the first model); each prefill
// sample is PREFILL_REPS calls in a row (one call is a fraction of a
// millisecond). Medians; posenc's speed as a multiple of ORT's (ORT ms /
// posenc ms: above 1, posenc is faster).
//
// Checked in the same run (untimed), and a failure sets the exit code:
// posenc's 256 tokens equal ORT's and torch's (recorded by the export); the
// prefill logits and every generation step's logits (posenc's decoder fed
// ORT's tokens one by one) agree with ORT's to 1e-5 of the largest |logit|.
//
// GFLOP/s count the products the path needs, the same count for both: the
// causal pass over the prompt (bench/encoder-ort.mjs's count) with the LM
// head on its last row only, and per one-token feed at position t, per layer
// 2(4d^2 + 2 d dFF) + 4 d (t + 1) (q k^T and p v over the t + 1 keys), plus
// 2 d vocab. The peak is probe_f32x4_madd, timed after each model's rounds.
//
// Filters: BENCH_MODELS=rope,t5; BENCH_TRACE=1 prints every time.
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import * as posenc from '../dist/encoder.mjs';
import { copySequence, evalSymbols } from '../web/models/copy-task.js';
import { interleaved, loadIndex, loadOrt, loadProbes, median, onnxFile, ortStepLoop, peakGflops, prefillAndGenerate, relDiff, root } from './ort-peer.mjs';

const ROUNDS = Number(process.env.BENCH_GENERATE_ROUNDS || 15);
const WARMUP = 3;
const NEW_TOKENS = 256;
const PREFILL_REPS = 20;
const TOLERANCE = 1e-5;
const ONLY = process.env.BENCH_MODELS ? process.env.BENCH_MODELS.split(',') : null;
const PROMPT = Int32Array.from(copySequence(evalSymbols(32, 0)).slice(0, 34));

/** Products of the prompt's causal pass with the LM head on its last row, times 2. */
function prefillFlops(c, n) {
  const d = c.dModel;
  return c.layers * (2 * n * (4 * d * d + 2 * d * c.dFF) + 2 * d * n * (n + 1)) + 2 * d * c.vocabSize;
}

/** Products of the generation: the prefill, then one-token feeds at positions n .. n + NEW_TOKENS - 2. */
function generateFlops(c, n) {
  const d = c.dModel;
  let total = prefillFlops(c, n);
  for (let t = n; t < n + NEW_TOKENS - 1; t++) total += c.layers * (2 * (4 * d * d + 2 * d * c.dFF) + 4 * d * (t + 1)) + 2 * d * c.vocabSize;
  return total;
}

async function row(ort, probes, entry, file, warmupMs) {
  const enc = posenc.createEncoder({ weights: readFileSync(file) });
  const c = enc.config;
  const decoder = enc.decoder();
  const session = await ort.InferenceSession.create(readFileSync(onnxFile(entry.file)), {
    executionProviders: ['wasm'],
    graphOptimizationLevel: 'all',
  });
  const loop = ortStepLoop(ort, session, { layers: c.layers, kvHeads: c.heads, headDim: c.dModel / c.heads, vocabSize: c.vocabSize }, PROMPT, NEW_TOKENS);

  // the checks, untimed
  const failures = [];
  const ortRows = [];
  const ortTokens = await loop.generate(ortRows);
  decoder.reset();
  const tokens = decoder.generate(PROMPT, { maxNewTokens: NEW_TOKENS });
  const same = (a, b) => a.length === b.length && a.every((t, i) => t === b[i]);
  if (!same(tokens, ortTokens)) failures.push('posenc and ORT generate different tokens');
  if (!same(tokens, entry.torchTokens)) failures.push("posenc's tokens differ from torch's");
  if (!same(enc.generate(PROMPT, { maxNewTokens: NEW_TOKENS }), tokens)) failures.push('encoder.generate and decoder.generate differ');
  decoder.reset();
  const prefillDiff = relDiff(decoder.feed(PROMPT), await loop.prefill());
  let stepDiff = prefillDiff; // then each step: the token ORT chose, fed
  for (let i = 1; i < NEW_TOKENS; i++) stepDiff = Math.max(stepDiff, relDiff(decoder.feed(ortTokens[i - 1]), ortRows[i]));
  decoder.reset();
  if (prefillDiff > TOLERANCE) failures.push(`prefill logits differ by ${prefillDiff.toExponential(1)} (relative) > ${TOLERANCE}`);
  if (stepDiff > TOLERANCE) failures.push(`generation logits differ by ${stepDiff.toExponential(1)} (relative) > ${TOLERANCE}`);

  const contenders = {
    ...prefillAndGenerate(loop, decoder, PROMPT, PREFILL_REPS, () => {
      decoder.reset();
      decoder.generate(PROMPT, { maxNewTokens: NEW_TOKENS });
    }),
    'encoder.generate': () => enc.generate(PROMPT, { maxNewTokens: NEW_TOKENS }),
  };
  const times = await interleaved(contenders, { warmup: WARMUP, warmupMs, rounds: ROUNDS, minMs: 2000 });
  if (process.env.BENCH_TRACE) console.log(JSON.stringify(Object.fromEntries(Object.entries(times).map(([k, t]) => [k, t.map((x) => +x.toFixed(3))]))));
  await session.release();
  decoder.dispose();
  enc.dispose();
  const ms = Object.fromEntries(Object.entries(times).map(([k, t]) => [k, median(t)]));
  for (const k of ['ORT prefill', 'posenc prefill']) ms[k] /= PREFILL_REPS;
  return { ms, peak: peakGflops(probes), prefillDiff, stepDiff, failures, c };
}

export async function generateOrtTasks() {
  console.log(
    `\nPrefill (${PROMPT.length}-token prompt) and greedy generation (${NEW_TOKENS} tokens), posenc against ONNX Runtime Web looping a KV-cache step graph (wasm SIMD, 1 thread): ${os.cpus()[0].model}, Node ${process.version}, ${posenc.wasmBuild()} build, ${ROUNDS} rounds interleaved, medians`,
  );
  const probes = await loadProbes();
  if (!probes) console.log('wasm SIMD peak: build/bench/probes.wasm is missing (make build/bench/probes.wasm): no peak column');
  const index = loadIndex();
  const { ort, missing } = await loadOrt();
  if (ort) console.log(`onnxruntime-web ${ort.env.versions?.web ?? '?'}; peak: probe_f32x4_madd, timed after each model`);
  console.log('| model | path | ORT ms | posenc ms | x ORT | ORT tokens/s | posenc tokens/s | encoder.generate ms | max diff (rel) | ORT GFLOP/s | posenc GFLOP/s | peak GFLOP/s | posenc % of peak |');
  console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  const manifest = JSON.parse(readFileSync(new URL('web/models/manifest.json', root)));
  let warmed = false;
  let failed = false;
  // the copy task's six models (the manifest also lists the reversal's and the randomized-positions ones)
  for (const m of manifest.models.filter((x) => x.task === 'copy' && x.positions === 'sequential')) {
    if (ONLY && !ONLY.includes(m.scheme)) continue;
    const entry = index?.steps?.find((e) => e.scheme === m.scheme);
    const skip = !index ? 'build/onnx/index.json is missing (torch? make bench runs tools/train/export_onnx.py)'
      : !entry || !existsSync(onnxFile(entry.file)) ? 'no step graph in build/onnx/ (make bench-ort)'
        : entry.prompt.some((t, i) => t !== PROMPT[i]) || entry.prompt.length !== PROMPT.length ? "the export's prompt is not this bench's"
          : missing;
    if (skip) {
      console.log(`| ${m.scheme} | | skipped: ${skip} ||||||||||`);
      continue;
    }
    const { ms, peak, prefillDiff, stepDiff, failures, c } = await row(ort, probes, entry, new URL(`web/models/${m.file}`, root), warmed ? 300 : 3000);
    warmed = true;
    for (const f of failures) console.log(`FAILED (${m.scheme}): ${f}`);
    failed ||= failures.length > 0;
    const cells = (ortMs, posencMs, tokens, gflop) => {
      const rate = gflop / (posencMs / 1e3);
      const peakCells = peak ? `${peak.toFixed(1)} | ${((100 * rate) / peak).toFixed(0)}` : '- | -';
      return `${ortMs.toFixed(3)} | ${posencMs.toFixed(3)} | ${(ortMs / posencMs).toFixed(2)}x | ${Math.round(tokens / (ortMs / 1e3))} | ${Math.round(tokens / (posencMs / 1e3))}`
        + ` | %GEN% | %DIFF% | ${(gflop / (ortMs / 1e3)).toFixed(1)} | ${rate.toFixed(1)} | ${peakCells}`;
    };
    const prefill = cells(ms['ORT prefill'], ms['posenc prefill'], PROMPT.length, prefillFlops(c, PROMPT.length) / 1e9)
      .replace('%GEN%', '').replace('%DIFF%', prefillDiff.toExponential(1));
    const generate = cells(ms['ORT generate'], ms['posenc generate'], NEW_TOKENS, generateFlops(c, PROMPT.length) / 1e9)
      .replace('%GEN%', ms['encoder.generate'].toFixed(3)).replace('%DIFF%', stepDiff.toExponential(1));
    console.log(`| ${m.scheme} | prefill (prompt tokens/s) | ${prefill} |`);
    console.log(`| ${m.scheme} | generation of ${NEW_TOKENS} | ${generate} |`);
  }
  return !failed;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await posenc.init();
  if (!(await generateOrtTasks())) {
    console.error('generate-ort.mjs: posenc and ORT (or torch) disagree: see FAILED above');
    process.exitCode = 1;
  }
}
