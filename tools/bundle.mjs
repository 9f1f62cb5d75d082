// bundle.mjs: builds the two package entries from src/js with esbuild, each
// self-contained with its own wasm inline:
//   'posenc'          dist/posenc.mjs, dist/posenc.cjs   (src/js/index.js)
//   'posenc/encoder'  dist/encoder.mjs, dist/encoder.cjs (src/js/encoder/index.js)
// The ESM builds split the baseline wasm (for engines without SIMD) into a
// chunk loaded only where it is needed; the CommonJS builds are one file.
// The code is minified but not onto one line: Node prints the source line of
// an uncaught error's throw site, so esbuild breaks lines at 80 characters
// (a line runs longer only where a token does), and such an error prints a
// short line, not the bundle. esbuild breaks long string literals too, with a
// backslash-newline; the wasm's hex is joined back into one line (oneLine),
// where gzip finds its repeats (a break every 80 characters costs 1 KB of
// gzip on the SIMD build).
import { build } from 'esbuild';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

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

// The wasm's hex (src/js/core/hex.js) without the backslash-newlines esbuild
// put in it: the only string literal of a thousand hex digits or more.
const WASM_HEX = /(["'`])(?:[0-9a-f]|\\\n){1000,}\1/g;
const oneLine = (code) => code.replace(WASM_HEX, (literal) => literal.replaceAll('\\\n', ''));

/** Builds, and writes each output file with the wasm's hex on one line. */
async function bundle(options) {
  const { outputFiles } = await build(options);
  for (const file of outputFiles) {
    mkdirSync(dirname(file.path), { recursive: true });
    writeFileSync(file.path, oneLine(file.text));
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
  await bundle({ ...options, format: 'cjs', outfile: `dist/${entry.out}.cjs` });
  // the CommonJS declarations import their siblings' CommonJS declarations
  const types = readFileSync(entry.types, 'utf8');
  writeFileSync(`dist/${entry.out}.d.ts`, types);
  writeFileSync(`dist/${entry.out}.d.cts`, types.replaceAll("from './posenc.js'", "from './posenc.cjs'"));
}
