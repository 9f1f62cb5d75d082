// run.mjs: `make bench`. Contenders run round-robin in one process; the table
// prints medians and each one's time as a multiple of the task's limit (a wasm
// loop that only stores, or only reads and writes, the same bytes), and the
// max error of each against the formula in double precision. Download and
// startup are bench/size.mjs's (make bench runs both).
import { readFileSync } from 'node:fs';
import os from 'node:os';
import * as posenc from '../dist/posenc.mjs';
import { naive, optimized, careful, tfjsTable } from './table-peers.js';
import { ropeTasks } from './rope-peers.js';
import { visionTasks } from './vision-peers.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS || 7);

async function loadProbes() {
  const bytes = readFileSync(new URL('../build/bench/probes.wasm', import.meta.url));
  const { instance } = await WebAssembly.instantiate(bytes, { env: { emscripten_notify_memory_growth() {} } });
  instance.exports._initialize();
  return instance.exports;
}

async function loadTf() {
  const tf = await import('@tensorflow/tfjs-core');
  await import('@tensorflow/tfjs-backend-cpu');
  await import('@tensorflow/tfjs-backend-wasm');
  for (const backend of ['wasm', 'cpu']) await tf.setBackend(backend);
  return tf;
}

/** Runs every contender ROUNDS times, round-robin; returns medians in ms. */
function race(contenders) {
  const times = Object.fromEntries(Object.keys(contenders).map((k) => [k, []]));
  for (let r = 0; r < ROUNDS; r++) {
    for (const [name, run] of Object.entries(contenders)) {
      // contenders slower than a second get three rounds: their ratio is clear by then
      if (r >= 3 && times[name][0] > 1000) continue;
      const t0 = performance.now();
      run();
      times[name].push(performance.now() - t0);
    }
  }
  return Object.fromEntries(Object.entries(times).map(([k, t]) => [k, t.sort((a, b) => a - b)[t.length >> 1]]));
}

/** Max |a - formula| over sampled rows (all of the first and last 64, a stride between). */
function tableError(a, L, d) {
  let worst = 0;
  const rows = [];
  for (let p = 0; p < L; p += p < 64 || p >= L - 64 ? 1 : 97) rows.push(p);
  for (const p of rows) {
    for (let k = 0; k < d; k++) {
      const w = Math.pow(10000, -(k - (k % 2)) / d);
      const v = k % 2 ? Math.cos(p * w) : Math.sin(p * w);
      worst = Math.max(worst, Math.abs(a[p * d + k] - v));
    }
  }
  return worst;
}

function printTable(title, rows, limitName) {
  console.log(`\n${title}`);
  console.log('| contender | median ms | x limit | max error |');
  console.log('| --- | ---: | ---: | ---: |');
  const limit = rows.find((r) => r.name === limitName).ms;
  for (const r of rows) {
    const err = r.error === undefined ? '' : r.error.toExponential(1);
    console.log(`| ${r.name} | ${r.ms.toFixed(2)} | ${(r.ms / limit).toFixed(2)} | ${err} |`);
  }
}

async function tableBench(probes, tf) {
  for (const [L, d] of [[512, 512], [2048, 512], [8192, 1024]]) {
    const n = L * d;
    const out = new Float32Array(n);
    const wa = posenc.allocate('float32', n);
    const probePtr = probes.malloc(n * 4);
    const results = {};
    const contenders = {
      'limit: wasm store + copy-out': () => {
        probes.probe_store(probePtr, n);
        out.set(new Float32Array(probes.memory.buffer, probePtr, n));
      },
      'limit: wasm store only': () => probes.probe_store(probePtr, n),
      'posenc (into a JS array)': () => (results.posenc = posenc.sinusoidal({ length: L, dModel: d, out })),
      'posenc zero-copy (WasmArray)': () => posenc.sinusoidal({ length: L, dModel: d, out: wa }),
      'careful JS (f64 recurrence)': () => (results.careful = careful(L, d, new Float32Array(n))),
      'optimized JS': () => (results.optimized = optimized(L, d, new Float32Array(n))),
      'naive JS (tutorial)': () => (results.naive = naive(L, d)),
    };
    for (const backend of ['cpu', 'wasm']) {
      // both backends are initialised up front, so switching is synchronous
      contenders[`tfjs 4.22 (${backend})`] = () => {
        tf.setBackend(backend);
        results[`tfjs-${backend}`] = tfjsTable(tf, L, d);
      };
    }
    const ms = race(contenders);
    const errors = {
      'posenc (into a JS array)': tableError(results.posenc, L, d),
      'posenc zero-copy (WasmArray)': tableError(wa.array, L, d),
      'careful JS (f64 recurrence)': tableError(results.careful, L, d),
      'optimized JS': tableError(results.optimized, L, d),
      'naive JS (tutorial)': tableError(results.naive, L, d),
      'tfjs 4.22 (cpu)': tableError(results['tfjs-cpu'], L, d),
      'tfjs 4.22 (wasm)': tableError(results['tfjs-wasm'], L, d),
    };
    const rows = Object.keys(ms).map((name) => ({ name, ms: ms[name], error: errors[name] }));
    printTable(`sinusoidal table, L = ${L}, d = ${d} (x limit: against store + copy-out)`, rows, 'limit: wasm store + copy-out');
    const zc = ms['posenc zero-copy (WasmArray)'] / ms['limit: wasm store only'];
    console.log(`zero-copy against the store-only limit: ${zc.toFixed(2)}x`);
    wa.free();
    probes.free(probePtr);
  }
}

console.log(`posenc bench: ${os.cpus()[0].model}, ${os.cpus().length} cores, Node ${process.version}, ${ROUNDS} rounds round-robin, medians`);
await posenc.init();
const probes = await loadProbes();
const tf = await loadTf();
await tableBench(probes, tf);
await ropeTasks({ posenc, probes, race, printTable });
await visionTasks({ posenc, probes, race, printTable });
const encoderEntry = await import('../dist/encoder.mjs');
await encoderEntry.init();
await (await import('./encoder-peers.js')).encoderTasks({ posenc: encoderEntry, race });
await (await import('./cli-formats.js')).cliTasks({ rounds: ROUNDS });
