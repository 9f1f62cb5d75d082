// half-weights.mjs: a checkpoint's F16 or BF16 weights kept as given in wasm
// memory (2 bytes each, widened to float32 in registers as each product
// reads them: nn_linear_half, src/encoder/nn_kernels.c), against the same
// values widened to float32 at load (nn_linear). On the benchmark
// checkpoint's matrices (build/checkpoints/llama-10m/, bench/checkpoint-ort.mjs:
// 8 layers of q 256x256, k and v 128x256, o 256x256, gate and up 768x256,
// down 256x768, and the LM head 8192x256), rounded to F16 and BF16 by
// writeSafetensors, the kernels called straight (bench/half_weights.c,
// compiled as the SIMD build compiles the kernels):
// - one token, the whole model: every matrix its own, one row each (33.6 MB
//   of float32 or 16.8 MB of halves: what a generation step reads);
// - each shape alone, one row, its matrix read again and again (in cache
//   where it fits);
// - a 128-token prefill's product on two shapes (more than one row: four
//   rows of W widened into a tile at a time, which every row then reads).
// Round-robin, BENCH_ROUNDS rounds (default 30) after 2; the median and the
// fastest of each. Checked in the same run: the wasm's widening equals
// readSafetensors' (JS) bit for bit, and the half kernels' outputs (one row
// and 128) equal the float32 kernel's on the widened weights bit for bit.
// `make bench` runs it; alone: `node bench/half-weights.mjs` after `make
// build/bench/half-weights.wasm build/checkpoints/llama-10m/index.json`.
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import * as posenc from '../dist/encoder.mjs';
import { median } from './ort-peer.mjs';

const ROUNDS = Number(process.env.BENCH_ROUNDS || 30);
const WASM = new URL('../build/bench/half-weights.wasm', import.meta.url);
const CKPT = new URL('../build/checkpoints/llama-10m/', import.meta.url);
const DTYPES = ['float32', 'F16', 'BF16'];
const PREFILL = 128;

function main() {
  for (const [file, make] of [[WASM, 'build/bench/half-weights.wasm'], [new URL('model.safetensors', CKPT), 'build/checkpoints/llama-10m/index.json']]) {
    if (!existsSync(file)) {
      console.log(`half-weights.mjs: ${file.pathname} is missing (make ${make})`);
      return true;
    }
  }
  return run();
}

/** The raw little-endian data of each tensor of a safetensors file, by name. */
function rawTensors(bytes) {
  const n = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n)));
  const out = {};
  for (const [name, t] of Object.entries(header)) {
    if (name !== '__metadata__') out[name] = bytes.subarray(8 + n + t.data_offsets[0], 8 + n + t.data_offsets[1]);
  }
  return out;
}

