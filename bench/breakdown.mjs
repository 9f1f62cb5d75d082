// breakdown.mjs: where the time of the two zero-copy kernels goes, in cycles per
// value (`make bench` runs it after run.mjs; alone: `node bench/breakdown.mjs`).
//
// Every measure runs round-robin in one process (BENCH_ROUNDS rounds after two
// warm-up rounds, medians). The parts are probes of bench/probes.c, linked with
// the kernels' own sources:
//   table, sinusoidal 8192 x 1024 interleaved, zero-copy (WasmArray)
//     stores       probe_store (linear) and probe_store_tiles (the kernel's order)
//     recurrence   probe_recurrence: trig.c's tile loop, the f64 multiplies and
//                  adds only (no float conversion, no store of a value)
//     kernel, L1   probe_table_l1: trig_fill itself with a row stride of 0, so
//                  every row lands on the same 4 KB (recurrence + anchors +
//                  conversion + stores, all in L1)
//     kernel       posenc_sinusoidal called straight on the probes' module
//     shipped      the same on dist/posenc.wasm (linked -Oz, as the package ships it)
//     posenc       posenc.sinusoidal({ out: WasmArray }) from JS
//   RoPE in place, [2048][32][128] 'half' layout, zero-copy
//     cos/sin      probe_rope_trig: the kernel's cos/sin recurrence, one row per position
//     rotation, L1 probe_rope_rotate, row stride 0: rope_rotate (the kernel's
//                  multiply-adds, its loads and stores) on one 16 KB row, seq times
//     rotation     probe_rope_rotate over all of x, one cos/sin row for every position
//                  (and probe_rope_rotate_kouter: the loops turned, a reference)
//     kernel       posenc_rope_apply called straight on the probes' module (the
//                  frequencies given as the rope struct's inv_freq, as a model's are)
//     shipped      the same on dist/posenc.wasm
//     posenc       posenc.applyRope(WasmArray) from JS
// Each part is the difference between consecutive rungs; parts that overlap in
// the core show as the time the next rung adds, not as their time alone.
// Per-call overhead: the same calls at one row, timed over many calls.
//
// The clock: probe_clock, a chain of dependent i32 add + xor (1 cycle each on
// any x86-64 core: 2 cycles a step) gives the cycles per nanosecond of the run;
// probe_clock_f64 (dependent f64 adds) and /proc/cpuinfo's MHz are printed
// beside it as cross-checks.
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { rope as ROPE_STRUCT } from '../build/abi.js';
import * as posenc from '../dist/posenc.mjs';

const ROUNDS = Number(process.env.BENCH_ROUNDS || 15);
const WARMUP = 3;

async function loadProbes() {
  const bytes = readFileSync(new URL('../build/bench/probes.wasm', import.meta.url));
  const { instance } = await WebAssembly.instantiate(bytes, { env: { emscripten_notify_memory_growth() {} } });
  instance.exports._initialize();
  return instance.exports;
}

/**
 * Runs every contender WARMUP times, pauses (V8 compiles the optimized tier of
 * a wasm function in the background after its first calls: on a busy machine
 * that takes a while), then ROUNDS times round-robin; returns medians in ms.
 */
async function race(contenders) {
  for (let r = 0; r < WARMUP; r++) for (const run of Object.values(contenders)) run();
  await new Promise((resolve) => setTimeout(resolve, 500));
  const times = Object.fromEntries(Object.keys(contenders).map((k) => [k, []]));
  for (let r = 0; r < ROUNDS; r++) {
    for (const [name, run] of Object.entries(contenders)) {
      const t0 = performance.now();
      run();
      times[name].push(performance.now() - t0);
    }
  }
  return Object.fromEntries(Object.entries(times).map(([k, t]) => [k, t.sort((a, b) => a - b)[t.length >> 1]]));
}

function cpuinfoMHz() {
  try {
    const m = readFileSync('/proc/cpuinfo', 'utf8').match(/cpu MHz\s*:\s*([\d.]+)/);
    return m ? Number(m[1]) : NaN;
  } catch {
    return NaN;
  }
}

