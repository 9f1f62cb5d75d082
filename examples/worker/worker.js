// worker.js: posenc off the main thread, with its own init() and wasm memory.
// No top-level await: bundlers build workers as classic scripts (Vite's
// default worker format is iife), where a module's top-level await cannot go.
import { init, sinusoidal } from 'posenc';

init().then(() => postMessage(sinusoidal({ length: 2048, dModel: 512 })));
