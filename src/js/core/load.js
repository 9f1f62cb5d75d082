// load.js: init(), which instantiates an entry's WebAssembly module and
// installs it (instance.js). The module is a standalone wasm without
// Emscripten's JS glue (the glue of Emscripten 3.1.6 fails on Node.js 20: its
// ES module uses __dirname, its CommonJS one fetch()es a file path). It
// imports nothing; `_initialize` must run once after instantiation.
// Each entry ships two builds inline: WASM SIMD, and a baseline for engines
// without SIMD, loaded only when needed. Both give bit-identical results.
import { boolean, readOptions } from './options.js';
import { decodeHex } from './hex.js';
import { describe, typeOf } from './describe.js';
import { ENTRY, setInstance } from './instance.js';
import { registerMemory } from './heap.js';

// No imports: memory grows inside the module (src/wasm/malloc.c), and views are
// derived from memory.buffer at every use, so growth needs no notice.
const imports = {};

// The smallest module that uses a SIMD instruction: () -> v128 { i32x4.splat(0) }.
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 8, 1, 6, 0, 65, 0, 253, 17, 11,
]);

/** True when this engine runs WASM SIMD (feature detection, no instantiation). */
export function simdSupported() {
  return WebAssembly.validate(SIMD_PROBE);
}

const SOURCE_KINDS = 'a URL, a string URL, a Response, bytes (ArrayBuffer or Uint8Array) or a WebAssembly.Module';
const SOURCE_TAGS = ['URL', 'Promise', 'Response', 'ArrayBuffer', 'WebAssembly.Module'];
const isSource = (v) => typeof v === 'string' || ArrayBuffer.isView(v) || SOURCE_TAGS.includes(typeOf(v));
const isURL = (v) => typeof v === 'string' || typeOf(v) === 'URL';
// The same source: the same object, or URLs with the same text.
const sameSource = (a, b) => a === b || (isURL(a) && isURL(b) && String(a) === String(b));

/** Node reads file: URLs from disk (its fetch() does not); elsewhere an error says to pass the bytes. */
async function readFileURL(url) {
  const fs = globalThis.process?.getBuiltinModule?.('node:fs');
  if (!fs) {
    throw new TypeError(`posenc.init: wasm is a file: URL (${url}), which this engine cannot read: pass the file's bytes instead`);
  }
  try {
    return await fs.promises.readFile(new URL(url));
  } catch (error) {
    throw new Error(`posenc.init: could not read wasm from ${url}: ${error?.message ?? error}`, { cause: error });
  }
}

/**
 * An absolute URL for a string or URL source: resolved against the page or
 * worker where there is one (as fetch() resolves it), else it must be
 * absolute (Node's fetch() has no base URL).
 */
function absoluteURL(source) {
  const base = globalThis.document?.baseURI ?? globalThis.location?.href;
  try {
    return new URL(String(source), base).href;
  } catch (error) {
    const text = JSON.stringify(String(source));
    throw new TypeError(
      `posenc.init: wasm is not an absolute URL, got ${text} (there is no page to resolve it against: pass new URL(${text.replace(/^"|"$/g, "'")}, import.meta.url), a file: URL or the file's bytes)`,
      { cause: error },
    );
  }
}

/** The engine's message, and its cause's (Node's "fetch failed" says why only there). */
const reason = (error) => {
  const own = String(error?.message ?? error);
  const cause = error?.cause?.message;
  return cause && !own.includes(cause) ? `${own} (${cause})` : own;
};

/** What a Response's status says: "HTTP 404 Not Found". */
const statusOf = (response) => `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;

/** A compiled or instantiable form of a wasm source: bytes, a Module, or a Response; errors name the URL tried. */
async function resolveSource(source) {
  if (isURL(source)) {
    const url = absoluteURL(source);
    if (url.startsWith('file:')) return readFileURL(url);
    let response;
    try {
      response = await fetch(url);
    } catch (error) {
      throw new TypeError(`posenc.init: could not fetch wasm from ${url}: ${reason(error)}`, { cause: error }); // fetch()'s network errors are TypeErrors
    }
    if (!response.ok) throw new Error(`posenc.init: could not fetch wasm from ${url}: ${statusOf(response)}`);
    return response;
  }
  if (typeOf(source) === 'Promise') {
    let settled;
    try {
      settled = await source;
    } catch (error) {
      throw new Error(`posenc.init: wasm is a Promise that rejected: ${reason(error)}`, { cause: error });
    }
    if (typeOf(settled) !== 'Response') {
      throw new TypeError(
        `posenc.init: wasm is a Promise that resolved to ${describe(settled)}, not a Response: pass fetch(url) itself, or the bytes or WebAssembly.Module without a Promise`,
      );
    }
    source = settled;
  }
  if (typeOf(source) === 'Response' && !source.ok) {
    throw new Error(`posenc.init: wasm is a Response that failed: ${statusOf(source)}${source.url ? ` (${source.url})` : ''}`);
  }
  return source;
}

/** A failure to read a Response's body (not the wasm's fault). */
class BodyError extends Error {}
async function readBody(response) {
  try {
    return await response.arrayBuffer();
  } catch (error) {
    throw new BodyError('body', { cause: error });
  }
}

/** Compiles bytes, a Module or a Response, and instantiates it; errors name what was wrong with the wasm. */
async function instantiate(source) {
  let module;
  try {
    if (typeOf(source) === 'WebAssembly.Module') module = source;
    else if (typeOf(source) === 'Response') {
      // compileStreaming needs the application/wasm MIME type; fall back to bytes.
      const type = source.headers.get('Content-Type') || '';
      if (source.bodyUsed) throw new TypeError('its body was read already');
      module = WebAssembly.compileStreaming && type.startsWith('application/wasm')
        ? await WebAssembly.compileStreaming(source)
        : await WebAssembly.compile(await readBody(source));
    } else module = await WebAssembly.compile(source);
  } catch (error) {
    if (error instanceof BodyError || (typeOf(source) === 'Response' && !(error instanceof WebAssembly.CompileError))) {
      throw new TypeError(`posenc.init: wasm is a Response whose body could not be read (${reason(error.cause ?? error)})`, { cause: error.cause ?? error });
    }
    const Err = error instanceof WebAssembly.CompileError ? WebAssembly.CompileError : Error;
    throw new Err(`posenc.init: the wasm could not be compiled: it is not valid WebAssembly (${error?.message ?? error})`, { cause: error });
  }
  const needs = WebAssembly.Module.imports(module).map((i) => `${i.module}.${i.name}`);
  if (needs.length) {
    throw new WebAssembly.LinkError(`posenc.init: the wasm could not be instantiated: it needs imports (${needs.slice(0, 4).join(', ')}${needs.length > 4 ? ', ...' : ''}); posenc's wasm imports nothing`);
  }
  return WebAssembly.instantiate(module, imports);
}

