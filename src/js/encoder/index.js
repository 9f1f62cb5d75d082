// posenc/encoder: the tiny transformer encoder, .safetensors files, and every
// positional encoding of 'posenc' (the same functions), with one wasm inline
// that holds them all. Import everything from here and call this init().
import { exports_encoder } from '../../../build/abi.js';
import { wasmHex } from '../../../build/posenc-encoder.wasm.js';
import { makeInit } from '../core/load.js';

export * from '../api.js';
export { createEncoder, encoderTensorShapes } from './encoder.js';
export { createModel } from './model.js';
export { POSITIONAL_TYPES, CONFIG_METADATA_KEY } from './options.js';
export { softmax } from './softmax.js';
export { readSafetensors, writeSafetensors, SAFETENSORS_DTYPES } from './safetensors.js';

/**
 * Loads the encoder's wasm (inline in this module; it also runs every
 * positional encoding): call once, and await it, before any compute function.
 */
export const { init, wasmBuild } = makeInit(
  {
    simd: () => wasmHex,
    baseline: async () => (await import('../../../build/posenc-encoder-baseline.wasm.js')).wasmHex,
  },
  exports_encoder,
);