async function run() {
  const { instance } = await WebAssembly.instantiate(readFileSync(WASM), { env: { emscripten_notify_memory_growth() {} } });
  const k = instance.exports;
  k._initialize();
  const config = JSON.parse(readFileSync(new URL('config.json', CKPT)));
  const file = posenc.readSafetensors(readFileSync(new URL('model.safetensors', CKPT)));
  const names = [];
  for (let l = 0; l < config.num_hidden_layers; l++) {
    for (const p of ['self_attn.q_proj', 'self_attn.k_proj', 'self_attn.v_proj', 'self_attn.o_proj', 'mlp.gate_proj', 'mlp.up_proj', 'mlp.down_proj']) names.push(`model.layers.${l}.${p}.weight`);
  }
  names.push('lm_head.weight');

  // each matrix in wasm memory as float32 (the checkpoint's values), F16 and BF16 (rounded by writeSafetensors)
  const alloc = (bytes) => {
    const p = k.malloc(bytes);
    if (!p) throw new Error('half-weights.mjs: out of wasm memory');
    return p;
  };
  const mats = names.map((name) => ({ name, shape: file.tensors[name].shape, at: {} }));
  const maxN = Math.max(...mats.map((m) => m.shape[1]));
  const maxOuts = Math.max(...mats.map((m) => m.shape[0]));
  const x = alloc(4 * PREFILL * maxN);
  const y = alloc(4 * PREFILL * maxOuts);
  const yRef = alloc(4 * PREFILL * maxOuts);
  const tile = alloc(4 * 4 * maxN);
  const scratch = alloc(4 * maxOuts * maxN);
  new Float32Array(k.memory.buffer, x, PREFILL * maxN).set(Float32Array.from({ length: PREFILL * maxN }, (_, i) => Math.sin(0.7 * i + 0.3)));
  const failures = [];
  for (const [dtype, code] of [['F32', 0], ['F16', 1], ['BF16', 2]]) {
    const tensors = Object.fromEntries(mats.map((m) => [m.name, { shape: m.shape, data: file.tensors[m.name].data, dtype }]));
    const bytes = posenc.writeSafetensors(tensors);
    const raw = rawTensors(bytes);
    const widened = posenc.readSafetensors(bytes).tensors;
    for (const m of mats) {
      const p = alloc(raw[m.name].length);
      new Uint8Array(k.memory.buffer, p, raw[m.name].length).set(raw[m.name]);
      m.at[code] = p;
      if (code === 0) continue;
      // the checks: wasm's widening against JS's, and the half kernel against float32 on the widened values
      const count = m.shape[0] * m.shape[1];
      k.widen(code, scratch, p, count);
      const w = new Float32Array(k.memory.buffer, scratch, count);
      const js = widened[m.name].data;
      if (w.some((v, i) => !Object.is(v, js[i]))) failures.push(`${dtype} ${m.name}: the wasm's widening differs from readSafetensors'`);
      for (const rows of [1, PREFILL]) {
        k.matvec(0, yRef, x, rows, scratch, m.shape[0], m.shape[1], tile, 1);
        k.matvec(code, y, x, rows, p, m.shape[0], m.shape[1], tile, 1);
        const a = new Uint32Array(k.memory.buffer, y, rows * m.shape[0]);
        const b = new Uint32Array(k.memory.buffer, yRef, rows * m.shape[0]);
        if (a.some((v, i) => v !== b[i])) failures.push(`${dtype} ${m.name}, ${rows} rows: the half kernel's outputs differ from float32's on the widened weights`);
      }
    }
  }

  const token = (code) => () => {
    for (const m of mats) k.matvec(code, y, x, 1, m.at[code], m.shape[0], m.shape[1], tile, 1);
  };
  const shape = (m, code, rows, reps) => () => k.matvec(code, y, x, rows, m.at[code], m.shape[0], m.shape[1], tile, reps);
  const pick = (suffix) => mats.find((m) => m.name.endsWith(suffix));
  const single = [
    ['q or o 256x256', pick('0.self_attn.q_proj.weight')],
    ['k or v 128x256', pick('0.self_attn.k_proj.weight')],
    ['gate or up 768x256', pick('0.mlp.gate_proj.weight')],
    ['down 256x768', pick('0.mlp.down_proj.weight')],
    ['LM head 8192x256', pick('lm_head.weight')],
  ];
  const measures = {};
  const floats = mats.reduce((s, m) => s + m.shape[0] * m.shape[1], 0);
  for (const [code, dtype] of DTYPES.entries()) measures[`one token, the whole model (${((floats * (code ? 2 : 4)) / 1e6).toFixed(1)} MB), ${dtype}`] = { run: token(code), reps: 1, floats };
  for (const [label, m] of single) {
    const reps = Math.max(1, Math.round(2e6 / (m.shape[0] * m.shape[1])));
    for (const [code, dtype] of DTYPES.entries()) measures[`${label}, ${dtype}`] = { run: shape(m, code, 1, reps), reps, floats: m.shape[0] * m.shape[1] };
  }
  for (const [label, m] of [single[0], single[2]]) {
    for (const [code, dtype] of DTYPES.entries()) measures[`${label}, ${PREFILL} rows, ${dtype}`] = { run: shape(m, code, PREFILL, 1), reps: 1, floats: m.shape[0] * m.shape[1] };
  }
  const times = Object.fromEntries(Object.keys(measures).map((n) => [n, []]));
  for (let r = 0; r < ROUNDS + 2; r++) {
    for (const [name, m] of Object.entries(measures)) {
      const t0 = performance.now();
      m.run();
      if (r >= 2) times[name].push(((performance.now() - t0) * 1e3) / m.reps);
    }
  }
  console.log(
    `\nF16 and BF16 weights kept as given (nn_linear_half) against float32 (nn_linear), the benchmark checkpoint's matrices (bench/half_weights.c; GB/s: the weights' bytes over the time): ${os.cpus()[0].model}, Node ${process.version}, ${ROUNDS} rounds round-robin`,
  );
  for (const f of failures.slice(0, 10)) console.log(`FAILED: ${f}`);
  console.log('| product, weights | us median | us fastest | x float32 (median) | weights GB/s (median) |');
  console.log('| --- | ---: | ---: | ---: | ---: |');
  const names0 = Object.keys(measures);
  for (let i = 0; i < names0.length; i += DTYPES.length) {
    const base = median(times[names0[i]]);
    for (let c = 0; c < DTYPES.length; c++) {
      const name = names0[i + c];
      const med = median(times[name]);
      const gbs = (measures[name].floats * (c ? 2 : 4)) / (med * 1e3);
      console.log(`| ${name} | ${med.toFixed(1)} | ${Math.min(...times[name]).toFixed(1)} | ${c ? `${(base / med).toFixed(2)}x` : ''} | ${gbs.toFixed(1)} |`);
    }
  }
  return failures.length === 0;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (!(await main())) {
    console.error('half-weights.mjs: a half kernel disagrees with float32: see FAILED above');
    process.exitCode = 1;
  }
}