/**
 * Checks that an instance is this entry's wasm (every export the entry calls)
 * and starts it.
 */
function start(inst, required) {
  const exported = inst.exports;
  const missing = required.filter((name) => typeof exported[name] !== 'function');
  if (!(exported.memory instanceof WebAssembly.Memory)) missing.unshift('memory');
  if (missing.length) {
    const shown = missing.slice(0, 4).join(', ') + (missing.length > 4 ? `, ... (${missing.length} in all)` : '');
    throw new Error(
      `posenc.init: the wasm is not ${ENTRY}'s: it lacks the export${missing.length > 1 ? 's' : ''} ${shown}` +
        (ENTRY === 'posenc/encoder' && !missing.includes('_initialize') ? " (the wasm of 'posenc' has no encoder: load 'posenc/encoder''s own)" : ''),
    );
  }
  exported._initialize();
  registerMemory(exported.memory); // other copies refuse views of it
  return { exports: exported, memory: exported.memory };
}

/** init()'s options. */
export const initSpec = {
  wasm: {
    optional: true,
    check(fn, name, v) {
      if (!isSource(v)) throw new TypeError(`posenc.${fn}: ${name} must be ${SOURCE_KINDS}, got ${typeOf(v)}`);
      return v;
    },
  },
  simd: boolean({ optional: true }),
};

/**
 * Makes the init() of an entry: `inline.simd()` and `inline.baseline()`
 * resolve to the hex text of its two builds (hex.js); `required` lists the
 * exports its functions call.
 */
export function makeInit(inline, required) {
  let pending = null; // the promise of a first init() under way or done
  let requested = null; // { build, wasm } that init() asked for
  let build = null; // 'simd', 'baseline' or 'custom' once loaded

  /** The build options ask for, or null when they leave it open (init() joins whatever is loaded). */
  function requestOf(o) {
    if (o.wasm !== undefined) return { build: 'custom', wasm: o.wasm };
    if (o.simd === undefined) return null;
    return { build: o.simd && simdSupported() ? 'simd' : 'baseline' };
  }
  const describeRequest = (r) => (r.build === 'custom' ? 'the wasm given as options.wasm' : `the '${r.build}' build`);

  async function load(request) {
    const bytes = request.build === 'custom' ? await resolveSource(request.wasm)
      : decodeHex(request.build === 'simd' ? inline.simd() : await inline.baseline());
    try {
      setInstance(start(await instantiate(bytes), required));
    } catch (error) {
      // what was wrong with the wasm, and where it came from when it came from a URL
      if (request.build !== 'custom' || !isURL(request.wasm) || !String(error?.message).startsWith('posenc.init: the wasm ')) throw error;
      const from = `posenc.init: the wasm from ${absoluteURL(request.wasm)} `;
      throw new error.constructor(error.message.replace('posenc.init: the wasm ', from), { cause: error.cause });
    }
    build = request.build;
  }

  /**
   * Loads the WebAssembly module. Call once and await it before any compute
   * function. Later calls (while loading or after) resolve with the same load
   * when they ask for nothing else: init() and init({}) always; the same
   * options.wasm, or a simd that gives the build already chosen. Asking for
   * another build or another wasm is an Error naming what is loaded. A failed
   * init() leaves nothing behind: it may be retried, with any options.
   * @param {{ wasm?: string | URL | Response | BufferSource | WebAssembly.Module, simd?: boolean }} [options]
   */
  async function init(options = {}) {
    const fn = 'init';
    const o = readOptions(fn, options, initSpec);
    const request = requestOf(o);
    if (pending) {
      const same = request === null ||
        (request.build === requested.build && (request.build !== 'custom' || sameSource(request.wasm, requested.wasm)));
      if (!same) {
        throw new Error(
          `posenc.${fn}: ${describeRequest(requested)} is ${build ? `already loaded (wasmBuild() is '${build}')` : 'loading (an earlier init() asked for it)'}; ` +
            `these options ask for ${describeRequest(request)}: options apply to the first init() only`,
        );
      }
      return pending;
    }
    requested = request ?? { build: simdSupported() ? 'simd' : 'baseline' };
    pending = load(requested).catch((error) => {
      pending = null; // nothing stays: a later init() starts afresh
      requested = null;
      throw error;
    });
    return pending;
  }

  /** Which wasm init() loaded: 'simd', 'baseline' (the inline builds) or 'custom' (options.wasm); null before. */
  const wasmBuild = () => build;

  return { init, wasmBuild };
}
