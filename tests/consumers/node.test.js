// Node consumers: a scratch project (outside the repository) installs the
// packed tarball and uses posenc from ESM, from CommonJS, with the wasm given
// explicitly, both entries ('posenc' and 'posenc/encoder'), and through its
// CLI (`npx posenc`).
import { NOTEBOOK, PACKAGE, ROOT, maxDiff, mustRun, packed, run, scratchProject, workspace, writeFiles } from './scratch.js';

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
    // the baseline build, by the export docs/install.md names
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
let foreign;
try { cjs.applyRope(esm.allocate('float32', 4), { heads: 1, headDim: 4 }); } catch (error) { foreign = error.message; }
console.log(JSON.stringify({ beforeInit, foreign, same: a.every((v, i) => v === b[i]), version: createRequire(import.meta.url)('posenc/package.json').version }));
`,
    // the encoder's entry: its own init(), every positional function too
    'encoder.mjs': `import { init, createEncoder, sinusoidal, wasmBuild } from 'posenc/encoder';
await init();
const enc = createEncoder({ vocabSize: 8, dModel: 6, heads: 2, dFF: 8, layers: 1, lmHead: true, weights: { seed: 1 } });
const logits = enc.logits([1, 2, 3], { causal: true });
console.log(JSON.stringify({ build: wasmBuild(), pe: Array.from(sinusoidal({ length: 10, dModel: 6 })), logits: logits.length, finite: logits.every(Number.isFinite) }));
`,
    'encoder.cjs': `const posenc = require('posenc/encoder');
posenc.init().then(() => {
  const enc = posenc.createEncoder({ vocabSize: 8, dModel: 6, heads: 2, dFF: 8, layers: 1, lmHead: true, weights: { seed: 1 } });
  console.log(JSON.stringify({ logits: enc.logits([1, 2, 3]).length, tensors: Object.keys(posenc.readSafetensors(enc.toSafetensors()).tensors).length }));
});
`,
    // the two entries in one program: each init() readies its own entry, and the messages say which
    'entries.mjs': `import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as core from 'posenc';
import * as encoder from 'posenc/encoder';
const require = createRequire(import.meta.url);
await encoder.init();
let coreBefore;
try { core.sinusoidal({ length: 1, dModel: 2 }); } catch (error) { coreBefore = error.message; }
let wrongWasm;
const other = await import(import.meta.resolve('posenc/encoder') + '?fresh'); // a second, untouched copy
try { await other.init({ wasm: readFileSync(require.resolve('posenc/posenc.wasm')) }); } catch (error) { wrongWasm = error.message; }
await other.init({ wasm: readFileSync(require.resolve('posenc/encoder.wasm')) }); // a failed init() may be retried
console.log(JSON.stringify({ coreBefore, wrongWasm, retried: other.wasmBuild(), encoderExports: Object.keys(encoder).length, coreExports: Object.keys(core).length }));
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

test("'posenc/encoder' (ESM and CommonJS) has its own init() and every positional function", () => {
  const esm = runJson('encoder.mjs');
  expect(['simd', 'baseline']).toContain(esm.build);
  expect(maxDiff(esm.pe, NOTEBOOK.PE)).toBeLessThanOrEqual(PRINTED);
  expect(esm).toMatchObject({ logits: 24, finite: true });
  expect(runJson('encoder.cjs')).toEqual({ logits: 24, tensors: 18 });
});

test("two entries in one program: each init() readies its own, a wrong wasm names what it lacks, and init() may be retried", () => {
  const r = runJson('entries.mjs');
  expect(r.coreBefore).toMatch(/call 'await init\(\)' .*imported from 'posenc'/);
  expect(r.wrongWasm).toMatch(/posenc\.init: the wasm is not posenc\/encoder's: it lacks the exports posenc_embed/);
  expect(r.retried).toBe('custom');
  expect(r.encoderExports).toBeGreaterThan(r.coreExports);
});

test('a WasmArray of the other copy (ESM vs CommonJS) is named as such', () => {
  expect(runJson('dual.mjs').foreign).toMatch(/x is a WasmArray of another copy of posenc/);
});

// The commonest newcomer mistake, a call before init(), uncaught: Node prints the
// source line of the throw site, so the shipped code keeps its lines short.
test.each([
  ['ESM', 'posenc', 'uncaught.mjs', "import { sinusoidal } from 'posenc';\nsinusoidal({ length: 10, dModel: 6 });\n"],
  ['CommonJS', 'posenc', 'uncaught.cjs', "const { sinusoidal } = require('posenc');\nsinusoidal({ length: 10, dModel: 6 });\n"],
  ['ESM', 'posenc/encoder', 'uncaught-encoder.mjs', "import { createEncoder } from 'posenc/encoder';\ncreateEncoder({ vocabSize: 2, dModel: 2, heads: 1, dFF: 2, layers: 1, weights: { seed: 1 } });\n"],
  ['CommonJS', 'posenc/encoder', 'uncaught-encoder.cjs', "const { createEncoder } = require('posenc/encoder');\ncreateEncoder({ vocabSize: 2, dModel: 2, heads: 1, dFF: 2, layers: 1, weights: { seed: 1 } });\n"],
])('an uncaught error (%s, %s) prints a few lines, not the bundle', (_kind, _entry, file, source) => {
  writeFiles(dir, { [file]: source });
  const r = run(process.execPath, [file], { cwd: dir });
  expect(r.status).not.toBe(0);
  const bytes = Buffer.byteLength(r.stderr);
  console.log(`${file}: ${bytes} bytes on stderr`);
  expect(r.stderr).toMatch(/call 'await init\(\)'/);
  expect(bytes).toBeLessThan(3000);
  expect(r.stderr.indexOf('call \'await init()\'')).toBeLessThan(1500); // the message comes first, near the top
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
