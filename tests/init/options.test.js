// init(options) is validated like every other function, and a later init()
// that asks for another build than the one loading or loaded is an error that
// says what is loaded. (Jest gives each file a fresh module: nothing loaded yet.)
import { posenc, thrown } from '../helpers.js';

test('unknown options, inherited names included, and a wrong simd are rejected before anything loads', async () => {
  for (const [options, text] of [
    [{ wsam: 1 }, "posenc.init: unknown option 'wsam' (known: wasm, simd)"],
    [Object.defineProperty({}, 'constructor', { value: 1, enumerable: true }), "unknown option 'constructor'"],
    [{ simd: 'no' }, 'posenc.init: simd must be true or false, got "no"'],
    [{ wasm: 42 }, 'posenc.init: wasm must be a URL, a string URL, a Response, bytes'],
  ]) {
    const error = await posenc.init(options).then(() => null, (e) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toContain(text);
  }
  expect(posenc.isReady()).toBe(false);
});

test('while init() loads the SIMD build, init({ simd: false }) is an error saying so; init() joins the load', async () => {
  if (!posenc.simdSupported()) return; // the SIMD build is the default only where the engine runs it
  const first = posenc.init();
  const error = await posenc.init({ simd: false }).then(() => null, (e) => e);
  expect(error).toBeInstanceOf(Error);
  expect(error.message).toMatch(/^posenc\.init: the 'simd' build is loading \(an earlier init\(\) asked for it\); these options ask for the 'baseline' build/);
  await Promise.all([first, posenc.init(), posenc.init({}), posenc.init({ simd: true })]);
  expect(posenc.wasmBuild()).toBe('simd');
});

test('once the SIMD build is loaded, init({ simd: false }) or another wasm is an error naming it; the module keeps working', async () => {
  if (!posenc.simdSupported()) return;
  await posenc.init();
  for (const options of [{ simd: false }, { wasm: new Uint8Array([0, 97, 115, 109]) }]) {
    const error = await posenc.init(options).then(() => null, (e) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toContain("the 'simd' build is already loaded (wasmBuild() is 'simd')");
  }
  await posenc.init({ simd: true }); // what is loaded: fine
  expect(posenc.wasmBuild()).toBe('simd');
  expect(thrown(() => posenc.sinusoidal({ length: 1, dModel: 1, base: 1 }))).toBeInstanceOf(RangeError);
  expect(Array.from(posenc.sinusoidal({ length: 2, dModel: 2 }))).toEqual([0, 1, Math.fround(Math.sin(1)), Math.fround(Math.cos(1))]);
});
