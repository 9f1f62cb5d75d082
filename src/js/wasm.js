// wasm.js: instantiates posenc's WebAssembly module and owns the one instance.
// The module is a standalone wasm (no Emscripten glue, see DESIGN.md); its only
// import is the memory-growth notice, after which `_initialize` must run.
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

async function instantiate(source) {
  if (source === undefined) source = decodeBase64(wasmBase64);
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
 * @param {{ wasm?: string | URL | Response | BufferSource | WebAssembly.Module }} [options]
 *   where to load the module from; by default the bytes inlined in this file.
 */
export async function init(options = {}) {
  if (instance) return;
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`posenc.init: options must be an object, got ${options === null ? 'null' : typeof options}`);
  }
  if (!pending) {
    pending = instantiate(options.wasm).then(
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

/** True once init() has resolved. */
export function isReady() {
  return instance !== null;
}

/** The instance, or an Error naming the function that needed it. */
export function wasm(fn) {
  if (!instance) throw new Error(`posenc.${fn}: call 'await init()' before using posenc`);
  return instance;
}
