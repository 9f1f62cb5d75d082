// init(): before it, every compute call says to call it; it is idempotent and
// accepts bytes, a compiled module or a URL. (Jest gives each file a fresh module.)
import { readFileSync } from 'node:fs';
import { posenc, thrown } from '../helpers.js';

const wasmBytes = readFileSync(new URL('../../dist/posenc.wasm', import.meta.url));

test('a compute call before init() throws an Error that says to call it', () => {
  expect(posenc.isReady()).toBe(false);
  for (const call of [
    () => posenc.sinusoidal({ length: 2, dModel: 2 }),
    () => posenc.relativePositions({ queryLength: 2 }),
    () => posenc.addSinusoidal(new Float32Array(4), { dModel: 2 }),
    () => posenc.allocate('float32', 4),
  ]) {
    const e = thrown(call);
    expect(e).toBeInstanceOf(Error);
    expect(e.message).toContain('await init()');
  }
});

test('init rejects sources it cannot load, and a failed init can be retried', async () => {
  await expect(posenc.init({ wasm: 42 })).rejects.toThrow(TypeError);
  await expect(posenc.init({ wasm: new Uint8Array([0, 1, 2, 3]) })).rejects.toThrow(WebAssembly.CompileError);
  await expect(posenc.init(5)).rejects.toThrow(/expects an options object/);
  expect(posenc.isReady()).toBe(false);
});

test('init from a compiled WebAssembly.Module, then idempotent', async () => {
  const module = await WebAssembly.compile(wasmBytes);
  const first = posenc.init({ wasm: module });
  const second = posenc.init(); // while the first is under way: the same load
  await Promise.all([first, second]);
  expect(posenc.isReady()).toBe(true);
  await posenc.init({ wasm: module }); // the same source: the same load
  // another source once ready is an error naming what is loaded (tests/init/options.test.js)
  await expect(posenc.init({ wasm: new Uint8Array([1, 2, 3]) })).rejects.toThrow(/'custom'/);
  expect(posenc.sinusoidal({ length: 2, dModel: 2 })[2]).toBe(Math.fround(Math.sin(1)));
});
