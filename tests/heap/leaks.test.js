// No leaks, no stale views. 100,000 mixed calls over every function (a
// fraction of them failing, some after posenc has allocated) leave
// posenc.memoryStats() where the first calls left it; zero-copy arrays freed
// twice or used after free raise errors; views of wasm memory are never
// handed out stale, also when a call grows memory while it runs.
import { posenc, thrown } from '../helpers.js';

const CALLS = 100000;

beforeAll(() => posenc.init());

/** A small deterministic generator (LCG) so that a failure can be replayed. */
function rng(seed) {
  let s = seed >>> 0;
  return (n) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return Math.floor((s / 2 ** 32) * n);
  };
}

const SCALINGS = [
  undefined,
  { type: 'linear', factor: 2 },
  { type: 'dynamic', factor: 2, maxPositionEmbeddings: 16 },
  { type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 64 },
  { type: 'llama3', factor: 8, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPositionEmbeddings: 64 },
  { type: 'longrope', shortFactor: [1, 1, 1, 1], longFactor: [2, 2, 2, 2], originalMaxPositionEmbeddings: 32, maxPositionEmbeddings: 64 },
];
const WEIGHTS = Float32Array.from({ length: 32 * 4 }, (_, i) => i / 16);

// Each operation takes the generator; the ones named 'fail' must throw.
const ops = [
  ['sinusoidal', (r) => posenc.sinusoidal({ length: 1 + r(16), dModel: 1 + r(24), offset: r(1e6) - 5e5, layout: ['interleaved', 'concatenated', 'tensor2tensor'][r(3)] })],
  ['sinusoidal into a WasmArray', (r) => {
    const n = 1 + r(12);
    const wa = posenc.allocate('float32', n * 8);
    posenc.sinusoidal({ length: n, dModel: 8, out: wa });
    wa.free();
  }],
  ['fail: sinusoidal', (r) => posenc.sinusoidal({ length: 1 + r(4), dModel: [-1, 0.5, NaN, '8'][r(4)] })],
  ['sinusoidalFrequencies', (r) => posenc.sinusoidalFrequencies({ dModel: 1 + r(64) })],
  ['addSinusoidal', (r) => posenc.addSinusoidal(new Float32Array(8 * (1 + r(8))), { dModel: 8, scale: 2 })],
  ['fail: addSinusoidal', () => posenc.addSinusoidal(new Float32Array(7), { dModel: 8 })],
  ['relativePositions', (r) => posenc.relativePositions({ queryLength: r(12), keyLength: r(12), shift: r(100) })],
  ['ropeFrequencies', (r) => posenc.ropeFrequencies({ rotaryDim: 8, scaling: SCALINGS[r(SCALINGS.length)] })],
  // fails in C, after posenc has staged its buffers: the error path frees them too
  ['fail: ropeFrequencies (rejected by C)', () => posenc.ropeFrequencies({ rotaryDim: 8, scaling: { type: 'linear', factor: 1e-300 } })],
  ['ropeCache', (r) => posenc.ropeCache({ length: 1 + r(8), offset: r(1000), rotaryDim: 8, scaling: SCALINGS[r(SCALINGS.length)], precision: r(2) ? 'float32' : 'float64' })],
  ['ropeCache with positions into WasmArrays', (r) => {
    const n = 1 + r(6);
    const cos = posenc.allocate('float32', n * 4), sin = posenc.allocate('float32', n * 4), positions = posenc.allocate('int32', n);
    positions.array.set(Int32Array.from({ length: n }, () => r(1e6)));
    posenc.ropeCache({ positions, rotaryDim: 8, out: { cos, sin } });
    cos.free();
    sin.free();
    positions.free();
  }],
  ['applyRope', (r) => posenc.applyRope(new Float32Array(16 * (1 + r(4))).fill(1), { heads: 2, headDim: 8, offset: r(1e5), scaling: SCALINGS[r(SCALINGS.length)] })],
  ['applyRope on a WasmArray', (r) => {
    const x = posenc.allocate('float32', 32);
    posenc.applyRope(x, { heads: 1, headDim: 8, positions: Int32Array.of(r(99), r(99), r(99), r(99)), layout: 'interleaved' });
    x.free();
  }],
  ['fail: applyRope (positions of the wrong length)', () => posenc.applyRope(new Float32Array(32), { heads: 1, headDim: 8, positions: new Int32Array(3) })],
  ['fail: applyRope (rejected by C after staging)', () => posenc.applyRope(new Float32Array(16), { heads: 2, headDim: 8, scaling: { type: 'linear', factor: 1e-300 } })],
  ['ropePermuteWeights', (r) => posenc.ropePermuteWeights(new Float32Array(16 * (1 + r(3))), { heads: 2, headDim: 8, from: 'interleaved', to: 'half' })],
  ['ropeFromConfig', () => posenc.ropeFromConfig({ head_dim: 64, rope_scaling: { rope_type: 'linear', factor: 2 } })],
  ['alibiSlopes', (r) => posenc.alibiSlopes(1 + r(32))],
  ['alibiBias', (r) => posenc.alibiBias({ heads: 1 + r(4), queryLength: r(8), keyLength: r(8), causal: r(2) === 1 })],
  ['fail: alibiBias', () => posenc.alibiBias({ heads: 0, queryLength: 3 })],
  ['t5Buckets', (r) => posenc.t5Buckets({ queryLength: r(8), keyLength: r(40), queryOffset: r(100) })],
  ['t5Bias', (r) => posenc.t5Bias({ heads: 4, queryLength: r(6), keyLength: r(6), weights: WEIGHTS })],
  ['fail: t5Bias', () => posenc.t5Bias({ heads: 4, queryLength: 2, weights: WEIGHTS.subarray(1) })],
  ['debertaBuckets', (r) => posenc.debertaBuckets({ queryLength: r(8), keyLength: r(300) })],
  ['transformerXLEmbedding', (r) => posenc.transformerXLEmbedding({ keyLength: r(10), dModel: 2 * (1 + r(8)), clampLength: r(5) })],
  ['mropePositions', (r) => posenc.mropePositions({ spans: [{ text: r(8) }, { image: [1 + r(2), 2 * (1 + r(3)), 2 * (1 + r(3))] }, { text: r(4) }, { video: { t: 1 + r(4), h: 2, w: 4, secondsPerGrid: r(3) / 2 } }], tokensPerSecond: r(3) })],
  ['fail: mropePositions', (r) => posenc.mropePositions({ spans: [[{ image: [1, 3, 4] }], [{ text: -1 }], [{ audio: 2 }]][r(3)] })],
  ['fail: mropePositions (rejected by C)', () => posenc.mropePositions({ spans: [{ video: { t: 3, h: 2, w: 2, secondsPerGrid: 1e9 } }], tokensPerSecond: 100 })],
  ['applyRope with mropeSection', (r) => {
    const seq = 1 + r(6);
    posenc.applyRope(new Float32Array(seq * 16).fill(1), { heads: 1, headDim: 16, mropeSection: [2, 3, 3], positions: Int32Array.from({ length: 3 * seq }, () => r(50)), precision: r(2) ? 'float32' : 'float64' });
  }],
  ['ropeCache with rope2d', (r) => posenc.ropeCache({ rotaryDim: 8, rope2d: ['pixtral', 'axial'][r(2)], grid: { height: r(5), width: r(5) } })],
  ['fail: applyRope with rope2d', (r) => posenc.applyRope(new Float32Array(16), { heads: 1, headDim: 8, rope2d: 'pixtral', grid: { height: 1 + r(3), width: 3 } })],
  ['sinusoidal2d', (r) => posenc.sinusoidal2d({ height: r(6), width: r(6), dModel: 4 * (1 + r(4)), clsToken: r(2) === 1, baseSize: r(2) ? 4 : undefined })],
  ['fail: sinusoidal2d', (r) => posenc.sinusoidal2d({ height: 2, width: 2, dModel: [6, 0, 8.5, '8'][r(4)] })],
  ['timestepEmbedding', (r) => posenc.timestepEmbedding({ timesteps: Float64Array.from({ length: r(6) }, () => r(1000) / 7), dim: 1 + r(40), downscaleFreqShift: 0, flipSinToCos: r(2) === 1 })],
  // fails in C, after posenc has staged its buffers: the error path frees them too
  ['fail: timestepEmbedding (rejected by C)', () => posenc.timestepEmbedding({ timesteps: [1e300], dim: 8, scale: 1e10 })],
  ['fail: allocate', () => posenc.allocate('float32', 0)],
  ['fail: a freed WasmArray as out', () => {
    const wa = posenc.allocate('float32', 8);
    wa.free();
    posenc.sinusoidal({ length: 2, dModel: 4, out: wa });
  }],
  ['fail: free twice', () => {
    const wa = posenc.allocate('int32', 4);
    wa.free();
    wa.free();
  }],
];

