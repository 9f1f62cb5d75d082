// What a Vite production build ships: an app that imports only ropeCache and
// applyRope against one that uses every export, both from the installed
// tarball with Vite's defaults. The package declares no side effects, so the
// bundler may drop what an app does not import; this checks that it does,
// and prints both sizes (docs/performance.md quotes them). Each
// built app is then run in Node, so the smaller one is known to still work.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { entrySize } from '../../bench/size.mjs';
import { ROOT, mustRun, workspace, writeFiles } from './scratch.js';

let dir;

// The entry is a JS module (not a page): Vite writes it as one ES module that
// Node can import, and sets globalThis.posencResult when done.
const APPS = {
  rope: `import { init, ropeCache, applyRope } from 'posenc';
await init();
const { cos, sin } = ropeCache({ rotaryDim: 4, length: 2 });
const x = new Float32Array([1, 0, 0, 0, 1, 0, 0, 0]); // [seq 2][headDim 4], half layout
applyRope(x, { heads: 1, headDim: 4 });
globalThis.posencResult = { cos: Array.from(cos), sin: Array.from(sin), x: Array.from(x) };
`,
  everything: `import * as posenc from 'posenc';
await posenc.init();
// every export is reachable (a bundler cannot drop any of them)
globalThis.posencResult = { names: Object.keys(posenc).sort(), cos: Array.from(posenc.ropeCache({ rotaryDim: 4, length: 2 }).cos) };
`,
};

const config = (name) => `export default {
  logLevel: 'warn',
  build: { outDir: 'out-${name}', emptyOutDir: true, rollupOptions: { input: './${name}.js', output: { entryFileNames: '[name].js' } } },
};
`;

/**
 * Builds an app; returns what a browser fetches by default (the entry and its
 * static imports; bench/size.mjs) and the chunks it loads only through
 * import() (posenc's baseline wasm, for engines without SIMD), gzip -9.
 */
function build(name) {
  mustRun(process.execPath, [join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--config', `vite.${name}.config.mjs`], { cwd: dir });
  const out = join(dir, `out-${name}`);
  const size = entrySize(`${name}.js`, out);
  // every JS file Vite wrote is accounted for, fetched by default or lazily
  const written = readdirSync(out, { recursive: true }).filter((f) => f.endsWith('.js')).sort();
  expect([...size.files, ...size.lazy].map((f) => f.file).sort()).toEqual(written);
  return { out, ...size };
}

const built = {};

beforeAll(() => {
  dir = workspace('vite-size');
  for (const [name, source] of Object.entries(APPS)) {
    writeFiles(dir, { [`${name}.js`]: source, [`vite.${name}.config.mjs`]: config(name) });
    built[name] = build(name);
  }
  for (const [name, b] of Object.entries(built)) {
    const lazy = b.lazy.map((f) => `${f.file} ${f.gzip}`).join(', ');
    console.log(`Vite app importing ${name === 'rope' ? 'ropeCache + applyRope' : 'everything'}: ${b.gzip} bytes gzip -9 fetched by default (${b.bytes} raw); only without SIMD: ${lazy}`);
  }
}, 180000);

test('an app importing only ropeCache and applyRope ships less than one importing everything', () => {
  expect(built.rope.gzip).toBeLessThan(built.everything.gzip);
});

test('both built apps run (Node imports their entry) and compute RoPE', async () => {
  const results = {};
  for (const name of Object.keys(APPS)) {
    delete globalThis.posencResult;
    await import(pathToFileURL(join(built[name].out, `${name}.js`)).href);
    results[name] = globalThis.posencResult;
  }
  // cos of positions 0 and 1 for frequencies 1 and 1/100
  const cos = [1, 1, Math.cos(1), Math.cos(0.01)];
  for (const r of Object.values(results)) for (let i = 0; i < 4; i++) expect(r.cos[i]).toBeCloseTo(cos[i], 6);
  expect(results.everything.names).toContain('ropeFromConfig');
  expect(results.everything.names).not.toContain('createEncoder'); // the encoder is 'posenc/encoder'
  // feature pair (0, 2) = (1, 0) rotated by position * 1: unchanged at 0, (cos 1, sin 1) at 1
  expect(results.rope.x.slice(0, 4)).toEqual([1, 0, 0, 0]);
  const r = results.rope.x.slice(4);
  [Math.cos(1), 0, Math.sin(1), 0].forEach((v, i) => expect(r[i]).toBeCloseTo(v, 6));
  // and what the cache says
  expect(r[0]).toBe(results.rope.cos[2]);
  expect(r[2]).toBe(results.rope.sin[2]);
});