const p = await loadProbes();
await posenc.init();
// the shipped SIMD module (dist/posenc.wasm, linked -Oz; it imports nothing),
// its exports called straight, beside posenc's own instance that the JS API uses
const shipped = (await WebAssembly.instantiate(readFileSync(new URL('../dist/posenc.wasm', import.meta.url)), {})).instance.exports;
shipped._initialize();
const heapF32 = () => new Float32Array(p.memory.buffer);
const heapF64 = () => new Float64Array(p.memory.buffer);

// ------------------------------------------------------------- the table
const L = 8192;
const D = 1024;
const TABLE_N = L * D;
const half = D / 2;
const w = Float64Array.from({ length: half }, (_, i) => Math.pow(10000, -i / half));
const pW = p.malloc(8 * half);
heapF64().set(w, pW >> 3);
const pState = p.malloc(8 * 4 * half); // s, c, step_c, step_s
{
  const st = heapF64();
  const o = pState >> 3;
  for (let i = 0; i < half; i++) {
    st[o + i] = 0;
    st[o + half + i] = 1;
    st[o + 2 * half + i] = Math.cos(w[i]);
    st[o + 3 * half + i] = Math.sin(w[i]);
  }
}
const pRow = p.malloc(4 * D);
const pTable = p.malloc(4 * TABLE_N);
const pTiny = p.malloc(4 * D);
const sTable = shipped.malloc(4 * TABLE_N);
const sTiny = shipped.malloc(4 * D);
const waTable = posenc.allocate('float32', TABLE_N);
const waTiny = posenc.allocate('float32', D);

// ------------------------------------------------------------- RoPE
const SEQ = 2048;
const HEADS = 32;
const HEAD_DIM = 128;
const ROPE_N = SEQ * HEADS * HEAD_DIM;
const ROW = HEADS * HEAD_DIM;
const rhalf = HEAD_DIM / 2;
const ropeOpts = { heads: HEADS, headDim: HEAD_DIM, base: 10000 };
const invFreq = Float64Array.from({ length: rhalf }, (_, k) => Math.pow(10000, (-2 * k) / HEAD_DIM));
const pInv = p.malloc(8 * rhalf);
heapF64().set(invFreq, pInv >> 3);
/** A posenc_rope in `memory` at `at` (its layout: build/abi.js): rotary_dim HEAD_DIM, the frequencies given. */
function writeRope(memory, at, invFreqPtr) {
  const view = new DataView(memory.buffer);
  for (let i = 0; i < ROPE_STRUCT.bytes; i++) view.setUint8(at + i, 0);
  view.setUint32(at + ROPE_STRUCT.fields.rotary_dim[0], HEAD_DIM, true);
  view.setUint32(at + ROPE_STRUCT.fields.inv_freq[0], invFreqPtr, true);
  view.setFloat64(at + ROPE_STRUCT.fields.attention_factor[0], 1, true);
}
const pRope = p.malloc(ROPE_STRUCT.bytes);
writeRope(p.memory, pRope, pInv);
const pCos = p.malloc(4 * rhalf);
const pSin = p.malloc(4 * rhalf);
{
  const h = heapF32();
  for (let k = 0; k < rhalf; k++) {
    h[(pCos >> 2) + k] = Math.cos(1000 * invFreq[k]);
    h[(pSin >> 2) + k] = Math.sin(1000 * invFreq[k]);
  }
}
const input = Float32Array.from({ length: ROPE_N }, (_, i) => Math.sin(i * 0.618) * 2);
const pX = p.malloc(4 * ROPE_N); // rotated by the float probes and the kernel
const pXBits = p.malloc(4 * ROPE_N); // the bitwise probe (its values are not floats that matter)
const pXRow = p.malloc(4 * ROW);
const pXTiny = p.malloc(4 * ROW);
const pRW = p.malloc(4 * ROPE_N);
heapF32().set(input, pX >> 2);
heapF32().set(input, pXBits >> 2);
heapF32().set(input, pRW >> 2);
heapF32().set(input.subarray(0, ROW), pXRow >> 2);
heapF32().set(input.subarray(0, ROW), pXTiny >> 2);
const sX = shipped.malloc(4 * ROPE_N);
const sXTiny = shipped.malloc(4 * ROW);
const sInv = shipped.malloc(8 * rhalf);
new Float64Array(shipped.memory.buffer).set(invFreq, sInv >> 3);
const sRope = shipped.malloc(ROPE_STRUCT.bytes);
writeRope(shipped.memory, sRope, sInv);
new Float32Array(shipped.memory.buffer).set(input, sX >> 2);
new Float32Array(shipped.memory.buffer).set(input.subarray(0, ROW), sXTiny >> 2);
const waRope = posenc.allocate('float32', ROPE_N);
waRope.array.set(input);
const waRopeTiny = posenc.allocate('float32', ROW);
waRopeTiny.array.set(input.subarray(0, ROW));