test(`${CALLS.toLocaleString('en')} mixed calls over every function, failures included, leak nothing`, () => {
  const r = rng(20260101);
  // first calls: every operation once, at its largest, so memory reaches its size
  const big = () => 0x7fffffff;
  for (const [name, op] of ops) {
    if (name.startsWith('fail')) thrown(() => op((n) => big() % n));
    else op((n) => n - 1);
  }
  const start = posenc.memoryStats();
  let failed = 0;
  for (let i = 0; i < CALLS; i++) {
    const [name, op] = ops[r(ops.length)];
    if (name.startsWith('fail')) {
      const e = thrown(() => op(r));
      expect(e).toBeInstanceOf(Error); // a TypeError, RangeError or Error that posenc raised
      failed++;
    } else {
      op(r);
    }
  }
  expect(posenc.memoryStats()).toEqual(start);
  expect(failed).toBeGreaterThan(CALLS / 5);
  console.log(`leak loop: ${CALLS} calls (${failed} failing) over ${ops.length} operations; memoryStats unchanged: ${JSON.stringify(start)}`);
});

// ------------------------------------------------------------------ use after free

test('a freed WasmArray raises an error wherever it is used; free() twice too', () => {
  const wa = posenc.allocate('float32', 16);
  const ints = posenc.allocate('int32', 4);
  wa.free();
  ints.free();
  const uses = [
    () => wa.array,
    () => wa.free(),
    () => posenc.sinusoidal({ length: 4, dModel: 4, out: wa }),
    () => posenc.addSinusoidal(wa, { dModel: 4 }),
    () => posenc.applyRope(wa, { heads: 1, headDim: 4 }),
    () => posenc.applyRope(new Float32Array(16), { heads: 1, headDim: 4, positions: ints }),
    () => posenc.ropeCache({ positions: ints, rotaryDim: 8 }),
    () => posenc.ropeCache({ length: 4, rotaryDim: 8, out: { cos: wa, sin: new Float32Array(16) } }),
    () => posenc.ropePermuteWeights(wa, { heads: 1, headDim: 4, from: 'half', to: 'interleaved' }),
    () => posenc.alibiBias({ heads: 1, queryLength: 4, out: wa }),
    () => posenc.t5Buckets({ queryLength: 2, keyLength: 2, out: ints }),
    () => posenc.t5Bias({ heads: 1, queryLength: 4, weights: new Float32Array(32), out: wa }),
    () => posenc.debertaBuckets({ queryLength: 2, keyLength: 2, out: ints }),
    () => posenc.transformerXLEmbedding({ keyLength: 4, dModel: 4, out: wa }),
    () => posenc.sinusoidal2d({ height: 1, width: 1, dModel: 16, out: wa }),
    () => posenc.timestepEmbedding({ timesteps: [1, 2], dim: 8, out: wa }),
    () => posenc.mropePositions({ spans: [{ text: 2 }], out: ints }),
    () => posenc.ropeCache({ rotaryDim: 8, mropeSection: [2, 1, 1], positions: ints }),
    () => posenc.relativePositions({ queryLength: 2, keyLength: 2, out: ints }),
  ];
  const before = posenc.memoryStats();
  for (const use of uses) {
    const e = thrown(use);
    expect(e).toBeInstanceOf(Error);
    expect(e.message).toMatch(/after free|already freed/);
  }
  expect(posenc.memoryStats()).toEqual(before);
});

