// checkpoint-ort.mjs: a Hugging Face Llama checkpoint of about 10M parameters
// (random weights), posenc's createModel against ONNX Runtime Web looping a
// KV-cache step graph of the same model as transformers.js loops a decoder's,
// side by side in one Node process (`make bench` runs it; alone: `node
// bench/checkpoint-ort.mjs` after `make build/checkpoints/llama-10m/index.json
// bench-ort`).
//
// The checkpoint and the graph: build/checkpoints/llama-10m/
// (tools/reference/checkpoints/make_bench_checkpoint.py): config.json and
// model.safetensors (F32, Hugging Face's names) for posenc; step.onnx for ORT
// (wasm backend, SIMD, one thread, graphOptimizationLevel 'all'); index.json
// with the prompt (128 tokens) and torch's 256 greedy tokens.
// - Prefill: the prompt's last logits. ORT: one run of the step graph on the
//   prompt with an empty past. posenc: a decoder (model.decoder()) reset and
//   fed the prompt. PREFILL_REPS calls per sample.
// - Generation: 256 greedy tokens after the prompt (the prompt, then 255
//   one-token feeds). ORT: the graph looped, the argmax of each run's last row
//   fed back with the presents as the past (new input tensors each run).
//   posenc: model.generate(prompt, { maxNewTokens: 256 }), which makes its
//   decoder per call, all in C.
// - posenc's generation on the weights rounded to BF16 and to F16
//   (writeSafetensors), which createModel keeps as given (weightFormat, 2
//   bytes a matrix value), against the same rounded values in an F32 file
//   (widened: 4 bytes): the same tokens (checked), their own (the rounding
//   moves the logits).
// Every contender runs interleaved, BENCH_CHECKPOINT_ROUNDS rounds (default 9)
// after 2 warm-up rounds; medians; posenc's speed as a multiple of ORT's (ORT
// ms / posenc ms: above 1, posenc is faster).
//
// Checked in the same run (untimed), and a failure sets the exit code:
// posenc's 256 tokens equal ORT's and torch's; the prefill logits and every
// generation step's logits (posenc's decoder fed ORT's tokens one by one)
// agree with ORT's to 1e-5 of the largest |logit|.
//
// Also printed: memory, the wasm heap's bytes after the checks' generation
// (posenc: memoryStats(); ORT: the WebAssembly.Memory it creates,
// ort-peer.mjs), and
// what a page downloads (the library's files, gzip -9, and the weights' file);
// the time to load (createModel from the bytes; InferenceSession.create, which
// for the first session also compiles ORT's wasm), one cold run each.
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { gzipSync } from 'node:zlib';
import * as posenc from '../dist/encoder.mjs';
import { interleaved, loadOrt, median, ortHeapBytes, ortStepLoop, prefillAndGenerate, relDiff, root } from './ort-peer.mjs';

const DIR = new URL('build/checkpoints/llama-10m/', root);
const ROUNDS = Number(process.env.BENCH_CHECKPOINT_ROUNDS || 9);
const NEW_TOKENS = 256;
const PREFILL_REPS = 3;
const TOLERANCE = 1e-5;
const ORT_DIST = new URL('bench/ort/node_modules/onnxruntime-web/dist/', root);
// what a page imports for ORT's wasm backend: the wasm-only bundle, its Emscripten glue and the SIMD wasm
const ORT_FILES = ['ort.wasm.min.mjs', 'ort-wasm-simd-threaded.mjs', 'ort-wasm-simd-threaded.wasm'];

const file = (name) => readFileSync(new URL(name, DIR));
const mb = (bytes) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
const same = (a, b) => a.length === b.length && a.every((t, i) => t === b[i]);

/** Raw and gzip -9 bytes of files. */
function sizes(urls) {
  let raw = 0;
  let gz = 0;
  for (const url of urls) {
    const bytes = readFileSync(url);
    raw += bytes.length;
    gz += gzipSync(bytes, { level: 9 }).length;
  }
  return { raw, gz };
}

