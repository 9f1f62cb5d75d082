// A view of one copy's wasm memory given to another copy. Each copy of posenc
// (the ESM and the CommonJS build, 'posenc' and 'posenc/encoder', two
// installs) has its own memory; a WasmArray's .array is a view of it. Given to
// another copy as `out` or `x`, such a view must be refused like a view of the
// copy's own memory: a write through it lands in the other copy's heap, in
// whatever that copy allocated there since (a freed array's block, a live
// array's values, an encoder's weights).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { posenc, posencEncoder, thrown } from '../helpers.js';

const DIST = new URL('../../dist/', import.meta.url);
const CROSS = /a view of the wasm memory of another copy of posenc/;

beforeAll(() => Promise.all([posenc.init(), posencEncoder.init()]));

/** Every way a float32 view reaches a call as an array posenc writes or reads. */
const calls = (p, view) => [
  () => p.sinusoidal({ length: 1, dModel: 4, out: view }),
  () => p.applyRope(view, { heads: 1, headDim: 4 }),
  () => p.addSinusoidal(view, { dModel: 4 }),
  () => p.ropeCache({ rotaryDim: 4, length: 2, out: { cos: view, sin: new Float32Array(4) } }),
  () => p.alibiBias({ heads: 1, queryLength: 2, keyLength: 2, out: view }),
  () => p.transformerXLEmbedding({ keyLength: 1, dModel: 4, out: view }),
];

describe.each([
  ["'posenc/encoder'", "'posenc'", () => posencEncoder, () => posenc],
  ["'posenc'", "'posenc/encoder'", () => posenc, () => posencEncoder],
])('a view of %s memory given to %s', (_owner, _called, owner, called) => {
  test('a freed array\'s view is refused, and the block\'s next owner keeps its values', () => {
    const a = owner().allocate('float32', 4);
    const stale = a.array;
    a.free();
    const b = owner().allocate('float32', 4); // the same block again
    b.array.fill(7);
    for (const call of calls(called(), stale)) {
      const e = thrown(call);
      expect(e).toBeInstanceOf(TypeError);
      expect(e.message).toMatch(CROSS);
    }
    expect(Array.from(b.array)).toEqual([7, 7, 7, 7]);
    b.free();
  });

  test("a live array's view is refused too, and its values stay", () => {
    const a = owner().allocate('float32', 4);
    a.array.fill(7);
    const e = thrown(() => called().sinusoidal({ length: 1, dModel: 4, out: a.array }));
    expect(e).toBeInstanceOf(TypeError);
    expect(e.message).toMatch(/^posenc\.sinusoidal: out is a view of the wasm memory of another copy of posenc/);
    expect(Array.from(a.array)).toEqual([7, 7, 7, 7]);
    a.free();
  });

  test('an int32 view, as out of an int32 result', () => {
    const a = owner().allocate('int32', 6);
    a.array.fill(7);
    expect(thrown(() => called().relativePositions({ queryLength: 2, keyLength: 3, out: a.array })).message).toMatch(CROSS);
    expect(Array.from(a.array)).toEqual([7, 7, 7, 7, 7, 7]);
    a.free();
  });
});

test("an encoder's logits stay the same after another copy is handed a stale view of its memory", () => {
  const enc = posencEncoder.createEncoder({ vocabSize: 8, dModel: 8, heads: 2, dFF: 8, layers: 1, lmHead: true, weights: { seed: 3 } });
  const before = enc.logits([1, 2, 3]);
  const a = posencEncoder.allocate('float32', 256);
  const stale = a.array;
  a.free();
  expect(thrown(() => posenc.sinusoidal({ length: 64, dModel: 4, out: stale })).message).toMatch(CROSS);
  expect(Array.from(enc.logits([1, 2, 3]))).toEqual(Array.from(before));
  enc.dispose();
});

// The CommonJS and ESM builds in one Node process (an ESM app with a
// dependency that requires posenc): they meet in the process, not in Jest's
// module registry, so a child process runs them as a user's program would.
test('the CommonJS and the ESM copies refuse views of each other\'s memory', () => {
  const script = `
const { createRequire } = await import('node:module');
const esm = await import(${JSON.stringify(new URL('posenc.mjs', DIST).href)});
const encoderEsm = await import(${JSON.stringify(new URL('encoder.mjs', DIST).href)});
const cjs = createRequire(import.meta.url)(${JSON.stringify(fileURLToPath(new URL('posenc.cjs', DIST)))});
await Promise.all([esm.init(), encoderEsm.init(), cjs.init()]);
const results = {};
const attempt = (name, call) => {
  try { call(); results[name] = 'accepted'; } catch (e) { results[name] = e.constructor.name + ': ' + e.message; }
};
for (const [name, owner, called] of [['cjs->esm', cjs, esm], ['esm->cjs', esm, cjs], ['cjs->encoder', cjs, encoderEsm]]) {
  const a = owner.allocate('float32', 4);
  const stale = a.array;
  a.free();
  const b = owner.allocate('float32', 4);
  b.array.fill(7);
  attempt(name + ' freed', () => called.sinusoidal({ length: 1, dModel: 4, out: stale }));
  attempt(name + ' live', () => called.applyRope(b.array, { heads: 1, headDim: 4, offset: 3 }));
  results[name + ' values'] = Array.from(b.array);
  b.free();
}
console.log(JSON.stringify(results));
`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  expect(r.stderr).toBe('');
  const results = JSON.parse(r.stdout);
  for (const pair of ['cjs->esm', 'esm->cjs', 'cjs->encoder']) {
    expect(results[`${pair} freed`]).toMatch(/^TypeError: posenc\.sinusoidal: out is a view of the wasm memory of another copy of posenc/);
    expect(results[`${pair} live`]).toMatch(/^TypeError: posenc\.applyRope: x is a view of the wasm memory of another copy of posenc/);
    expect(results[`${pair} values`]).toEqual([7, 7, 7, 7]);
  }
});

test("views of the copy's own memory keep their own message", () => {
  const a = posenc.allocate('float32', 4);
  expect(thrown(() => posenc.sinusoidal({ length: 1, dModel: 4, out: a.array })).message).toMatch(/a view of posenc's wasm memory \(a WasmArray's \.array\)/);
  a.free();
});

test('plain typed arrays and live WasmArrays of the called copy still work', () => {
  const own = posenc.allocate('float32', 4);
  expect(posenc.sinusoidal({ length: 1, dModel: 4, out: own })).toBe(own);
  expect(Array.from(own.array)).toEqual([0, 1, 0, 1]);
  own.free();
  const plain = new Float32Array(4);
  posenc.sinusoidal({ length: 1, dModel: 4, out: plain });
  expect(Array.from(plain)).toEqual([0, 1, 0, 1]);
});
