// rope-peers.js: RoPE in place on x [seq][heads][headDim] ('half' layout), as
// JS code does it, against posenc and the limit: a wasm loop that only reads
// and writes the same bytes.

const SEQ = 2048;
const HEADS = 32;
const HEAD_DIM = 128;
const BASE = 10000;

function invFrequencies(dim) {
  return Float64Array.from({ length: dim / 2 }, (_, k) => Math.pow(BASE, (-2 * k) / dim));
}

/** The tutorial loop: cos/sin per element, every head recomputes them. */
function naive(x) {
  const half = HEAD_DIM / 2;
  const inv = invFrequencies(HEAD_DIM);
  for (let s = 0; s < SEQ; s++) {
    for (let h = 0; h < HEADS; h++) {
      const o = (s * HEADS + h) * HEAD_DIM;
      for (let k = 0; k < half; k++) {
        const c = Math.cos(s * inv[k]);
        const sn = Math.sin(s * inv[k]);
        const a = x[o + k];
        const b = x[o + k + half];
        x[o + k] = a * c - b * sn;
        x[o + k + half] = b * c + a * sn;
      }
    }
  }
}

/** Hugging Face's way in JS: a float32 cos/sin cache [seq][half] built once, then applied. */
function cache() {
  const half = HEAD_DIM / 2;
  const inv = invFrequencies(HEAD_DIM);
  const cos = new Float32Array(SEQ * half);
  const sin = new Float32Array(SEQ * half);
  for (let s = 0; s < SEQ; s++) {
    for (let k = 0; k < half; k++) {
      cos[s * half + k] = Math.cos(s * inv[k]);
      sin[s * half + k] = Math.sin(s * inv[k]);
    }
  }
  return { cos, sin };
}

function cachedApply(x, { cos, sin }) {
  const half = HEAD_DIM / 2;
  for (let s = 0; s < SEQ; s++) {
    const row = s * half;
    for (let h = 0; h < HEADS; h++) {
      const o = (s * HEADS + h) * HEAD_DIM;
      for (let k = 0; k < half; k++) {
        const c = cos[row + k];
        const sn = sin[row + k];
        const a = x[o + k];
        const b = x[o + k + half];
        x[o + k] = a * c - b * sn;
        x[o + k + half] = b * c + a * sn;
      }
    }
  }
}

/** Max |x' - R x| / (|a| + |b|) over sampled rows, against the rotation in double. */
function ropeError(input, output) {
  const half = HEAD_DIM / 2;
  const inv = invFrequencies(HEAD_DIM);
  let worst = 0;
  for (let s = 0; s < SEQ; s += s < 8 || s > SEQ - 8 ? 1 : 61) {
    for (let h = 0; h < HEADS; h += 7) {
      const o = (s * HEADS + h) * HEAD_DIM;
      for (let k = 0; k < half; k++) {
        const c = Math.cos(s * inv[k]);
        const sn = Math.sin(s * inv[k]);
        const a = input[o + k];
        const b = input[o + k + half];
        const scale = Math.abs(a) + Math.abs(b) || 1;
        worst = Math.max(worst, Math.abs(output[o + k] - (a * c - b * sn)) / scale);
        worst = Math.max(worst, Math.abs(output[o + k + half] - (b * c + a * sn)) / scale);
      }
    }
  }
  return worst;
}

/** [seq][heads][headDim] <-> [heads][seq][headDim] (toHeadsFirst false: back). */
function transposeHeads(x, toHeadsFirst) {
  const y = new Float32Array(x.length);
  for (let s = 0; s < SEQ; s++) {
    for (let h = 0; h < HEADS; h++) {
      const shd = (s * HEADS + h) * HEAD_DIM;
      const hsd = (h * SEQ + s) * HEAD_DIM;
      if (toHeadsFirst) y.set(x.subarray(shd, shd + HEAD_DIM), hsd);
      else y.set(x.subarray(hsd, hsd + HEAD_DIM), shd);
    }
  }
  return y;
}

export async function ropeTasks({ posenc, probes, race, printTable }) {
  const n = SEQ * HEADS * HEAD_DIM;
  const input = Float32Array.from({ length: n }, (_, i) => Math.sin(i * 0.618) * 2);
  const x = input.slice();
  const wa = posenc.allocate('float32', n);
  const waHeadsFirst = posenc.allocate('float32', n);
  const probePtr = probes.malloc(n * 4);
  const jsCache = cache();
  const opts = { heads: HEADS, headDim: HEAD_DIM, base: BASE };
  // each contender rotates a fresh copy so the error check sees one rotation
  const check = {};
  const ms = race({
    'limit: wasm read + write': () => probes.probe_read_write(probePtr, n, 1),
    'limit: read + write + copies in and out': () => {
      new Float32Array(probes.memory.buffer, probePtr, n).set(x);
      probes.probe_read_write(probePtr, n, 1);
      x.set(new Float32Array(probes.memory.buffer, probePtr, n));
    },
    'posenc zero-copy (WasmArray)': () => posenc.applyRope(wa, opts),
    "posenc zero-copy, order 'bhsd'": () => posenc.applyRope(waHeadsFirst, { ...opts, order: 'bhsd' }),
    'posenc (JS array, copied in and out)': () => posenc.applyRope(x, opts),
    'cached JS (HF-style cos/sin cache)': () => cachedApply(x, jsCache),
    'naive JS (tutorial)': () => naive(x),
  });
  for (const [name, run] of [
    ['posenc zero-copy (WasmArray)', () => {
      wa.array.set(input);
      posenc.applyRope(wa, opts);
      return wa.array;
    }],
    ["posenc zero-copy, order 'bhsd'", () => {
      waHeadsFirst.array.set(transposeHeads(input, true));
      posenc.applyRope(waHeadsFirst, { ...opts, order: 'bhsd' });
      return transposeHeads(waHeadsFirst.array, false);
    }],
    ['posenc (JS array, copied in and out)', () => posenc.applyRope(input.slice(), opts)],
    ['cached JS (HF-style cos/sin cache)', () => {
      const y = input.slice();
      cachedApply(y, jsCache);
      return y;
    }],
    ['naive JS (tutorial)', () => {
      const y = input.slice();
      naive(y);
      return y;
    }],
  ]) check[name] = ropeError(input, run());
  const rows = Object.keys(ms).map((name) => ({ name, ms: ms[name], error: check[name] }));
  printTable(`RoPE in place, [${SEQ}][${HEADS}][${HEAD_DIM}], half layout (x limit: against read + write; error relative to |a| + |b|)`, rows, 'limit: wasm read + write');
  const copies = ms['posenc (JS array, copied in and out)'] / ms['limit: read + write + copies in and out'];
  console.log(`copying path against read + write + the copies: ${copies.toFixed(2)}x`);
  const headsFirst = ms["posenc zero-copy, order 'bhsd'"] / ms['posenc zero-copy (WasmArray)'];
  console.log(`order 'bhsd' against 'bshd', zero-copy: ${headsFirst.toFixed(2)}x`);
  wa.free();
  waHeadsFirst.free();
  probes.free(probePtr);
}
