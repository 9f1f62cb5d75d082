// What a newcomer and an attacker found, one test per class of defect: a
// failed init() that could never be retried, wasm memory reached through a
// view or a subclass's own methods, weights that are not finite numbers,
// F16/BF16 rounded twice, files written that no reader takes, and messages
// that named nothing.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { posenc, posencEncoder, thrown } from '../helpers.js';

const DIST = new URL('../../dist/', import.meta.url);
/** A fresh copy of an entry (its own init() state), by a query on its file URL. */
let copies = 0;
const freshCopy = (file) => import(`${new URL(file, DIST).href}?copy=${++copies}`);

beforeAll(() => Promise.all([posenc.init(), posencEncoder.init()]));

describe('init(): a foreign or broken wasm is a clear error, and a later init() works', () => {
  test.each([
    ['posenc.mjs', 'posenc-encoder.wasm'], // not an error: the encoder's wasm holds every routine of posenc...
  ])('%s with %s loads (a superset of its exports)', async (entry, wasm) => {
    const copy = await freshCopy(entry);
    await copy.init({ wasm: readFileSync(new URL(wasm, DIST)) });
    expect(copy.wasmBuild()).toBe('custom');
    expect(copy.sinusoidal({ length: 1, dModel: 2 })[1]).toBe(1);
  });

  test.each([
    ['posenc.mjs', 'bytes of another module', () => new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]), Error, /is not posenc's: it lacks the exports memory, posenc_strerror/],
    ['encoder.mjs', "the default entry's wasm", () => readFileSync(new URL('posenc.wasm', DIST)), Error, /is not posenc\/encoder's: it lacks the exports posenc_embed/],
    ['posenc.mjs', 'not WebAssembly', () => new Uint8Array([1, 2, 3, 4]), WebAssembly.CompileError, /posenc\.init: the wasm could not be compiled: it is not valid WebAssembly/],
    ['posenc.mjs', 'a module that needs imports', () => new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 4, 1, 96, 0, 0, 2, 7, 1, 1, 109, 1, 102, 0, 0]), WebAssembly.LinkError, /it needs imports \(m\.f\); posenc's wasm imports nothing/],
  ])('%s given %s: %p', async (entry, _what, bytes, Err, message) => {
    const copy = await freshCopy(entry);
    const error = await copy.init({ wasm: bytes() }).then(() => null, (e) => e);
    expect(error).toBeInstanceOf(Err);
    expect(error.message).toMatch(message);
    // nothing is left behind: a second init() with no options loads the inline build
    await copy.init();
    expect(copy.isReady()).toBe(true);
    expect(['simd', 'baseline']).toContain(copy.wasmBuild());
    expect(copy.sinusoidal({ length: 1, dModel: 2 })[1]).toBe(1);
  });

  test('a file: URL is read from disk in Node', async () => {
    const copy = await freshCopy('posenc.mjs');
    await copy.init({ wasm: pathToFileURL(new URL('posenc.wasm', DIST).pathname) });
    expect(copy.wasmBuild()).toBe('custom');
  });
});

