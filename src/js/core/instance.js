// instance.js: the one loaded WebAssembly instance of this copy of posenc,
// set by init() (load.js) and read by every compute function.

// The entry this bundle was built for ('posenc' or 'posenc/encoder', set by
// tools/bundle.mjs): each entry carries its own wasm and its own init().
/* global POSENC_ENTRY */
export const ENTRY = typeof POSENC_ENTRY === 'string' ? POSENC_ENTRY : 'posenc';

let instance = null; // { exports, memory } once init() has resolved

/** @internal Installs the instance init() made (null: none). */
export function setInstance(value) {
  instance = value;
}

/** True once init() has resolved. */
export function isReady() {
  return instance !== null;
}

/** The instance, or an Error naming the function that needed it and the init() to call. */
export function wasm(fn) {
  if (!instance) {
    throw new Error(
      `posenc.${fn}: call 'await init()' before using posenc (init imported from '${ENTRY}', the entry this function came from; each entry, 'posenc' and 'posenc/encoder', loads its own wasm)`,
    );
  }
  return instance;
}