test('a WasmArray that allocate() did not make is refused, never written nor freed', () => {
  const live = posenc.allocate('float32', 64); // real memory a forged pointer could hit
  live.array.fill(3);
  const forged = new posenc.WasmArray(live.pointer('test'), 'float32', 64);
  for (const use of [() => forged.array, () => forged.free(), () => posenc.sinusoidal({ length: 8, dModel: 8, out: forged }), () => posenc.applyRope(forged, { heads: 1, headDim: 8 })]) {
    expect(thrown(use)).toBeInstanceOf(TypeError);
  }
  const proto = Object.assign(Object.create(posenc.WasmArray.prototype), { type: 'float32', length: 64 });
  expect(thrown(() => posenc.sinusoidal({ length: 8, dModel: 8, out: proto }))).toBeInstanceOf(TypeError);
  expect(live.array.every((v) => v === 3)).toBe(true);
  live.free();
});

// ------------------------------------------------------------------ views

/** Grows wasm memory by allocating (and freeing) more than it holds. */
function growMemory() {
  const before = posenc.memoryStats().memoryBytes;
  const big = posenc.allocate('float32', before / 4 + (1 << 20));
  big.free();
  expect(posenc.memoryStats().memoryBytes).toBeGreaterThan(before);
}

test('results are never views of wasm memory: they survive memory growth intact', () => {
  const wasmBuffer = () => {
    const probe = posenc.allocate('float32', 1);
    const buffer = probe.array.buffer;
    probe.free();
    return buffer;
  };
  const results = [
    posenc.sinusoidal({ length: 3, dModel: 4 }),
    posenc.sinusoidalFrequencies({ dModel: 8 }),
    posenc.relativePositions({ queryLength: 3 }),
    posenc.ropeFrequencies({ rotaryDim: 8 }).invFreq,
    ...Object.values(posenc.ropeCache({ length: 3, rotaryDim: 8 })),
    posenc.ropePermuteWeights(Float32Array.from({ length: 8 }, (_, i) => i), { heads: 1, headDim: 8, from: 'half', to: 'interleaved' }),
    posenc.alibiSlopes(4),
    posenc.alibiBias({ heads: 2, queryLength: 3 }),
    posenc.t5Buckets({ queryLength: 3 }),
    posenc.t5Bias({ heads: 1, queryLength: 3, weights: new Float32Array(32).fill(2) }),
    posenc.debertaBuckets({ queryLength: 3 }),
    posenc.transformerXLEmbedding({ keyLength: 3, dModel: 4 }),
    posenc.sinusoidal2d({ height: 2, width: 3, dModel: 8, clsToken: true }),
    posenc.timestepEmbedding({ timesteps: [0.5, 999], dim: 9 }),
    posenc.mropePositions({ spans: [{ text: 2 }, { image: [1, 2, 2] }] }),
    ...Object.values(posenc.ropeCache({ rotaryDim: 8, rope2d: 'axial', grid: { height: 2, width: 3 } })),
  ];
  const copies = results.map((a) => Array.from(a));
  const memory = wasmBuffer();
  for (const a of results) expect(a.buffer).not.toBe(memory);
  growMemory();
  results.forEach((a, i) => expect(Array.from(a)).toEqual(copies[i]));
});

