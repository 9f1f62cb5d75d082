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

/** onnxruntime-web (wasm backend, SIMD, one thread), or why it is missing. */
export async function loadOrt() {
  if (!existsSync(ORT_ENTRY)) return { missing: 'onnxruntime-web is not installed (make bench installs it: npm ci --prefix bench/ort)' };
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