export async function checkpointOrt() {
  const missing = !existsSync(new URL('index.json', DIR)) ? 'build/checkpoints/llama-10m/ is missing (make build/checkpoints/llama-10m/index.json: torch)' : null;
  const { ort, missing: noOrt } = await loadOrt();
  console.log(
    `\nA Llama checkpoint (~10M parameters, random), createModel against ONNX Runtime Web looping a KV-cache step graph (wasm SIMD, 1 thread): ${os.cpus()[0].model}, Node ${process.version}, ${posenc.wasmBuild()} build, ${ROUNDS} rounds interleaved, medians`,
  );
  if (missing || noOrt) {
    console.log(`skipped: ${missing || noOrt}`);
    return true;
  }
  const index = JSON.parse(file('index.json'));
  const config = JSON.parse(file('config.json'));
  const prompt = Int32Array.from(index.prompt);
  console.log(
    `onnxruntime-web ${ort.env.versions?.web ?? '?'}; ${index.parameters} parameters: ${config.num_hidden_layers} layers, hidden ${config.hidden_size}, ${config.num_attention_heads} heads / ${config.num_key_value_heads} key-value heads, MLP ${config.intermediate_size}, vocabulary ${config.vocab_size}; ${prompt.length}-token prompt; step graph ${
      index.transformers ? `${index.transformers.maxRelDiff.toExponential(1)} from ${index.transformers.source}` : 'not checked against transformers (make_bench_checkpoint.py ran without --transformers)'
    }`,
  );

  let t0 = performance.now();
  const model = posenc.createModel({ config, weights: file('model.safetensors') });
  const posencLoad = performance.now() - t0;
  const weightBytes = model.weightBytes;
  t0 = performance.now();
  const session = await ort.InferenceSession.create(file('step.onnx'), { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
  const ortLoad = performance.now() - t0;
  const o = model.options;
  const loop = ortStepLoop(ort, session, { layers: o.layers, kvHeads: o.kvHeads, headDim: o.headDim, vocabSize: o.vocabSize }, prompt, NEW_TOKENS);
  const decoder = model.decoder();

  // the checks, untimed
  const failures = [];
  const ortRows = [];
  const ortTokens = await loop.generate(ortRows);
  const tokens = model.generate(prompt, { maxNewTokens: NEW_TOKENS });
  if (!same(tokens, ortTokens)) failures.push('posenc and ORT generate different tokens');
  if (!same(tokens, index.torchTokens)) failures.push("posenc's tokens differ from torch's");
  decoder.reset();
  const prefillDiff = relDiff(decoder.feed(prompt), await loop.prefill());
  let stepDiff = prefillDiff;
  for (let i = 1; i < NEW_TOKENS; i++) stepDiff = Math.max(stepDiff, relDiff(decoder.feed(ortTokens[i - 1]), ortRows[i]));
  const decoderBytes = decoder.memoryBytes; // its cache at prompt + 255 positions, and its work buffers
  if (prefillDiff > TOLERANCE) failures.push(`prefill logits differ by ${prefillDiff.toExponential(1)} (relative) > ${TOLERANCE}`);
  if (stepDiff > TOLERANCE) failures.push(`generation logits differ by ${stepDiff.toExponential(1)} (relative) > ${TOLERANCE}`);
  // the heaps now, each engine having run the generation (ORT's grows no further in the rounds; posenc's
  // would hold the rounded copies below too)
  const heap = { posenc: posenc.memoryStats(), ort: ortHeapBytes() };

  const { tensors } = posenc.readSafetensors(file('model.safetensors'));
  const write = (from, dtype) => posenc.writeSafetensors(Object.fromEntries(Object.entries(from).map(([n, t]) => [n, { shape: t.shape, data: t.data, dtype }])));
  const halves = {}; // dtype -> { kept, widened }
  for (const dtype of ['BF16', 'F16']) {
    const bytes = write(tensors, dtype);
    halves[dtype] = {
      kept: posenc.createModel({ config, weights: bytes }),
      widened: posenc.createModel({ config, weights: write(posenc.readSafetensors(bytes).tensors, 'F32') }),
    };
    const { kept, widened } = halves[dtype];
    if (kept.weightFormat !== dtype || widened.weightFormat !== 'F32') failures.push(`the ${dtype} copy is held as ${kept.weightFormat}, its widened copy as ${widened.weightFormat}`);
    if (!same(kept.generate(prompt, { maxNewTokens: NEW_TOKENS }), widened.generate(prompt, { maxNewTokens: NEW_TOKENS }))) failures.push(`the ${dtype} copy kept and widened generate different tokens`);
  }

  const contenders = prefillAndGenerate(loop, decoder, prompt, PREFILL_REPS, () => model.generate(prompt, { maxNewTokens: NEW_TOKENS }));
  for (const [dtype, { kept, widened }] of Object.entries(halves)) {
    contenders[`${dtype} kept`] = () => kept.generate(prompt, { maxNewTokens: NEW_TOKENS });
    contenders[`${dtype} widened`] = () => widened.generate(prompt, { maxNewTokens: NEW_TOKENS });
  }
  const times = await interleaved(contenders, { warmup: 2, warmupMs: 0, rounds: ROUNDS, minMs: 0 });
  if (process.env.BENCH_TRACE) console.log(JSON.stringify(Object.fromEntries(Object.entries(times).map(([k, t]) => [k, t.map((x) => +x.toFixed(1))]))));
  const ms = Object.fromEntries(Object.entries(times).map(([k, t]) => [k, median(t)]));
  for (const k of ['ORT prefill', 'posenc prefill']) ms[k] /= PREFILL_REPS;
  await session.release();
  decoder.dispose();
  model.dispose();
  for (const { kept, widened } of Object.values(halves)) {
    kept.dispose();
    widened.dispose();
  }

  for (const f of failures) console.log(`FAILED: ${f}`);
  console.log('| path | ORT ms | posenc ms | x ORT | ORT tokens/s | posenc tokens/s | max diff (rel) |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  const row = (what, ortMs, posencMs, n, diff) =>
    console.log(`| ${what} | ${ortMs.toFixed(1)} | ${posencMs.toFixed(1)} | ${(ortMs / posencMs).toFixed(2)}x | ${Math.round(n / (ortMs / 1e3))} | ${Math.round(n / (posencMs / 1e3))} | ${diff.toExponential(1)} |`);
  row(`prefill, ${prompt.length} tokens (prompt tokens/s)`, ms['ORT prefill'], ms['posenc prefill'], prompt.length, prefillDiff);
  row(`generation of ${NEW_TOKENS} (tokens/s)`, ms['ORT generate'], ms['posenc generate'], NEW_TOKENS, stepDiff);
  console.log(`| posenc's generation of ${NEW_TOKENS} on the weights rounded | kept as given, ms | widened to F32, ms | x widened | kept, tokens/s | weights kept / widened, bytes |`);
  console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
  for (const [dtype, { kept, widened }] of Object.entries(halves)) {
    const [k, w] = [ms[`${dtype} kept`], ms[`${dtype} widened`]];
    console.log(`| ${dtype} | ${k.toFixed(1)} | ${w.toFixed(1)} | ${(w / k).toFixed(2)}x | ${Math.round(NEW_TOKENS / (k / 1e3))} | ${kept.weightBytes} / ${widened.weightBytes} |`);
  }

  const lib = { posenc: sizes([new URL('dist/encoder.mjs', root)]), ort: sizes(ORT_FILES.map((f) => new URL(f, ORT_DIST))) };
  const weights = { posenc: file('config.json').length + file('model.safetensors').length, ort: file('step.onnx').length };
  console.log('| | ORT | posenc |');
  console.log('| --- | ---: | ---: |');
  console.log(`| wasm heap after a generation, bytes | ${heap.ort ?? '?'} (${heap.ort ? mb(heap.ort) : 'not seen'}) | ${heap.posenc.memoryBytes} (${mb(heap.posenc.memoryBytes)}; ${heap.posenc.allocatedBytes} allocated, of which the weights ${weightBytes} and a decoder after ${prompt.length + NEW_TOKENS - 1} positions ${decoderBytes}) |`);
  console.log(`| library download, bytes raw / gzip -9 | ${lib.ort.raw} / ${lib.ort.gz} (${ORT_FILES.join(', ')}) | ${lib.posenc.raw} / ${lib.posenc.gz} (dist/encoder.mjs, the wasm inline) |`);
  console.log(`| model download, bytes | ${weights.ort} (step.onnx) | ${weights.posenc} (config.json, model.safetensors) |`);
  console.log(`| load, ms (one cold run) | ${ortLoad.toFixed(0)} (InferenceSession.create, ORT's wasm compiled) | ${posencLoad.toFixed(0)} (createModel) |`);
  return failures.length === 0;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await posenc.init();
  if (!(await checkpointOrt())) {
    console.error('checkpoint-ort.mjs: posenc and ORT (or torch) disagree: see FAILED above');
    process.exitCode = 1;
  }
}
