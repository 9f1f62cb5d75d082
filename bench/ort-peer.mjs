// ort-peer.mjs: what the benches against ONNX Runtime Web share
// (bench/encoder-ort.mjs: the full pass; bench/generate-ort.mjs: prefill and
// generation): loading ORT and the exported models' index, the wasm SIMD
// peak probe, and the statistics.
import { existsSync, readFileSync } from 'node:fs';

export const root = new URL('../', import.meta.url);
export const ONNX_DIR = new URL('build/onnx/', root);
const ORT_ENTRY = new URL('bench/ort/node_modules/onnxruntime-web/dist/ort.node.min.mjs', root);
const PROBES = new URL('build/bench/probes.wasm', root);

export const median = (t) => [...t].sort((a, b) => a - b)[t.length >> 1];

/** max |a - b| / max |b| */
export function relDiff(a, b) {
  let err = 0;
  let scale = 0;
  for (let i = 0; i < b.length; i++) {
    err = Math.max(err, Math.abs(a[i] - b[i]));
    scale = Math.max(scale, Math.abs(b[i]));
  }
  return err / scale;
}

const ortMemories = [];

/**
 * Bytes of the wasm memories made since loadOrt() (ORT's heap: its
 * Emscripten build creates its memory with new WebAssembly.Memory and
 * imports it), or null when none was made.
 */
export const ortHeapBytes = () => (ortMemories.length ? ortMemories.reduce((sum, m) => sum + m.buffer.byteLength, 0) : null);

/** onnxruntime-web (wasm backend, SIMD, one thread), or why it is missing. */
export async function loadOrt() {
  if (!existsSync(ORT_ENTRY)) return { missing: 'onnxruntime-web is not installed (make bench installs it: npm ci --prefix bench/ort)' };
  if (!WebAssembly.Memory.ortPeer) {
    WebAssembly.Memory = new Proxy(WebAssembly.Memory, {
      construct(target, args) {
        const memory = Reflect.construct(target, args);
        ortMemories.push(memory);
        return memory;
      },
      get: (target, key) => (key === 'ortPeer' ? true : Reflect.get(target, key)),
    });
  }
  const ort = await import(ORT_ENTRY.href);
  ort.env.wasm.numThreads = 1;
  ort.env.logLevel = 'error';
  return { ort };
}

/** build/onnx/index.json (tools/train/export_onnx.py), or null. */
export function loadIndex() {
  const file = new URL('index.json', ONNX_DIR);
  return existsSync(file) ? JSON.parse(readFileSync(file)) : null;
}

export const onnxFile = (name) => new URL(name, ONNX_DIR);

/** The probe's module (bench/probes.c), or null when it is not built. */
export async function loadProbes() {
  if (!existsSync(PROBES)) return null;
  const { instance } = await WebAssembly.instantiate(readFileSync(PROBES), { env: { emscripten_notify_memory_growth() {} } });
  instance.exports._initialize();
  return instance.exports;
}

const PEAK_ITERS = 300_000; // 96 flops each: ~1 ms at 30 GFLOP/s

/**
 * The wasm SIMD arithmetic peak in GFLOP/s: probe_f32x4_madd (12 independent
 * chains of f32x4 multiply + add, compiled as the SIMD build compiles the
 * kernels), median of 9. Timed right after each row's rounds: the machine is
 * shared and its speed moves, so each row gets its own (timed inside the
 * rounds, the probe slowed ORT's next run several-fold).
 */
export function peakGflops(probes) {
  if (!probes) return null;
  const t = [];
  for (let r = 0; r < 9; r++) {
    const t0 = performance.now();
    probes.probe_f32x4_madd(0.5, 1, PEAK_ITERS);
    t.push(performance.now() - t0);
  }
  return (96 * PEAK_ITERS) / (median(t) / 1e3) / 1e9;
}

/** The largest logit, the first of equal ones (posenc's greedy choice; the logits here are finite). */
export function argmax(row) {
  let best = 0;
  for (let v = 1; v < row.length; v++) if (row[v] > row[best]) best = v;
  return best;
}

