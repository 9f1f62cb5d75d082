// Node consumers: a scratch project (outside the repository) installs the
// packed tarball and uses posenc from ESM, from CommonJS, with the wasm given
// explicitly, and through its CLI (`npx posenc`).
import { NOTEBOOK, PACKAGE, ROOT, maxDiff, mustRun, packed, scratchProject, workspace, writeFiles } from './scratch.js';

const PRINTED = 0.5e-4; // the notebook prints 4 decimals
let dir;

// What every script prints: the notebook's table and a few values with known formulas.
const BODY = `
  const pe = posenc.sinusoidal({ length: 10, dModel: 6 });
  const slopes = posenc.alibiSlopes(8);
  const rel = posenc.relativePositions({ queryLength: 2, keyLength: 3 });
  console.log(JSON.stringify({ ready: posenc.isReady(), pe: Array.from(pe), slopes: Array.from(slopes), rel: Array.from(rel) }));
`;

beforeAll(() => {
  dir = workspace('node');
  writeFiles(dir, {
    'esm.mjs': `import * as posenc from 'posenc';\nawait posenc.init();\n${BODY}`,
    'named.mjs': `import { init, sinusoidal } from 'posenc';\nawait init();\nconsole.log(JSON.stringify(Array.from(sinusoidal({ length: 10, dModel: 6 }))));\n`,
    'cjs.cjs': `const posenc = require('posenc');\nposenc.init().then(() => {${BODY}});\n`,
    // the wasm given explicitly: bytes of the shipped posenc.wasm, then a compiled module
    'bytes.mjs': `import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as posenc from 'posenc';
const bytes = readFileSync(createRequire(import.meta.url).resolve('posenc/posenc.wasm'));
await posenc.init({ wasm: new WebAssembly.Module(bytes) });
${BODY}`,
    'bytes.cjs': `const { readFileSync } = require('node:fs');
const posenc = require('posenc');
posenc.init({ wasm: readFileSync(require.resolve('posenc/posenc.wasm')) }).then(() => {${BODY}});\n`,
    // the baseline build, by the export the README names
    'baseline.cjs': `const { readFileSync } = require('node:fs');
const posenc = require('posenc');
posenc.init({ wasm: readFileSync(require.resolve('posenc/posenc-baseline.wasm')) }).then(() => {${BODY}});\n`,
    // ESM and CommonJS copies in one process: each is its own instance with its own init()
    'dual.mjs': `import { createRequire } from 'node:module';
import * as esm from 'posenc';
const cjs = createRequire(import.meta.url)('posenc');
let beforeInit;
try { cjs.sinusoidal({ length: 1, dModel: 2 }); } catch (error) { beforeInit = error.message; }
await Promise.all([esm.init(), cjs.init()]);
const a = esm.sinusoidal({ length: 10, dModel: 6 });
const b = cjs.sinusoidal({ length: 10, dModel: 6 });
console.log(JSON.stringify({ beforeInit, same: a.every((v, i) => v === b[i]), version: createRequire(import.meta.url)('posenc/package.json').version }));
`,
  });
});

const runJson = (file) => JSON.parse(mustRun(process.execPath, [file], { cwd: dir }).stdout);

function checkValues(r) {
  expect(r.ready).toBe(true);
  expect(maxDiff(r.pe, NOTEBOOK.PE)).toBeLessThanOrEqual(PRINTED);
  expect(r.pe.map((v) => v.toFixed(4))).toEqual(NOTEBOOK.PE.map((v) => v.toFixed(4)));
  // power-of-two heads: m_h = 2^(-8 (h + 1) / 8)
  expect(r.slopes).toEqual(Array.from({ length: 8 }, (_, h) => 2 ** -(h + 1)));
  expect(r.rel).toEqual([0, 1, 2, -1, 0, 1]);
}

test('the scratch project has posenc from the tarball, with its own node_modules', () => {
  const installed = JSON.parse(mustRun(process.execPath, ['-p', "JSON.stringify(require('posenc/package.json'))"], { cwd: dir }).stdout);
  expect(installed.version).toBe(PACKAGE.version);
  expect(scratchProject().startsWith(ROOT)).toBe(false); // outside the repository
  expect(dir.startsWith(scratchProject())).toBe(true);
  expect(packed().tarball).toMatch(/build\/pack\/posenc-\d+\.\d+\.\d+\.tgz$/);
});

test('ESM: import * as posenc from "posenc" computes the notebook table', () => {
  checkValues(runJson('esm.mjs'));
});

test('ESM: named imports', () => {
  const pe = runJson('named.mjs');
  expect(maxDiff(pe, NOTEBOOK.PE)).toBeLessThanOrEqual(PRINTED);
});

test('CommonJS: require("posenc") computes the notebook table', () => {
  checkValues(runJson('cjs.cjs'));
});

test('init({ wasm }) takes a compiled WebAssembly.Module (ESM) or bytes (CommonJS) of the shipped posenc.wasm', () => {
  checkValues(runJson('bytes.mjs'));
  checkValues(runJson('bytes.cjs'));
});

test("the baseline wasm resolves as 'posenc/posenc-baseline.wasm' (package exports) and computes the same table", () => {
  checkValues(runJson('baseline.cjs'));
});

test('ESM and CommonJS copies in one process each need their own init() and agree', () => {
  const r = runJson('dual.mjs');
  expect(r.beforeInit).toMatch(/call 'await init\(\)'/);
  expect(r.same).toBe(true);
  expect(r.version).toBe(PACKAGE.version);
});

test('npx posenc (the installed bin) prints the notebook table the way torch does', () => {
  const out = mustRun('npx', ['--no', 'posenc', 'sinusoidal', '--length', '10', '--d-model', '6'], { cwd: dir }).stdout;
  const rows = [];
  for (let r = 0; r < 10; r++) {
    const cells = NOTEBOOK.PE.slice(r * 6, r * 6 + 6).map((v) => v.toFixed(4).padStart(7));
    rows.push(`[${cells.join(', ')}]`);
  }
  expect(out).toBe(`tensor([${rows.join(',\n        ')}])\n`);
  expect(out.split('\n')[0]).toBe('tensor([[ 0.0000,  1.0000,  0.0000,  1.0000,  0.0000,  1.0000],');
});