test('WasmArray.array is re-derived after growth; a view kept from before is refused as detached', () => {
  const wa = posenc.allocate('float32', 16);
  const stale = wa.array;
  growMemory();
  expect(stale.length).toBe(0); // wasm detached it
  expect(wa.array.length).toBe(16);
  const e = thrown(() => posenc.sinusoidal({ length: 4, dModel: 4, out: stale }));
  expect(e).toBeInstanceOf(RangeError);
  expect(e.message).toContain('detached');
  expect(posenc.sinusoidal({ length: 4, dModel: 4, out: wa })).toBe(wa);
  expect(wa.array[5]).toBe(Math.fround(Math.cos(1)));
  wa.free();
});

test('WasmArrays passed in are written in place even when the call itself grows memory', () => {
  // ropeCache and applyRope stage what is not in wasm memory (here a model's own
  // frequencies, 8 bytes each) before they compute: when that staging grows
  // memory it detaches every view. They used to copy out through the detached
  // view (a TypeError) or read its length as 0 (an internal error). Sizes here
  // make the staging larger than any free space, so the call must grow memory.
  const halfFor = () => 2 ** Math.ceil(Math.log2(posenc.memoryStats().memoryBytes / 8));
  const invFreqOf = (half) => Float64Array.from({ length: half }, (_, k) => 10000 ** (-k / half));
  let half = halfFor();
  const cos = posenc.allocate('float32', half), sin = posenc.allocate('float32', half);
  try {
    const before = posenc.memoryStats().memoryBytes;
    posenc.ropeCache({ positions: Int32Array.of(1), rotaryDim: 2 * half, invFreq: invFreqOf(half), out: { cos, sin } });
    expect(posenc.memoryStats().memoryBytes).toBeGreaterThan(before);
    expect(Math.abs(cos.array[0] - Math.cos(1))).toBeLessThanOrEqual(2 ** -23);
    expect(Math.abs(sin.array[1] - Math.sin(10000 ** (-1 / half)))).toBeLessThanOrEqual(2 ** -23);
  } finally {
    cos.free();
    sin.free();
  }
  half = halfFor();
  const x = posenc.allocate('float32', 2 * half);
  try {
    x.array[0] = 1; // the pair (0, half) = (1, 0), rotated by position 1 * f_0 = 1 radian
    const before = posenc.memoryStats().memoryBytes;
    posenc.applyRope(x, { heads: 1, headDim: 2 * half, offset: 1, invFreq: invFreqOf(half) });
    expect(posenc.memoryStats().memoryBytes).toBeGreaterThan(before);
    expect(Math.abs(x.array[0] - Math.cos(1))).toBeLessThanOrEqual(2 ** -23);
    expect(Math.abs(x.array[half] - Math.sin(1))).toBeLessThanOrEqual(2 ** -23);
  } finally {
    x.free();
  }
});
