// By default init() picks the inline SIMD build on an engine that runs SIMD.
import { posenc } from '../helpers.js';

test('the default build is SIMD where supported', async () => {
  expect(posenc.wasmBuild()).toBe(null);
  await posenc.init();
  expect(posenc.simdSupported()).toBe(true);
  expect(posenc.wasmBuild()).toBe('simd');
});

test('simd must be a boolean', async () => {
  await expect(posenc.init({ simd: 'no' })).rejects.toThrow(TypeError);
});
