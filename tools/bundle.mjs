// bundle.mjs: builds the two package entries from src/js with esbuild, each
// self-contained with its own wasm inline, and the command line:
//   'posenc'          dist/posenc.mjs, dist/posenc.cjs   (src/js/index.js)
//   'posenc/encoder'  dist/encoder.mjs, dist/encoder.cjs (src/js/encoder/index.js)
//   npx posenc        dist/cli.mjs                       (src/cli/main.js, with 'posenc' inside)
// The TypeScript declarations are written from src/js/*.d.ts, each {{ID}}
// replaced by what the parameter table says of that parameter (its range
// and default: include/posenc.h, src/js/core/option-text.js).
// The ESM builds split the baseline wasm (for engines without SIMD) into a
// chunk loaded only where it is needed; the CommonJS builds are one file.
// The code is minified but not onto one line: Node prints the source line of
// an uncaught error's throw site, so esbuild breaks lines at 80 characters (a
// line runs longer where a string does: an error's message, the wasm's hex),
// and such an error prints a line or so, not the bundle.
import { build } from 'esbuild';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { rowText } from '../src/js/core/option-text.js';

/** A declaration file's text with each {{ID}} written out from the parameter table. */
function declarations(path) {
  return readFileSync(path, 'utf8').replace(/\{\{(\w+)\}\}/g, (marker, id) => {
    const text = rowText(id);
    if (text === undefined) throw new Error(`tools/bundle.mjs: ${path}: ${marker} names no parameter of the tables`);
    return text;
  });
}

const entries = [
  { name: 'posenc', source: 'src/js/index.js', out: 'posenc', types: 'src/js/posenc.d.ts' },
  { name: 'posenc/encoder', source: 'src/js/encoder/index.js', out: 'encoder', types: 'src/js/encoder.d.ts' },
];

const common = {
  bundle: true,
  platform: 'neutral',
  // es2022 keeps WasmArray's private fields and its `#ptr in x` brand check as
  // written (es2020 rewrote them into WeakMap helpers, a chunk of their own).
  // The code already needs ES2022's Object.hasOwn (Node 16.9+, Chrome/Edge
  // 93+, Firefox 92+, Safari 15.4+), so no engine is lost.
  target: 'es2022',
  legalComments: 'none',
  logLevel: 'warning',
  minifySyntax: true,
  minifyIdentifiers: true,
  minifyWhitespace: true,
  lineLimit: 80,
  write: false,
};

// esbuild breaks string literals at the line limit with a backslash-newline
// (a line continuation: no part of the value). Joined back, every string is
// whole on its line, where gzip finds its repeats (the breaks cost 0.5 KB of
// the default entry's gzip, and 1 KB more inside the wasm's hex): a backslash
// then a newline, after an even number of backslashes (an escaped backslash
// followed by a template literal's own newline stays).
const joinStrings = (code) => code.replace(/(?<!\\)((?:\\\\)*)\\\n/g, '$1');

/** Builds, and writes each output file with its strings joined (joinStrings). */
async function bundle(options) {
  const { outputFiles } = await build(options);
  for (const file of outputFiles) {
    mkdirSync(dirname(file.path), { recursive: true });
    writeFileSync(file.path, joinStrings(file.text));
  }
}

// stale chunks of earlier builds would otherwise ship in the package
for (const f of readdirSync('dist')) if (/-chunk-.*\.mjs$/.test(f)) rmSync(`dist/${f}`);

for (const entry of entries) {
  const options = { ...common, entryPoints: { [entry.out]: entry.source }, define: { POSENC_ENTRY: JSON.stringify(entry.name) } };
  await bundle({
    ...options,
    format: 'esm',
    splitting: true,
    outdir: 'dist',
    outExtension: { '.js': '.mjs' },
    chunkNames: `${entry.out}-chunk-[hash]`,
  });
  // require('posenc') inherits the default export's pointers to 'posenc/encoder'
  // (src/js/encoder-pointers.js): getters on its prototype, in no listing of the exports
  const footer = entry.name === 'posenc'
    ? { js: 'Object.setPrototypeOf(module.exports,Object.getPrototypeOf(module.exports.default));' }
    : undefined;
  await bundle({ ...options, format: 'cjs', outfile: `dist/${entry.out}.cjs`, footer });
  // the CommonJS declarations import their siblings' CommonJS declarations
  const types = declarations(entry.types);
  writeFileSync(`dist/${entry.out}.d.ts`, types);
  writeFileSync(`dist/${entry.out}.d.cts`, types.replaceAll("'./posenc.js'", "'./posenc.cjs'"));
}

// the command line: one file for Node with what it reads of the library
// (its specs and messages), loaded by bin/posenc.js; the library it runs is
// the package's own entry beside it (./posenc.mjs), not a second copy
const entryBeside = {
  name: 'entry-beside',
  setup(b) {
    b.onResolve({ filter: /\/js\/index\.js$/ }, () => ({ path: './posenc.mjs', external: true }));
  },
};
await bundle({
  ...common, platform: 'node', format: 'esm', entryPoints: ['src/cli/main.js'], outfile: 'dist/cli.mjs',
  define: { POSENC_ENTRY: JSON.stringify('posenc') }, plugins: [entryBeside],
});
