// API promises: out is filled and returned, the zero-copy path, views that
// never go stale, and no leaks.
import { readFileSync } from 'node:fs';
import { posenc, thrown, vaswani } from '../helpers.js';

beforeAll(() => posenc.init({ wasm: readFileSync(new URL('../../dist/posenc.wasm', import.meta.url)) }));

test('init from bytes works; sinusoidal returns a new array, or fills and returns out', () => {
  const fresh = posenc.sinusoidal({ length: 3, dModel: 4 });
  expect(fresh).toBeInstanceOf(Float32Array);
  const out = new Float32Array(12);
  expect(posenc.sinusoidal({ length: 3, dModel: 4, out })).toBe(out);
  expect(out).toEqual(fresh);
  const rel = new Int32Array(6);
  expect(posenc.relativePositions({ queryLength: 2, keyLength: 3, out: rel })).toBe(rel);
  const x = new Float32Array(8);
  expect(posenc.addSinusoidal(x, { dModel: 4 })).toBe(x);
});

test('typed arrays from another realm (another global) are accepted by tag, not instanceof', async () => {
  const { runInNewContext } = await import('node:vm');
  const foreign = runInNewContext('new Float32Array(12)');
  expect(foreign instanceof Float32Array).toBe(false);
  expect(posenc.sinusoidal({ length: 3, dModel: 4, out: foreign })).toBe(foreign);
  expect(foreign[4]).toBe(Math.fround(Math.sin(1)));
});

test('a subarray out is filled in place without touching its neighbours', () => {
  const big = new Float32Array(20).fill(9);
  const out = big.subarray(4, 16);
  posenc.sinusoidal({ length: 3, dModel: 4, out });
  expect(Array.from(big.subarray(0, 4))).toEqual([9, 9, 9, 9]);
  expect(Array.from(big.subarray(16))).toEqual([9, 9, 9, 9]);
  expect(out[4]).toBe(Math.fround(Math.sin(1)));
});

test('zero-copy: a WasmArray is written in place and returned', () => {
  const wa = posenc.allocate('float32', 12);
  expect(wa.array).toEqual(new Float32Array(12));
  expect(posenc.sinusoidal({ length: 3, dModel: 4, out: wa })).toBe(wa);
  expect(wa.array).toEqual(posenc.sinusoidal({ length: 3, dModel: 4 }));
  const x = posenc.allocate('float32', 8);
  expect(posenc.addSinusoidal(x, { dModel: 4 })).toBe(x);
  expect(x.array[4]).toBe(Math.fround(Math.sin(1)));
  // its .array view is not: posenc could not tell, later, whose memory it is
  const e = thrown(() => posenc.addSinusoidal(x.array, { dModel: 4 }));
  expect(e).toBeInstanceOf(TypeError);
  expect(e.message).toMatch(/^posenc\.addSinusoidal: x is a view of posenc's wasm memory .*pass the WasmArray itself/);
  expect(x.array[4]).toBe(Math.fround(Math.sin(1)));
  wa.free();
  x.free();
});

test('a stale view (kept after free(), its block handed out again) can never write into the new owner', () => {
  const a = posenc.allocate('float32', 12);
  const stale = a.array;
  a.free();
  const b = posenc.allocate('float32', 12); // the allocator may hand out the same block
  b.array.fill(7);
  const e = thrown(() => posenc.sinusoidal({ length: 3, dModel: 4, out: stale }));
  expect(e).toBeInstanceOf(TypeError);
  expect(Array.from(b.array)).toEqual(Array(12).fill(7));
  b.free();
});

test('views never go stale: growing memory re-derives WasmArray.array', () => {
  const wa = posenc.allocate('float32', 1024);
  const before = wa.array;
  const memBefore = posenc.memoryStats().memoryBytes;
  // a table far larger than the memory so far forces growth
  const big = posenc.sinusoidal({ length: 4096, dModel: 1024 });
  expect(posenc.memoryStats().memoryBytes).toBeGreaterThan(memBefore);
  expect(before.length).toBe(0); // the old view is detached, as wasm does
  expect(wa.array.length).toBe(1024); // the getter hands out a fresh one
  posenc.sinusoidal({ length: 1, dModel: 1024, offset: 4095, out: wa });
  expect(wa.array).toEqual(big.subarray(4095 * 1024));
  wa.free();
});

test('use after free and double free raise errors instead of touching memory', () => {
  const wa = posenc.allocate('float32', 8);
  const view = wa.array;
  wa.free();
  expect(wa.freed).toBe(true);
  expect(thrown(() => wa.array).message).toContain('after free');
  expect(thrown(() => wa.free()).message).toContain('already freed');
  expect(thrown(() => posenc.sinusoidal({ length: 2, dModel: 4, out: wa })).message).toContain('after free');
  // the raw view of freed memory is refused too: no view of wasm memory is taken
  const e = thrown(() => posenc.addSinusoidal(view, { dModel: 4 }));
  expect(e).toBeInstanceOf(TypeError);
  expect(e.message).toContain("a view of posenc's wasm memory");
});

test('allocate validates its type and length', () => {
  expect(thrown(() => posenc.allocate('float16', 4))).toBeInstanceOf(RangeError);
  expect(thrown(() => posenc.allocate(Float32Array, 4))).toBeInstanceOf(TypeError);
  expect(thrown(() => posenc.allocate('int32', 0))).toBeInstanceOf(RangeError);
  expect(thrown(() => posenc.allocate('int32', 2 ** 40))).toBeInstanceOf(RangeError);
  expect(thrown(() => posenc.allocate('int32', '4'))).toBeInstanceOf(TypeError);
});

test('10,000 mixed calls with failures in between leak nothing', () => {
  posenc.sinusoidal({ length: 64, dModel: 64 });
  const start = posenc.memoryStats();
  for (let i = 0; i < 10000; i++) {
    const length = 1 + (i % 17);
    switch (i % 4) {
      case 0:
        posenc.sinusoidal({ length, dModel: 8, offset: i });
        break;
      case 1:
        thrown(() => posenc.sinusoidal({ length, dModel: -1 }));
        break;
      case 2:
        posenc.relativePositions({ queryLength: length, shift: i });
        break;
      default: {
        const wa = posenc.allocate('float32', length * 8);
        posenc.addSinusoidal(wa, { dModel: 8 });
        wa.free();
      }
    }
  }
  expect(posenc.memoryStats()).toEqual(start);
});

test('values through the zero-copy and copying paths are identical', () => {
  const d = 48;
  const copy = posenc.sinusoidal({ length: 100, dModel: d, offset: 999, layout: 'concatenated' });
  const wa = posenc.allocate('float32', 100 * d);
  posenc.sinusoidal({ length: 100, dModel: d, offset: 999, layout: 'concatenated', out: wa });
  expect(wa.array).toEqual(copy);
  wa.free();
  expect(Math.abs(copy[0] - Math.sin(999))).toBeLessThan(2 ** -23);
  expect(vaswani(999, 0, d)).toBeCloseTo(copy[0], 7);
});