// ------------------------------------------------------------- the race
const CLOCK_ITERS = 200000; // 32 cycles each by the chain: ~6.4 M cycles
const TINY_CALLS = 200;
let sink = 0;
const contenders = {
  clock: () => (sink ^= p.probe_clock(sink, 0x9e3779b9, 0x7f4a7c15, CLOCK_ITERS)),
  'clock f64': () => (sink += p.probe_clock_f64(1, 1e-300, CLOCK_ITERS)),

  'table: store-only limit': () => p.probe_store(pTable, TABLE_N),
  "table: stores, the kernel's order": () => p.probe_store_tiles(pTable, L, D, D, 0.5),
  'table: stores, in strips of 256 floats': () => p.probe_store_tiles(pTable, L, D, 256, 0.5),
  'table: recurrence': () => p.probe_recurrence(pState, L, half),
  'table: kernel, L1': () => p.probe_table_l1(pRow, L, D, pW),
  'table: kernel': () => p.posenc_sinusoidal(pTable, TABLE_N, L, D, 10000, 0, 0),
  'table: shipped kernel': () => shipped.posenc_sinusoidal(sTable, TABLE_N, L, D, 10000, 0, 0),
  'table: posenc zero-copy': () => posenc.sinusoidal({ length: L, dModel: D, out: waTable }),
  'table: kernel, 1 row x200': () => {
    for (let i = 0; i < TINY_CALLS; i++) p.posenc_sinusoidal(pTiny, D, 1, D, 10000, 0, 0);
  },
  'table: shipped kernel, 1 row x200': () => {
    for (let i = 0; i < TINY_CALLS; i++) shipped.posenc_sinusoidal(sTiny, D, 1, D, 10000, 0, 0);
  },
  'table: posenc zero-copy, 1 row x200': () => {
    for (let i = 0; i < TINY_CALLS; i++) posenc.sinusoidal({ length: 1, dModel: D, out: waTiny });
  },

  'rope: read+write limit': () => p.probe_read_write(pRW, ROPE_N, 1),
  'rope: loads+stores, no arithmetic': () => p.probe_rope_memory(pXBits, SEQ, HEADS, HEAD_DIM, pCos, pSin),
  'rope: cos/sin recurrence': () => p.probe_rope_trig(pCos, pSin, pInv, rhalf, SEQ),
  'rope: rotation, L1': () => p.probe_rope_rotate(pXRow, SEQ, 0, HEADS, HEAD_DIM, pCos, pSin),
  'rope: rotation': () => p.probe_rope_rotate(pX, SEQ, ROW, HEADS, HEAD_DIM, pCos, pSin),
  'rope: rotation, loops turned, L1': () => p.probe_rope_rotate_kouter(pXRow, SEQ, 0, HEADS, HEAD_DIM, pCos, pSin),
  'rope: rotation, loops turned': () => p.probe_rope_rotate_kouter(pX, SEQ, ROW, HEADS, HEAD_DIM, pCos, pSin),
  'rope: kernel': () => p.posenc_rope_apply(pX, ROPE_N, 1, SEQ, HEADS, HEAD_DIM, 0, 0, 0, 0, pRope),
  'rope: shipped kernel': () => shipped.posenc_rope_apply(sX, ROPE_N, 1, SEQ, HEADS, HEAD_DIM, 0, 0, 0, 0, sRope),
  'rope: posenc zero-copy': () => posenc.applyRope(waRope, ropeOpts),
  'rope: kernel, 1 row x200': () => {
    for (let i = 0; i < TINY_CALLS; i++)
      p.posenc_rope_apply(pXTiny, ROW, 1, 1, HEADS, HEAD_DIM, 0, 0, 0, 0, pRope);
  },
  'rope: shipped kernel, 1 row x200': () => {
    for (let i = 0; i < TINY_CALLS; i++)
      shipped.posenc_rope_apply(sXTiny, ROW, 1, 1, HEADS, HEAD_DIM, 0, 0, 0, 0, sRope);
  },
  'rope: posenc zero-copy, 1 row x200': () => {
    for (let i = 0; i < TINY_CALLS; i++) posenc.applyRope(waRopeTiny, ropeOpts);
  },
};
// the probes' cos/sin rows, re-set after the cos/sin probe overwrote them with position 2047's
const rope = contenders['rope: cos/sin recurrence'];
contenders['rope: cos/sin recurrence'] = () => {
  rope();
  const h = heapF32();
  for (let k = 0; k < rhalf; k++) {
    h[(pCos >> 2) + k] = Math.cos(1000 * invFreq[k]);
    h[(pSin >> 2) + k] = Math.sin(1000 * invFreq[k]);
  }
};
const ms = await race(contenders);

