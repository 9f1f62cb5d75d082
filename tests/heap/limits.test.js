// The wasm heap up to its 4 GiB maximum, with real allocations: blocks at and
// past 2 GiB, requests that cannot fit, and the module still working after
// each. Slow by nature (gigabytes are written: seconds, or tens of seconds
// where the first touch of a page is slow, as in some VMs), so in a file of
// its own. Peak: 2 GiB of wasm memory in use plus a 2 GiB result.
import { rope as ROPE } from '../../build/abi.js';
import { readFileSync } from 'node:fs';
import { posenc, posencEncoder, thrown } from '../helpers.js';

const GiB = 2 ** 30;
// Jest's 60 s default is too tight for writing 4 GiB on a loaded machine
const SLOW = 300_000;
const FLOATS_2GIB = 2 ** 29; // the largest array one call takes (MAX_BYTES / 4)

beforeAll(() => Promise.all([posenc.init(), posencEncoder.init()]));

/** A small call whose values are checked: the module still computes correctly. */
function expectWorking() {
  const pe = posenc.sinusoidal({ length: 2, dModel: 2 });
  expect(Array.from(pe)).toEqual([0, 1, Math.fround(Math.sin(1)), Math.fround(Math.cos(1))]);
}

/** How many elements of two arrays differ (toEqual is slow on millions). */
function differences(a, b) {
  let n = Math.abs(a.length - b.length);
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (!Object.is(a[i], b[i])) n++;
  return n;
}

/** Runs call, expects a RangeError naming fn and `bytes`, and nothing left allocated. */
function expectOutOfMemory(fn, bytes, call) {
  const before = posenc.memoryStats();
  const error = thrown(call);
  expect(error).toBeInstanceOf(RangeError);
  expect(error.message).toContain(`posenc.${fn}: could not allocate ${bytes} bytes`);
  const after = posenc.memoryStats();
  expect(after.allocatedBytes).toBe(before.allocatedBytes);
  expect(after.liveArrays).toBe(before.liveArrays);
  expectWorking();
}

// ------------------------------------------------------------------ the allocator itself

describe('malloc and free in the wasm module itself', () => {
  let e;
  beforeAll(async () => {
    const bytes = readFileSync(new URL('../../dist/posenc.wasm', import.meta.url));
    e = (await WebAssembly.instantiate(bytes, {})).instance.exports;
    e._initialize();
  });

  const end = () => e.memory.buffer.byteLength;
  // a block is [ptr, ptr + size): inside memory, 8-byte aligned
  function alloc(size) {
    const ptr = e.malloc(size) >>> 0;
    if (ptr !== 0) {
      expect(ptr % 8).toBe(0);
      expect(ptr + size).toBeLessThanOrEqual(end());
    }
    return ptr;
  }

  test('requests that cannot fit in 4 GiB are NULL, and leave nothing behind', () => {
    expect(e.malloc(-1) >>> 0).toBe(0); // 2^32 - 1 bytes
    expect(e.malloc(-8) >>> 0).toBe(0); // 2^32 - 8 bytes: the data and stack sit below the heap
    const a = alloc(2 ** 31);
    expect(a).not.toBe(0);
    expect(alloc(2 ** 31)).toBe(0); // the second 2 GiB does not fit beside the first
    const small = alloc(16);
    expect(small + 16 <= a || small >= a + 2 ** 31).toBe(true);
    e.free(small);
    e.free(a);
    // four 1 GiB blocks: three fit, the fourth would end past 4 GiB
    const blocks = [alloc(GiB), alloc(GiB), alloc(GiB)];
    expect(blocks).not.toContain(0);
    expect(alloc(GiB)).toBe(0);
    const tiny = alloc(8);
    for (const b of blocks) expect(tiny + 8 <= b || tiny >= b + GiB).toBe(true);
    for (const b of [...blocks, tiny]) e.free(b);
    // all merged again: one block of nearly all the memory fits
    const whole = alloc(end() - 2 ** 20);
    expect(whole).not.toBe(0);
    e.free(whole);
  });

  test('random mallocs and frees: blocks inside memory, disjoint, their bytes kept', () => {
    let seed = 12345;
    const random = (n) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const live = new Map(); // ptr -> [size, tag]
    const bytes = () => new Uint8Array(e.memory.buffer);
    for (let step = 0; step < 4000; step++) {
      if (live.size > 0 && random(3) === 0) {
        const ptrs = [...live.keys()];
        const ptr = ptrs[random(ptrs.length)];
        const [size, tag] = live.get(ptr);
        expect([bytes()[ptr], bytes()[ptr + size - 1]]).toEqual([tag, tag]);
        e.free(ptr);
        live.delete(ptr);
        continue;
      }
      // mostly small, sometimes up to 256 MiB: memory grows past 2 GiB now and then
      const size = 1 + (random(20) === 0 ? random(2 ** 28) : random(4096));
      const ptr = alloc(size);
      if (ptr === 0) continue; // full: the blocks live now do not leave room
      const overlapping = [...live].filter(([p, [s]]) => ptr < p + s && p < ptr + size);
      expect(overlapping).toEqual([]);
      const tag = 1 + random(255);
      bytes()[ptr] = tag;
      bytes()[ptr + size - 1] = tag;
      live.set(ptr, [size, tag]);
    }
    for (const [ptr, [size, tag]] of live) {
      expect([bytes()[ptr], bytes()[ptr + size - 1]]).toEqual([tag, tag]);
      e.free(ptr);
    }
  });
});

