// posenc: positional encodings for transformers, exact to float32, in
// WebAssembly. The default entry: every positional encoding, with its own
// small wasm inline. The tiny encoder is the other entry, 'posenc/encoder'.
import { exports_posenc } from '../../build/abi.js';
import { wasmHex } from '../../build/posenc.wasm.js';
import { makeInit } from './core/load.js';
import * as api from './api.js';
import { pointToEncoder } from './encoder-pointers.js';

export * from './api.js';

/**
 * Loads posenc's wasm (inline in this module): call once, and await it,
 * before any compute function.
 */
export const { init, wasmBuild } = makeInit(
  {
    simd: () => wasmHex,
    baseline: async () => (await import('../../build/posenc-baseline.wasm.js')).wasmHex,
  },
  exports_posenc,
);

/**
 * Every export of 'posenc' as one object (`import posenc from 'posenc'`, as
 * `require('posenc')` gives it); reading a name of 'posenc/encoder' from it
 * (posenc.createEncoder) is a TypeError that says where that name is.
 */
export default Object.freeze(pointToEncoder({ ...api, init, wasmBuild }));
