// wasm.js: instantiates posenc's WebAssembly module and owns the one instance.
// The module is a standalone wasm (no Emscripten glue); its only
// import is the memory-growth notice, after which `_initialize` must run.
// Two builds ship inline: WASM SIMD (this file) and a baseline for engines
// without SIMD, loaded only when needed. Both give bit-identical results.
import { wasmBase64 } from '../../build/wasm-inline.js';

let instance = null; // { exports, memory } once init() has resolved
let pending = null; // the promise of a first init() still under way

function decodeBase64(text) {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

const imports = {
  env: {
    // Views are derived from memory.buffer at every use, so growth needs no work here.
    emscripten_notify_memory_growth() {},
  },
};

const tag = (x) => Object.prototype.toString.call(x);

// The smallest module that uses a SIMD instruction: () -> v128 { i32x4.splat(0) }.
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 8, 1, 6, 0, 65, 0, 253, 17, 11,
]);

/** True when this engine runs WASM SIMD (feature detection, no instantiation). */
export function simdSupported() {
  return WebAssembly.validate(SIMD_PROBE);
}

let build = null; // 'simd', 'baseline' or 'custom' once loaded

async function inlineBytes(simd) {
  if (simd && simdSupported()) return { bytes: decodeBase64(wasmBase64), which: 'simd' };
  const baseline = await import('../../build/wasm-baseline-inline.js');
  return { bytes: decodeBase64(baseline.wasmBase64), which: 'baseline' };
}

async function instantiate(source, simd) {
  let which = 'custom';
  if (source === undefined) ({ bytes: source, which } = await inlineBytes(simd));
  const inst = await instantiateFrom(source);
  build = which;
  return inst;
}

async function instantiateFrom(source) {
  if (typeof source === 'string' || tag(source) === '[object URL]') source = fetch(source);
  if (tag(source) === '[object Promise]' || tag(source) === '[object Response]') {
    const response = await source;
    if (!response.ok) throw new Error(`posenc.init: fetching the wasm failed: HTTP ${response.status}`);
    // instantiateStreaming needs the application/wasm MIME type; fall back to bytes.
    const type = response.headers.get('Content-Type') || '';
    if (WebAssembly.instantiateStreaming && type.startsWith('application/wasm')) {
      return (await WebAssembly.instantiateStreaming(response, imports)).instance;
    }
    source = await response.arrayBuffer();
  }
  if (tag(source) === '[object WebAssembly.Module]') return WebAssembly.instantiate(source, imports);
  if (tag(source) === '[object ArrayBuffer]' || ArrayBuffer.isView(source)) {
    return (await WebAssembly.instantiate(source, imports)).instance;
  }
  throw new TypeError(
    `posenc.init: wasm must be a URL, a string URL, a Response, bytes (ArrayBuffer or Uint8Array) or a WebAssembly.Module, got ${tag(source)}`,
  );
}

/**
 * Loads the WebAssembly module. Call once and await it before any compute
 * function; later calls return at once (idempotent).
 * @param {{ wasm?: string | URL | Response | BufferSource | WebAssembly.Module, simd?: boolean }} [options]
 *   wasm: where to load the module from; by default the bytes inlined in the
 *   package, the SIMD build where the engine supports it. simd: false forces
 *   the baseline build of the inline bytes (results are bit-identical).
 */
export async function init(options = {}) {
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`posenc.init: options must be an object, got ${options === null ? 'null' : typeof options}`);
  }
  if (options.simd !== undefined && typeof options.simd !== 'boolean') {
    throw new TypeError(`posenc.init: simd must be true or false, got ${typeof options.simd}`);
  }
  if (instance) return;
  if (!pending) {
    pending = instantiate(options.wasm, options.simd !== false).then(
      (inst) => {
        inst.exports._initialize();
        instance = { exports: inst.exports, memory: inst.exports.memory };
      },
      (error) => {
        pending = null; // a failed init may be retried
        throw error;
      },
    );
  }
  return pending;
}

/** Which wasm init() loaded: 'simd', 'baseline' (the inline builds) or 'custom' (options.wasm); null before. */
export function wasmBuild() {
  return instance ? build : null;
}

/** True once init() has resolved. */
export function isReady() {
  return instance !== null;
}

/** The instance, or an Error naming the function that needed it. */
export function wasm(fn) {
  if (!instance) throw new Error(`posenc.${fn}: call 'await init()' before using posenc`);
  return instance;
}