// ------------------------------------------------------------------ the JS API near the limits

test('sinusoidal at the documented maximum (length 2^29, dModel 1) gives the formula, then small calls work', () => {
  // used to trap ("memory access out of bounds") and leave every later call failing
  let pe = posenc.sinusoidal({ length: FLOATS_2GIB, dModel: 1 });
  expect(pe.length).toBe(FLOATS_2GIB);
  // dModel 1: one sine column at frequency base^0 = 1, so PE[p][0] = sin(p)
  for (let p = 0; p < FLOATS_2GIB; p += 999_983) expect(Math.abs(pe[p] - Math.sin(p))).toBeLessThanOrEqual(2 ** -23);
  expect(Math.abs(pe[FLOATS_2GIB - 1] - Math.sin(FLOATS_2GIB - 1))).toBeLessThanOrEqual(2 ** -23);
  pe = null;
  expect(posenc.memoryStats().allocatedBytes).toBe(0);
  expectWorking();
}, SLOW);

test('beside a 2 GiB WasmArray, blocks above 2^31 work in place and staged; what does not fit is a RangeError', () => {
  const big = posenc.allocate('float32', FLOATS_2GIB);
  const arrays = [big];
  try {
    big.array[0] = 1;
    big.array[FLOATS_2GIB - 1] = 2;
    expectWorking(); // used to fail: "Start offset -2147410304 is outside the bounds of the buffer"
    // 4 MiB in place, and 4 MiB staged: no room below the 2 GiB block, so both sit above 2^31
    const upper = posenc.allocate('float32', 2 ** 20);
    arrays.push(upper);
    expect(upper.array.byteOffset).toBeGreaterThanOrEqual(2 ** 31);
    const value = (p, k) => Math.sin(p * 10000 ** (-k / 1024)); // even column k of dModel 1024
    posenc.sinusoidal({ length: 1024, dModel: 1024, offset: 7, out: upper });
    expect(Math.abs(upper.array[1023 * 1024 + 1022] - value(1030, 1022))).toBeLessThanOrEqual(2 ** -23);
    const pe = posenc.sinusoidal({ length: 1024, dModel: 1024, offset: 7 });
    expect(differences(pe, upper.array)).toBe(0);
    // a second 2 GiB block does not fit in 4 GiB: refused, nothing allocated
    expectOutOfMemory('allocate', 2 ** 31, () => posenc.allocate('float32', FLOATS_2GIB));
    expectOutOfMemory('sinusoidal', 2 ** 31, () => posenc.sinusoidal({ length: FLOATS_2GIB, dModel: 1 }));
    // small blocks land outside the big ones
    const smalls = Array.from({ length: 8 }, () => posenc.allocate('int32', 64));
    arrays.push(...smalls);
    for (const s of smalls) s.array.fill(9);
    expect([big.array[0], big.array[FLOATS_2GIB - 1]]).toEqual([1, 2]);
    expect(differences(pe, upper.array)).toBe(0);
    for (const s of smalls) expect(s.array.every((v) => v === 9)).toBe(true);
  } finally {
    for (const a of arrays) a.free();
  }
  expect(posenc.memoryStats().allocatedBytes).toBe(0);
}, SLOW);