// ------------------------------------------------------------- report
const nsPerCycle = (ms.clock * 1e6) / (CLOCK_ITERS * 32);
const ghz = 1 / nsPerCycle;
const f64AddCycles = (ms['clock f64'] * 1e6) / (CLOCK_ITERS * 16) / nsPerCycle;
const mhz = cpuinfoMHz();
const cyc = (t, n) => (t * 1e6) / n / nsPerCycle;
const ns = (t, n) => (t * 1e6) / n;

console.log(
  `\nbreakdown: ${os.cpus()[0].model}, ${os.cpus().length} cores, Node ${process.version}, ${ROUNDS} rounds round-robin after ${WARMUP} warm-up rounds, medians`,
);
console.log(
  `clock: ${ghz.toFixed(2)} GHz by a dependent i32 add + xor chain (2 cycles a step); the same run times a dependent f64 add at ${f64AddCycles.toFixed(2)} cycles; /proc/cpuinfo says ${mhz.toFixed(0)} MHz (nominal: ${(ghz * 1000 / mhz).toFixed(2)}x of it measured)`,
);

function partsTable(title, n, parts, total, refs) {
  console.log(`\n${title}`);
  console.log('| part | ns/value | cycles/value | share of the total |');
  console.log('| --- | ---: | ---: | ---: |');
  for (const [name, t] of parts) {
    console.log(`| ${name} | ${ns(t, n).toFixed(3)} | ${cyc(t, n).toFixed(2)} | ${((100 * t) / total).toFixed(0)}% |`);
  }
  console.log(`| **total** (${total.toFixed(2)} ms) | ${ns(total, n).toFixed(3)} | ${cyc(total, n).toFixed(2)} | 100% |`);
  for (const [name, t] of refs) console.log(`| ${name} | ${ns(t, n).toFixed(3)} | ${cyc(t, n).toFixed(2)} | ${(t / total).toFixed(2)}x the total |`);
}

