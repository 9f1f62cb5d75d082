// bundle.mjs: builds the package entry points from src/js with esbuild:
// dist/posenc.mjs (ESM) and dist/posenc.cjs (CommonJS), each one file with
// the wasm inline, plus the TypeScript declarations for both.
import { build } from 'esbuild';
import { copyFileSync } from 'node:fs';

const common = {
  entryPoints: ['src/js/index.js'],
  bundle: true,
  platform: 'neutral',
  target: 'es2020',
  legalComments: 'none',
  logLevel: 'warning',
};

await build({ ...common, format: 'esm', outfile: 'dist/posenc.mjs' });
await build({ ...common, format: 'cjs', outfile: 'dist/posenc.cjs' });
copyFileSync('src/js/posenc.d.ts', 'dist/posenc.d.ts');
copyFileSync('src/js/posenc.d.ts', 'dist/posenc.d.cts');
