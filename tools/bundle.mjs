// bundle.mjs: builds the package entry points from src/js with esbuild:
// dist/posenc.mjs (ESM, minified) with the SIMD wasm inline and the baseline
// build split into a chunk loaded only on engines without SIMD;
// dist/posenc.cjs (CommonJS, one file); the TypeScript declarations for both.
import { build } from 'esbuild';
import { copyFileSync, readdirSync, rmSync } from 'node:fs';

const common = {
  entryPoints: { posenc: 'src/js/index.js' },
  bundle: true,
  platform: 'neutral',
  // es2022 keeps WasmArray's private fields and its `#ptr in x` brand check as
  // written (es2020 rewrote them into WeakMap helpers, a chunk of their own).
  // The code already needs ES2022's Object.hasOwn (Node 16.9+, Chrome/Edge
  // 93+, Firefox 92+, Safari 15.4+), so no engine is lost.
  target: 'es2022',
  legalComments: 'none',
  logLevel: 'warning',
  minify: true,
};

// stale chunks of earlier builds would otherwise ship in the package
for (const f of readdirSync('dist')) if (/^posenc-chunk-.*\.mjs$/.test(f)) rmSync(`dist/${f}`);

await build({
  ...common,
  format: 'esm',
  splitting: true,
  outdir: 'dist',
  outExtension: { '.js': '.mjs' },
  chunkNames: 'posenc-chunk-[hash]',
});
await build({ ...common, format: 'cjs', outfile: 'dist/posenc.cjs' });
copyFileSync('src/js/posenc.d.ts', 'dist/posenc.d.ts');
copyFileSync('src/js/posenc.d.ts', 'dist/posenc.d.cts');
