// api.js: every positional encoding of posenc, without init(): both entries
// export these ('posenc' with its own wasm, 'posenc/encoder' with the
// encoder's, which holds every routine of 'posenc' too).
export { isReady } from './core/instance.js';
export { simdSupported } from './core/load.js';
export { allocate, memoryStats, WasmArray } from './core/heap.js';
export { sinusoidal, sinusoidalFrequencies, addSinusoidal, LAYOUTS } from './sinusoidal.js';
export { sinusoidal2d } from './sinusoidal2d.js';
export { timestepEmbedding } from './timestep.js';
export { relativePositions } from './relative.js';
export { ropeFrequencies, ropeCache, applyRope, ropePermuteWeights, ROPE_LAYOUTS, ROPE_2D } from './rope.js';
export { ROPE_TYPES } from './rope-scaling.js';
export { mropePositions } from './mrope.js';
export { alibiSlopes, alibiBias } from './alibi.js';
export { t5Buckets, t5Bias, debertaBuckets } from './buckets.js';
export { transformerXLEmbedding } from './transformer_xl.js';
export { ropeFromConfig } from './config/rope-config.js';
export { alibiFromConfig } from './config/alibi-config.js';
export { queryScalesFromConfig } from './config/query-scales.js';
