// bundle.mjs: builds the two package entries from src/js with esbuild, each
// self-contained with its own wasm inline:
//   'posenc'          dist/posenc.mjs, dist/posenc.cjs   (src/js/index.js)
//   'posenc/encoder'  dist/encoder.mjs, dist/encoder.cjs (src/js/encoder/index.js)
// The ESM builds split the baseline wasm (for engines without SIMD) into a
// chunk loaded only where it is needed; the CommonJS builds are one file.
// The code is not minified onto one line: Node prints the source line of an
// uncaught error's throw site, so every line stays short (the wasm's base64
// is a line of its own), and such an error prints a few lines, not the bundle.
import { build } from 'esbuild';
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';

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
  minifyWhitespace: false,
};

// stale chunks of earlier builds would otherwise ship in the package
for (const f of readdirSync('dist')) if (/-chunk-.*\.mjs$/.test(f)) rmSync(`dist/${f}`);

for (const entry of entries) {
  const options = { ...common, entryPoints: { [entry.out]: entry.source }, define: { POSENC_ENTRY: JSON.stringify(entry.name) } };
  await build({
    ...options,
    format: 'esm',
    splitting: true,
    outdir: 'dist',
    outExtension: { '.js': '.mjs' },
    chunkNames: `${entry.out}-chunk-[hash]`,
  });
  await build({ ...options, format: 'cjs', outfile: `dist/${entry.out}.cjs` });
  // the CommonJS declarations import their siblings' CommonJS declarations
  const types = readFileSync(entry.types, 'utf8');
  writeFileSync(`dist/${entry.out}.d.ts`, types);
  writeFileSync(`dist/${entry.out}.d.cts`, types.replaceAll("from './posenc.js'", "from './posenc.cjs'"));
}
