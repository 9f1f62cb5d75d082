// wasm.js: instantiates posenc's WebAssembly module and owns the one instance.
// The module is a standalone wasm without Emscripten's JS glue (the glue of
// Emscripten 3.1.6 fails on Node.js 20: its ES module uses __dirname, its
// CommonJS one fetch()es a file path). It imports nothing; `_initialize` must
// run once after instantiation.
// Two builds ship inline: WASM SIMD (this file) and a baseline for engines
// without SIMD, loaded only when needed. Both give bit-identical results.
import { wasmBase64 } from '../../build/wasm-inline.js';
import { boolean, readOptions } from './params.js';
import { decodeBase64 } from './base64.js';

let instance = null; // { exports, memory } once init() has resolved
let pending = null; // the promise of a first init() still under way

// No imports: memory grows inside the module (src/wasm/malloc.c), and views are
// derived from memory.buffer at every use, so growth needs no notice.
const imports = {};

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

// What the first init() asked for, { build, wasm }: later calls must ask for
// nothing or for the same. build is 'simd', 'baseline' or 'custom' (options.wasm).
let requested = null;

const isSource = (v) =>
  typeof v === 'string' || ArrayBuffer.isView(v) ||
  ['[object URL]', '[object Promise]', '[object Response]', '[object ArrayBuffer]', '[object WebAssembly.Module]'].includes(tag(v));

// The same source: the same object, or URLs with the same text.
const sameSource = (a, b) => a === b || (isURL(a) && isURL(b) && String(a) === String(b));
const isURL = (v) => typeof v === 'string' || tag(v) === '[object URL]';

/** The build options ask for, or null when they leave it open (init() joins whatever is loaded). */
function requestOf(o) {
  if (o.wasm !== undefined) return { build: 'custom', wasm: o.wasm };
  if (o.simd === undefined) return null;
  return { build: o.simd && simdSupported() ? 'simd' : 'baseline' };
}

const describeRequest = (r) => (r.build === 'custom' ? 'the wasm given as options.wasm' : `the '${r.build}' build`);

/**
 * Loads the WebAssembly module. Call once and await it before any compute
 * function. Later calls (while loading or after) resolve with the same load
 * when they ask for nothing else: init() and init({}) always; the same
 * options.wasm, or a simd that gives the build already chosen. Asking for
 * another build or another wasm is an Error naming what is loaded.
 * @param {{ wasm?: string | URL | Response | BufferSource | WebAssembly.Module, simd?: boolean }} [options]
 *   wasm: where to load the module from; by default the bytes inlined in the
 *   package, the SIMD build where the engine supports it. simd: false forces
 *   the baseline build of the inline bytes (results are bit-identical); it
 *   has no effect with wasm.
 */
export async function init(options = {}) {
  const fn = 'init';
  const source = {
    optional: true,
    check(f, name, v) {
      if (!isSource(v)) {
        throw new TypeError(
          `posenc.${f}: ${name} must be a URL, a string URL, a Response, bytes (ArrayBuffer or Uint8Array) or a WebAssembly.Module, got ${tag(v)}`,
        );
      }
      return v;
    },
  };
  const o = readOptions(fn, options, { wasm: source, simd: boolean({ optional: true }) });
  const request = requestOf(o);
  if (instance || pending) {
    const same = request === null ||
      (request.build === requested.build && (request.build !== 'custom' || sameSource(request.wasm, requested.wasm)));
    if (!same) {
      throw new Error(
        `posenc.${fn}: ${describeRequest(requested)} is ${instance ? `already loaded (wasmBuild() is '${build}')` : 'loading (an earlier init() asked for it)'}; ` +
          `these options ask for ${describeRequest(request)}: options apply to the first init() only`,
      );
    }
    return pending;
  }
  requested = request ?? { build: simdSupported() ? 'simd' : 'baseline' };
  pending = instantiate(o.wasm, o.simd !== false).then(
    (inst) => {
      inst.exports._initialize();
      instance = { exports: inst.exports, memory: inst.exports.memory };
    },
    (error) => {
      pending = null; // a failed init may be retried, with any options
      requested = null;
      throw error;
    },
  );
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