/**
 * A KV-cache step graph looped as transformers.js loops a decoder's: inputs
 * input_ids and position_ids int64 [1][s] and past_key_values.<l>.key /
 * .value float32 [1][kvHeads][past][headDim]; outputs logits [1][s][vocabSize]
 * and present.<l>.key / .value, fed back as the next run's past (new input
 * tensors each run). shape: { layers, kvHeads, headDim, vocabSize }.
 * prefill() is the prompt's last logits; generate(rows?) the newTokens greedy
 * tokens, each step's logits pushed onto rows when given an array.
 */
export function ortStepLoop(ort, session, shape, prompt, newTokens) {
  const { layers, kvHeads, headDim, vocabSize } = shape;
  const empty = () => new ort.Tensor('float32', new Float32Array(0), [1, kvHeads, 0, headDim]);
  const names = [];
  for (let l = 0; l < layers; l++) names.push([`past_key_values.${l}.key`, `present.${l}.key`], [`past_key_values.${l}.value`, `present.${l}.value`]);
  /** One run on `ids` at positions start .. start + ids.length - 1; past: tensors by input name. */
  async function step(ids, start, past) {
    const s = ids.length;
    const feeds = {
      input_ids: new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), [1, s]),
      position_ids: new ort.Tensor('int64', BigInt64Array.from({ length: s }, (_, k) => BigInt(start + k)), [1, s]),
    };
    for (const [input] of names) feeds[input] = past ? past[input] : empty();
    const out = await session.run(feeds);
    const present = {};
    for (const [input, output] of names) present[input] = out[output];
    return { logits: out.logits.data.subarray((s - 1) * vocabSize, s * vocabSize), present };
  }
  return {
    prefill: async () => (await step(prompt, 0, null)).logits,
    async generate(rows) {
      const tokens = new Int32Array(newTokens);
      let r = await step(prompt, 0, null);
      for (let i = 0; ; i++) {
        if (rows) rows.push(r.logits.slice());
        tokens[i] = argmax(r.logits);
        if (i + 1 === newTokens) return tokens;
        r = await step([tokens[i]], prompt.length + i, r.present);
      }
    },
  };
}

/**
 * The contenders both KV-cache benches time: ORT's and posenc's prefill of
 * `prompt` (`reps` times each), ORT's step loop and posenc's `generate`.
 */
export function prefillAndGenerate(loop, decoder, prompt, reps, generate) {
  return {
    'ORT prefill': async () => {
      for (let k = 0; k < reps; k++) await loop.prefill();
    },
    'posenc prefill': () => {
      for (let k = 0; k < reps; k++) {
        decoder.reset();
        decoder.feed(prompt);
      }
    },
    'ORT generate': () => loop.generate(null),
    'posenc generate': generate,
  };
}

/**
 * Times contenders ({ name: async () => void }) interleaved: warm-up rounds
 * (at least `warmup` and `warmupMs`, so both engines' code is optimized: V8
 * tiers wasm up while it runs), then at least `rounds` rounds, more (up to 10x)
 * until they have run `minMs`: short rows get more samples, so that the
 * preemptions of a shared machine stay a minority that the median ignores.
 * Returns every sample in ms by name.
 */
export async function interleaved(contenders, { warmup = 3, warmupMs = 300, rounds, minMs }) {
  const times = Object.fromEntries(Object.keys(contenders).map((k) => [k, []]));
  const start = performance.now();
  for (let r = 0; r < warmup || performance.now() - start < warmupMs; r++) for (const run of Object.values(contenders)) await run();
  const timed = performance.now();
  for (let r = 0; r < rounds || (r < 10 * rounds && performance.now() - timed < minMs); r++) {
    for (const [name, run] of Object.entries(contenders)) {
      const t0 = performance.now();
      await run();
      times[name].push(performance.now() - t0);
    }
  }
  return times;
}
