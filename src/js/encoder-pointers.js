// encoder-pointers.js: the names only 'posenc/encoder' exports, placed where a
// program reaching for them in 'posenc' by mistake would find them: on the
// prototype of its default export (import posenc from 'posenc') and of its
// CommonJS exports (require('posenc'), set by tools/bundle.mjs). Reading one
// throws a TypeError that names 'posenc/encoder', instead of giving undefined
// and a bare "is not a function" later. Inherited, they are in no listing,
// spread or copy of the exports. (A named ESM import of one, `import {
// createEncoder } from 'posenc'`, fails in the engine's linker before posenc
// runs: only TypeScript can point there.) An object literal, so that a
// bundler can drop it with the default export from an app that imports names.

const elsewhere = (name) => {
  throw new TypeError(
    `posenc.${name} is exported by 'posenc/encoder', not 'posenc' (the encoder is its own entry, with its own wasm): import { init, ${name} } from 'posenc/encoder' (or require('posenc/encoder')) and await that entry's init()`,
  );
};

/** One getter for each name that 'posenc/encoder' exports beyond 'posenc' (tests/encoder/pointers.test.js keeps the list whole). */
export const ENCODER_POINTERS = {
  get createEncoder() { return elsewhere('createEncoder'); },
  get createModel() { return elsewhere('createModel'); },
  get encoderTensorShapes() { return elsewhere('encoderTensorShapes'); },
  get readSafetensors() { return elsewhere('readSafetensors'); },
  get writeSafetensors() { return elsewhere('writeSafetensors'); },
  get softmax() { return elsewhere('softmax'); },
  get POSITIONAL_TYPES() { return elsewhere('POSITIONAL_TYPES'); },
  get CONFIG_METADATA_KEY() { return elsewhere('CONFIG_METADATA_KEY'); },
  get SAFETENSORS_DTYPES() { return elsewhere('SAFETENSORS_DTYPES'); },
};