describe('wasm memory reaches a call only as a live WasmArray of the same copy', () => {
  test("a typed-array subclass's own methods never run during a call (intrinsics only)", () => {
    const calls = [];
    class Spy extends Float32Array {
      subarray(...a) { calls.push('subarray'); return super.subarray(...a); }
      set(...a) { calls.push('set'); return super.set(...a); }
      get length() { calls.push('length'); return super.length; }
      slice(...a) { calls.push('slice'); return super.slice(...a); }
    }
    const x = new Spy(2 * 8).fill(1);
    const plain = new Float32Array(2 * 8).fill(1);
    expect(posenc.applyRope(x, { heads: 1, headDim: 8, offset: 5 })).toBe(x);
    posenc.applyRope(plain, { heads: 1, headDim: 8, offset: 5 });
    expect(Array.from(x)).toEqual(Array.from(plain));
    const out = new Spy(12);
    posenc.sinusoidal({ length: 3, dModel: 4, out });
    posenc.addSinusoidal(x, { dModel: 8 });
    expect(calls).toEqual([]);
  });

  test('a freed view passed as out is refused, and the block\'s next owner keeps its values', () => {
    const a = posenc.allocate('float32', 64);
    const stale = a.array;
    a.free();
    const b = posenc.allocate('float32', 64);
    b.array.fill(3);
    for (const call of [
      () => posenc.sinusoidal({ length: 16, dModel: 4, out: stale }),
      () => posenc.applyRope(stale, { heads: 1, headDim: 4 }),
      () => posenc.ropeCache({ rotaryDim: 8, length: 16, out: { cos: stale, sin: new Float32Array(64) } }),
    ]) {
      const e = thrown(call);
      expect(e).toBeInstanceOf(TypeError);
      expect(e.message).toMatch(/a view of posenc's wasm memory/);
    }
    expect(b.array.every((v) => v === 3)).toBe(true);
    b.free();
  });
});

describe('the encoder refuses weights that are not finite numbers, naming the tensor and the first bad index', () => {
  const options = { vocabSize: 4, dModel: 4, heads: 1, dFF: 4, layers: 1, positional: { type: 'none' } };
  const good = () => posencEncoder.createEncoder({ ...options, weights: { seed: 1 } }).tensors();

  test.each([
    ['Infinity (an F16 weight that overflowed)', (d) => { d[5] = Infinity; }, RangeError, /weights\['embed\.weight'\]\.data\[5\] must be a finite number within float32 range, got Infinity/],
    ['NaN', (d) => { d[0] = NaN; }, RangeError, /data\[0\] must be a finite number/],
    ['beyond float32 (1e39)', (d) => { d[2] = 1e39; }, RangeError, /data\[2\] must be a finite number within float32 range, got 1e\+39/],
  ])('%s', (_what, spoil, Err, message) => {
    const tensors = good();
    const data = Float64Array.from(tensors['embed.weight'].data);
    spoil(data);
    tensors['embed.weight'] = { shape: [4, 4], data };
    const e = thrown(() => posencEncoder.createEncoder({ ...options, weights: tensors }));
    expect(e).toBeInstanceOf(Err);
    expect(e.message).toMatch(message);
  });

  test('strings and holes in an Array', () => {
    const tensors = good();
    tensors['embed.weight'] = { shape: [4, 4], data: ['1', ...Array(15).fill(0)] };
    expect(thrown(() => posencEncoder.createEncoder({ ...options, weights: tensors })).message).toMatch(/data\[0\] must be a finite number, got "1"/);
    const holey = new Array(16);
    holey[0] = 1;
    tensors['embed.weight'] = { shape: [4, 4], data: holey };
    const e = thrown(() => posencEncoder.createEncoder({ ...options, weights: tensors }));
    expect(e).toBeInstanceOf(TypeError);
    expect(e.message).toMatch(/data\[1\] must be a finite number, got undefined/);
  });

  test('an F16 file whose weight overflowed to Infinity is refused at load', () => {
    const tensors = good();
    const data = Float64Array.from(tensors['linear1.weight'] ? tensors['linear1.weight'].data : tensors['layers.0.linear1.weight'].data);
    data[3] = 70000; // past F16's 65504: written as Infinity
    tensors['layers.0.linear1.weight'] = { dtype: 'F16', shape: [4, 4], data };
    const bytes = posencEncoder.writeSafetensors(tensors);
    const e = thrown(() => posencEncoder.createEncoder({ ...options, weights: bytes }));
    expect(e.message).toMatch(/weights\['layers\.0\.linear1\.weight'\]\.data\[3\] must be a finite number within float32 range, got Infinity/);
  });
});

describe('F16 and BF16 round once, from the double', () => {
  const written = (dtype, x) => {
    const bytes = posencEncoder.writeSafetensors({ w: { dtype, shape: [1], data: Float64Array.of(x) } });
    return posencEncoder.readSafetensors(bytes).tensors.w.data[0];
  };
  test.each([
    // 1 + 2^-11 is the tie between F16's 1 and 1 + 2^-10: a hair above it rounds up; through float32 it would tie to 1
    ['F16', 1 + 2 ** -11 + 2 ** -40, 1 + 2 ** -10],
    ['F16', 1 + 2 ** -11, 1], // the exact tie: to even
    ['F16', 65519, 65504],
    ['F16', 65520, Infinity],
    ['F16', 2 ** -25 + 2 ** -50, 2 ** -24], // above half the smallest subnormal
    ['BF16', 1 + 2 ** -8 + 2 ** -40, 1 + 2 ** -7],
    ['BF16', 1 + 2 ** -8, 1],
    ['BF16', -3.14159265358979, -3.140625],
  ])('%s of %p is %p', (dtype, x, expected) => {
    expect(written(dtype, x)).toBe(expected);
  });
});

describe('posenc writes only files it can read back', () => {
  test('a header past the 100 MB limit is refused at write', () => {
    const e = thrown(() => posencEncoder.writeSafetensors({ w: Float32Array.of(1) }, { metadata: { note: 'x'.repeat(100_000_001) } }));
    expect(e).toBeInstanceOf(RangeError);
    expect(e.message).toMatch(/posenc\.writeSafetensors: the header would be \d+ bytes, above the format's limit of 100000000/);
  });

  test('toSafetensors of an encoder too deep for one header names the encoder method', () => {
    const enc = posencEncoder.createEncoder({ vocabSize: 2, dModel: 2, heads: 1, dFF: 2, layers: 80_000, positional: { type: 'none' }, weights: { seed: 1 } });
    try {
      const e = thrown(() => enc.toSafetensors());
      expect(e).toBeInstanceOf(RangeError);
      expect(e.message).toMatch(/^posenc\.encoder\.toSafetensors: the header would be/);
    } finally {
      enc.dispose();
    }
  });

  // the listing is one pass over a per-layer template (no time is asserted: the
  // count and the shapes are); past 2^21 tensors, more than a header can list
  // and where JS objects of names slow down more than linearly, a RangeError
  test('encoderTensorShapes lists every tensor of a deep encoder, each shape its own array', () => {
    const options = { vocabSize: 2, dModel: 2, heads: 1, dFF: 3, layers: 10_000, positional: { type: 'none' } };
    const shapes = posencEncoder.encoderTensorShapes(options);
    const names = Object.keys(shapes);
    expect(names.length).toBe(1 + 16 * 10_000);
    expect(names[names.length - 1]).toBe('layers.9999.norm2.bias');
    expect(shapes['layers.9999.linear1.weight']).toEqual([3, 2]);
    shapes['layers.0.linear1.weight'].push(7);
    expect(shapes['layers.1.linear1.weight']).toEqual([3, 2]);
  });

  test('a listing past 2^21 tensors is a RangeError naming layers, from encoderTensorShapes and tensors()', () => {
    const layers = 2 ** 21 / 16; // 16 tensors a layer, and embed.weight
    const options = { vocabSize: 2, dModel: 2, heads: 1, dFF: 2, layers, positional: { type: 'none' } };
    const e = thrown(() => posencEncoder.encoderTensorShapes(options));
    expect(e).toBeInstanceOf(RangeError);
    expect(e.message).toBe(`posenc.encoderTensorShapes: layers = ${layers} makes ${2 ** 21 + 1} tensors, more than the 2097152 one object of names lists (a .safetensors header holds fewer)`);
    const enc = posencEncoder.createEncoder({ ...options, weights: { seed: 1 } });
    try {
      expect(thrown(() => enc.tensors()).message).toMatch(/^posenc\.encoder\.tensors: layers = 131072 makes 2097153 tensors/);
    } finally {
      enc.dispose();
    }
  });

  test('a dtype named like an Object.prototype member is an unknown dtype, not "NaN bytes"', () => {
    for (const dtype of ['constructor', '__proto__', 'toString']) {
      const header = JSON.stringify({ w: { dtype, shape: [1], data_offsets: [0, 4] } });
      const padded = header + ' '.repeat((8 - (header.length % 8)) % 8);
      const bytes = new Uint8Array(8 + padded.length + 4);
      new DataView(bytes.buffer).setBigUint64(0, BigInt(padded.length), true);
      bytes.set(new TextEncoder().encode(padded), 8);
      const e = thrown(() => posencEncoder.readSafetensors(bytes));
      expect(e.message).toMatch(new RegExp(`has dtype ${dtype}: posenc reads the floating dtypes`));
    }
  });
});

describe('messages', () => {
  test('deeply nested options in a file\'s posenc.config name the limit, not the stack', () => {
    let nested = { type: 'none' };
    for (let i = 0; i < 10_000; i++) nested = { a: nested };
    const config = { vocabSize: 2, dModel: 2, heads: 1, dFF: 2, layers: 1, positional: nested };
    const e = thrown(() => posencEncoder.createEncoder({ ...config, weights: { seed: 1 } }));
    expect(e).toBeInstanceOf(RangeError);
    expect(e.message).toMatch(/positional nests deeper than 16 levels/);
  });

  test('a DataView is described by its bytes', () => {
    const e = thrown(() => posenc.sinusoidal({ length: 1, dModel: 2, out: new DataView(new ArrayBuffer(8)) }));
    expect(e.message).toMatch(/got DataView\(8 bytes\)/);
  });
});