test('ropeCache of 2 x 2 GiB (rotaryDim 2, length 2^29) is a RangeError naming it and the size', () => {
  // cos and sin, 2^31 bytes each, plus the posenc_rope struct: more than 4 GiB
  expectOutOfMemory('ropeCache', 2 ** 32 + ROPE.bytes, () => posenc.ropeCache({ rotaryDim: 2, length: FLOATS_2GIB }));
  const { cos, sin } = posenc.ropeCache({ rotaryDim: 2, length: 2 });
  expect([cos[1], sin[1]]).toEqual([Math.fround(Math.cos(1)), Math.fround(Math.sin(1))]);
});

test('calls with several buffers whose staging does not fit leave no orphan block and write nothing', () => {
  const held = posenc.allocate('float32', FLOATS_2GIB); // 2 GiB in use: no other 2 GiB fits
  try {
    held.array[0] = 3;
    const before = posenc.memoryStats();
    const sin = new Float32Array(FLOATS_2GIB); // a JS array: staged, which cannot fit
    expectOutOfMemory('ropeCache', 2 ** 31 + ROPE.bytes, () => posenc.ropeCache({ rotaryDim: 2, length: FLOATS_2GIB, out: { cos: held, sin } }));
    expect(held.array[0]).toBe(3);
    expect(sin[0]).toBe(0);
    const weights = new Float32Array(32 * 2).fill(1);
    expectOutOfMemory('t5Bias', 2 ** 31 + 32 * 2 * 4, () =>
      posenc.t5Bias({ heads: 2, queryLength: 2 ** 14, keyLength: 2 ** 14, weights }));
    const x = new Float32Array(FLOATS_2GIB);
    expectOutOfMemory('applyRope', 2 ** 31 + ROPE.bytes, () => posenc.applyRope(x, { heads: 1, headDim: 2 }));
    expect(posenc.memoryStats()).toEqual(before);
  } finally {
    held.free();
  }
}, SLOW);

test('an encoder call that runs out of memory names the method, and attention() afterwards says there is no pass', () => {
  const enc = posencEncoder.createEncoder({ vocabSize: 8, dModel: 4, heads: 1, dFF: 4, layers: 1, positional: { type: 'none' }, keepAttention: true, weights: { seed: 1 } });
  const hog = [posencEncoder.allocate('float32', 3 * 2 ** 27), posencEncoder.allocate('float32', 3 * 2 ** 27)]; // 3 GiB
  try {
    enc.forward([1, 2, 3]);
    expect(enc.attention(0).length).toBe(9);
    const before = posencEncoder.memoryStats();
    // 17000 tokens: 1.16 GB of attention probabilities to keep, more than the 1 GiB left
    // (the scores are computed a block of queries at a time: the workspace is small)
    const e = thrown(() => enc.forward(new Int32Array(17000)));
    expect(e).toBeInstanceOf(RangeError);
    expect(e.message).toMatch(/^posenc\.encoder\.forward: could not allocate \d+ bytes/);
    expect(posencEncoder.memoryStats().liveArrays).toBeLessThanOrEqual(before.liveArrays);
    const after = thrown(() => enc.attention(0));
    expect(after.message).toMatch(/^posenc\.encoder\.attention: no forward pass yet/);
  } finally {
    hog.forEach((a) => a.free());
  }
  // the encoder still works once memory is back
  expect(enc.forward([1, 2]).length).toBe(8);
  expect(enc.attention(0).length).toBe(4);
  enc.dispose();
}, SLOW);
