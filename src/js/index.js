// posenc: positional encodings for transformers, exact to float32, in
// WebAssembly. The default entry: every positional encoding, with its own
// small wasm inline. The tiny encoder is the other entry, 'posenc/encoder'.
import { exports_posenc } from '../../build/abi.js';
import { wasmHex } from '../../build/posenc.wasm.js';
import { makeInit } from './core/load.js';
import {
  isReady, simdSupported, allocate, memoryStats, WasmArray, sinusoidal, sinusoidalFrequencies, addSinusoidal, LAYOUTS, sinusoidal2d,
  timestepEmbedding, relativePositions, ropeFrequencies, ropeCache, applyRope, ropePermuteWeights, ROPE_LAYOUTS, ROPE_2D, ROPE_TYPES,
  mropePositions, alibiSlopes, alibiBias, t5Buckets, t5Bias, debertaBuckets, transformerXLEmbedding, ropeFromConfig, alibiFromConfig,
  queryScalesFromConfig,
} from './api.js';
import { ENCODER_POINTERS } from './encoder-pointers.js';

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
 * (posenc.createEncoder) is a TypeError that says where that name is. Named
 * one by one (tests/encoder/pointers.test.js checks that none is missing): an
 * object literal, which a bundler drops with all it holds from an app that
 * does not import it (`import * as` would also cost a namespace helper).
 */
export default {
  __proto__: ENCODER_POINTERS,
  isReady, simdSupported, allocate, memoryStats, WasmArray, sinusoidal, sinusoidalFrequencies, addSinusoidal, LAYOUTS, sinusoidal2d,
  timestepEmbedding, relativePositions, ropeFrequencies, ropeCache, applyRope, ropePermuteWeights, ROPE_LAYOUTS, ROPE_2D, ROPE_TYPES,
  mropePositions, alibiSlopes, alibiBias, t5Buckets, t5Bias, debertaBuckets, transformerXLEmbedding, ropeFromConfig, alibiFromConfig,
  queryScalesFromConfig, init, wasmBuild,
};
