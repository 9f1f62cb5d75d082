// posenc: positional encodings for transformers, exact to float32, in WebAssembly.
export { init, isReady } from './wasm.js';
export { allocate, memoryStats, WasmArray } from './heap.js';
export { sinusoidal, sinusoidalFrequencies, addSinusoidal, LAYOUTS } from './sinusoidal.js';
export { relativePositions } from './relative.js';
// @@ rope exports @@
// @@ biases exports @@
