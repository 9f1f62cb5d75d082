// What a Vite production build ships: an app that imports only ropeCache and
// applyRope, one that imports only sinusoidal, and one that uses every
// export, all from the installed tarball with Vite's defaults. The package
// declares no side effects, so the bundler may drop what an app does not
// import; this checks that it does, holds each app to a budget (gzip -9 of
// what a browser fetches by default, set as tests/builds/size.test.js sets the
// entries'), and prints the sizes (docs/performance.md quotes
// them). Each built app is then run in Node, so the smaller ones are known to
// still work.
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
  sinusoidal: `import { init, sinusoidal } from 'posenc';
await init();
globalThis.posencResult = { table: Array.from(sinusoidal({ length: 2, dModel: 4 })) };
`,
  everything: `import * as posenc from 'posenc';
await posenc.init();
// every export is reachable (a bundler cannot drop any of them)
globalThis.posencResult = { names: Object.keys(posenc).sort(), cos: Array.from(posenc.ropeCache({ rotaryDim: 4, length: 2 }).cos) };
`,
};

// bytes gzip -9, as measured when set (the builds are deterministic), plus SLACK
const BUDGETS = { rope: 36714, sinusoidal: 33236, everything: 54764 };
const SLACK = 128;
const LABELS = { rope: 'ropeCache + applyRope', sinusoidal: 'sinusoidal', everything: 'everything' };

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
    console.log(`Vite app importing ${LABELS[name]}: ${b.gzip} bytes gzip -9 fetched by default (${b.bytes} raw; budget ${BUDGETS[name]} + ${SLACK}); only without SIMD: ${lazy}`);
  }
}, 180000);

test('an app importing only ropeCache and applyRope, or only sinusoidal, ships less than one importing everything', () => {
  expect(built.rope.gzip).toBeLessThan(built.everything.gzip);
  expect(built.sinusoidal.gzip).toBeLessThan(built.everything.gzip);
});

test.each(Object.keys(APPS))("the app '%s' fits its budget", (name) => {
  expect(built[name].gzip).toBeLessThanOrEqual(BUDGETS[name] + SLACK);
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
  for (const r of [results.rope, results.everything]) for (let i = 0; i < 4; i++) expect(r.cos[i]).toBeCloseTo(cos[i], 6);
  // the sinusoidal table, dModel 4: [sin(p), cos(p), sin(p / 100), cos(p / 100)] at p = 0, 1
  const table = [0, 1, 0, 1, Math.sin(1), Math.cos(1), Math.sin(0.01), Math.cos(0.01)];
  table.forEach((v, i) => expect(results.sinusoidal.table[i]).toBeCloseTo(v, 6));
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