{
  const t = (k) => ms[`table: ${k}`];
  const callJs = t('posenc zero-copy, 1 row x200') / TINY_CALLS;
  const callKernel = t('shipped kernel, 1 row x200') / TINY_CALLS;
  partsTable(
    `sinusoidal table ${L} x ${D}, zero-copy: ${t('posenc zero-copy').toFixed(2)} ms, ${(t('posenc zero-copy') / t('store-only limit')).toFixed(2)}x the store-only limit`,
    TABLE_N,
    [
      ['f64 recurrence (probe_recurrence)', t('recurrence')],
      ['float conversion, stores to L1, anchors (kernel on L1 - recurrence)', t('kernel, L1') - t('recurrence')],
      ['the table\'s 32 MB leaving L1 (kernel - kernel on L1)', t('kernel') - t('kernel, L1')],
      ['the shipped build (dist/posenc.wasm, linked -Oz) - the probes\' copy (linked -O3)', t('shipped kernel') - t('kernel')],
      ['JS call (posenc.sinusoidal - the shipped kernel called directly)', t('posenc zero-copy') - t('shipped kernel')],
    ],
    t('posenc zero-copy'),
    [
      ['reference: store-only limit (probe_store)', t('store-only limit')],
      ['reference: kernel on L1 (probe_table_l1)', t('kernel, L1')],
      ["reference: the stores alone in the kernel's order, tiles of 8 whole rows (probe_store_tiles)", t("stores, the kernel's order")],
      ['reference: the same stores in strips of 256 floats down the table, the order before trig.c wrote whole rows', t('stores, in strips of 256 floats')],
    ],
  );
  console.log(
    `per call (1 row, d = ${D}): posenc.sinusoidal ${(callJs * 1e3).toFixed(1)} us, the shipped kernel called directly ${(callKernel * 1e3).toFixed(1)} us (frequencies, steps, the first anchor); at ${L} x ${D}: ${cyc(callJs, TABLE_N).toFixed(3)} cycles/value, of which the JS side ${cyc(callJs - callKernel, TABLE_N).toFixed(4)}`,
  );
}

{
  const t = (k) => ms[`rope: ${k}`];
  const callJs = t('posenc zero-copy, 1 row x200') / TINY_CALLS;
  const callKernel = t('shipped kernel, 1 row x200') / TINY_CALLS;
  partsTable(
    `RoPE in place [${SEQ}][${HEADS}][${HEAD_DIM}] 'half', zero-copy: ${t('posenc zero-copy').toFixed(2)} ms, ${(t('posenc zero-copy') / t('read+write limit')).toFixed(2)}x the read+write limit`,
    ROPE_N,
    [
      ['cos/sin recurrence, one row per position (probe_rope_trig)', t('cos/sin recurrence')],
      ['rotation multiply-adds, loads and stores in L1 (probe_rope_rotate, one row)', t('rotation, L1')],
      ['x\'s 32 MB read and written beyond L1 (rotation over x - rotation on one row)', t('rotation') - t('rotation, L1')],
      ['rest of the kernel (kernel - cos/sin - rotation over x)', t('kernel') - t('cos/sin recurrence') - t('rotation')],
      ['the shipped build (dist/posenc.wasm, linked -Oz) - the probes\' copy (linked -O3)', t('shipped kernel') - t('kernel')],
      ['JS call (posenc.applyRope - the shipped kernel called directly)', t('posenc zero-copy') - t('shipped kernel')],
    ],
    t('posenc zero-copy'),
    [
      ['reference: read+write limit (probe_read_write)', t('read+write limit')],
      ['reference: the loads and stores, no arithmetic (probe_rope_memory)', t('loads+stores, no arithmetic')],
      ['reference: rotation over x (probe_rope_rotate)', t('rotation')],
      ['reference: rotation with the loops turned (cos/sin loaded once per row), one row (probe_rope_rotate_kouter)', t('rotation, loops turned, L1')],
      ['reference: the same over x', t('rotation, loops turned')],
    ],
  );
  console.log(
    `per call (1 row, [1][${HEADS}][${HEAD_DIM}]): posenc.applyRope ${(callJs * 1e3).toFixed(1)} us, the shipped kernel called directly ${(callKernel * 1e3).toFixed(1)} us; at [${SEQ}][${HEADS}][${HEAD_DIM}]: ${cyc(callJs, ROPE_N).toFixed(3)} cycles/value, of which the JS side ${cyc(callJs - callKernel, ROPE_N).toFixed(4)}`,
  );
}

console.log('\nall medians (ms):');
for (const [k, v] of Object.entries(ms)) console.log(`  ${k}: ${v.toFixed(3)}`);
if (sink === 0.5) console.log(''); // keeps the clock's results alive
waTable.free();
waTiny.free();
waRope.free();
waRopeTiny.free();
