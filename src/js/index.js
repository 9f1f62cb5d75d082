// posenc: positional encodings for transformers, exact to float32, in WebAssembly.
export { init, isReady, simdSupported, wasmBuild } from './wasm.js';
export { allocate, memoryStats, WasmArray } from './heap.js';
export { sinusoidal, sinusoidalFrequencies, addSinusoidal, LAYOUTS } from './sinusoidal.js';
export { relativePositions } from './relative.js';
export {
  ropeFrequencies, ropeFromConfig, ropeCache, applyRope, ropePermuteWeights, ROPE_TYPES, ROPE_LAYOUTS,
} from './rope.js';
export { alibiSlopes, alibiBias } from './alibi.js';
export { t5Buckets, t5Bias, debertaBuckets } from './buckets.js';
export { transformerXLEmbedding } from './transformer_xl.js';
export {
  createEncoder, encoderTensorShapes, previousTokenHead, softmax, POSITIONAL_TYPES, CONFIG_METADATA_KEY,
} from './encoder.js';
export { readSafetensors, writeSafetensors, SAFETENSORS_DTYPES } from './safetensors.js';
