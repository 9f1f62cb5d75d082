// encoder-pointers.js: the names only 'posenc/encoder' exports, placed where a
// program reaching for them in 'posenc' by mistake would find them: its
// default export (import posenc from 'posenc') and its CommonJS exports
// (require('posenc'), by tools/bundle.mjs). Reading one throws a TypeError
// that names 'posenc/encoder', instead of giving undefined and a bare "is not a
// function" later. They are not enumerable: no listing or spread shows them.
// (A named ESM import of one, `import { createEncoder } from 'posenc'`, fails in
// the engine's linker before posenc runs: only TypeScript can point there.)

/** What 'posenc/encoder' exports besides every export of 'posenc' (tests/encoder-pointers.test.js keeps the list whole). */
export const ENCODER_ONLY = [
  'createEncoder', 'encoderTensorShapes', 'readSafetensors', 'writeSafetensors', 'softmax', 'previousTokenHead',
  'POSITIONAL_TYPES', 'CONFIG_METADATA_KEY', 'SAFETENSORS_DTYPES',
];

/** Defines on `target` a throwing getter for each name of ENCODER_ONLY; returns target. */
export function pointToEncoder(target) {
  for (const name of ENCODER_ONLY) {
    Object.defineProperty(target, name, {
      configurable: true,
      enumerable: false,
      get() {
        throw new TypeError(
          `posenc.${name} is exported by 'posenc/encoder', not 'posenc' (the encoder is its own entry, with its own wasm): import { init, ${name} } from 'posenc/encoder' (or require('posenc/encoder')) and await that entry's init()`,
        );
      },
    });
  }
  return target;
}
