// Every ```js, ```javascript and ```mjs block of README.md and docs/*.md runs
// as written, in Node, against the built dist/ (`make wasm js`).
//
// Each block is saved as a file in build/doc-snippets/, a scratch project
// laid out as a user's: node_modules/posenc links to the repository, so
// 'posenc' and 'posenc/encoder' resolve through package.json's exports to
// dist/posenc.mjs and dist/encoder.mjs (dist/*.cjs for require), as in an
// installed package; web/ links to the repository's web/, for the blocks of
// the trained-models page, which run from a checkout's root (web/ is not in
// the npm package). Then `node <file>` runs it there: it must exit with 0 and
// print no error or warning on stderr. A block that calls require() and
// imports nothing is saved as .cjs.
//
// A fragment says what it needs: an HTML comment on the line before its
// fence, `<!-- preamble: NAME -->`, names one of PREAMBLES below, which is
// put before the block's code. A block that cannot run in Node at all (a
// browser's or a worker's code) is fenced ```js no-run and its page says why;
// they are listed here (NO_RUN) so that they stay few and known.
//
// Every ```c block is a whole program: it compiles with -std=c11 -Wall
// -Wextra -Werror against include/ and the library's sources, and runs with
// status 0.
import { existsSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, blocks, pages, read } from './docs-markdown.js';
import { run } from './consumers/scratch.js';

const RUN = new Set(['js', 'javascript', 'mjs']);
const SCRATCH = join(ROOT, 'build', 'doc-snippets');

// The preambles fragments may name. Each is the code a reader has already
// written when the fragment's page shows it: imports and the arrays it uses.
const PREAMBLES = {
  // a model's shapes and arrays, as the interop examples (examples/*.mjs) use them
  'tensors': `
const [batch, seq, dModel, heads] = [2, 8, 16, 4];
`,
  // and tfjs tensors of those shapes
  'tfjs': `
const [batch, seq, dModel, heads] = [2, 8, 16, 4];
const tfjs = await import('@tensorflow/tfjs-core');
await import('@tensorflow/tfjs-backend-cpu');
const embeddings = tfjs.randomNormal([batch, seq, dModel]);
const logits = tfjs.randomNormal([heads, seq, seq]);
`,
  // a KV cache of 4 heads of 8, holding a 5-token prompt
  'kv-cache': `
const [heads, headDim, capacity, promptLength] = [4, 8, 16, 5];
const kCache = new Float32Array(capacity * heads * headDim);
const promptKeys = Float32Array.from({ length: promptLength * heads * headDim }, (_, i) => Math.sin(i));
const tokenQuery = Float32Array.from({ length: heads * headDim }, (_, i) => Math.cos(i));
const tokenKey = Float32Array.from({ length: heads * headDim }, (_, i) => Math.sin(3 * i));
`,
  // the encoder's entry, loaded
  'encoder': `
import { init, softmax } from 'posenc/encoder';
await init();
`,
};

// The blocks that do not run in Node, by page and first line of code, with why.
const NO_RUN = {
  'docs/install.md': {
    '// main.js: a module worker': 'a browser worker (new Worker with type: module, postMessage)',
    "await init({ wasm: '/static/posenc.wasm' }); // a URL on your site": 'a URL on a web server',
  },
};

const all = pages().flatMap((page) => blocks(read(page)).map((b) => ({ page, ...b })));
const js = all.filter((b) => RUN.has(b.info[0]));
const runnable = js.filter((b) => !b.info.includes('no-run'));
const firstLine = (b) => b.code.split('\n').find((l) => l.trim() !== '').trim();

beforeAll(() => {
  for (const f of ['dist/posenc.mjs', 'dist/encoder.mjs', 'dist/posenc.cjs']) {
    if (!existsSync(join(ROOT, f))) throw new Error(`${f} is missing: build with 'make wasm js' first`);
  }
  rmSync(SCRATCH, { recursive: true, force: true });
  mkdirSync(join(SCRATCH, 'node_modules'), { recursive: true });
  symlinkSync(ROOT, join(SCRATCH, 'node_modules', 'posenc'), 'dir');
  symlinkSync(join(ROOT, 'web'), join(SCRATCH, 'web'), 'dir');
  writeFileSync(join(SCRATCH, 'package.json'), '{ "private": true, "type": "module" }\n');
});

test('the docs have JavaScript to run, and no block escapes the test', () => {
  expect(runnable.length).toBeGreaterThanOrEqual(15);
  // a fence indented or written otherwise would not be seen as js: none is
  const odd = all.filter((b) => b.indent > 0 || (b.info.length > 0 && /^(jsx?|javascript|mjs|cjs|node)$/i.test(b.info[0]) && !RUN.has(b.info[0])));
  expect(odd.map((b) => `${b.page}:${b.line}`)).toEqual([]);
});

test('the blocks that cannot run in Node are few and each is known', () => {
  const skipped = js.filter((b) => b.info.includes('no-run')).map((b) => [b.page, firstLine(b)]);
  const known = Object.entries(NO_RUN).flatMap(([page, lines]) => Object.keys(lines).map((l) => [page, l]));
  expect(skipped).toEqual(known);
});

const preambles = (block) => (block.comment?.startsWith('preamble:') ? block.comment.slice('preamble:'.length).trim().split(/\s*,\s*/) : []);

test('every preamble named exists, and every preamble is used', () => {
  const named = all.flatMap(preambles);
  expect(named.filter((n) => !(n in PREAMBLES))).toEqual([]);
  expect(Object.keys(PREAMBLES).filter((n) => !named.includes(n))).toEqual([]);
});

test.each(runnable.map((b) => [b.page, b.line, b]))('%s:%i runs as written', (page, line, block) => {
  const preamble = preambles(block).map((n) => PREAMBLES[n] ?? '').join('\n');
  const commonjs = /\brequire\(/.test(block.code) && !/^\s*import\b/m.test(block.code);
  const file = join(SCRATCH, `${page.replace(/\W/g, '-')}-${line}.${commonjs ? 'cjs' : 'mjs'}`);
  writeFileSync(file, `${preamble}\n${block.code}\n`);
  const r = run(process.execPath, [file], { cwd: SCRATCH, timeout: 60000 });
  // status 0, and no error or warning on stderr (tfjs prints a banner there, which is neither)
  expect({ status: r.status, stderr: /\b(?:error|warning)\b/i.test(r.stderr) ? r.stderr : '' }).toEqual({ status: 0, stderr: '' });
});

const programs = all.filter((b) => b.info[0] === 'c');

test.each(programs.map((b) => [b.page, b.line, b]))('%s:%i compiles and runs as written (C)', (page, line, block) => {
  expect(block.code).toMatch(/\bint main\(/);
  const base = join(SCRATCH, `${page.replace(/\W/g, '-')}-${line}`);
  writeFileSync(`${base}.c`, `${block.code}\n`);
  const sources = ['src', 'src/encoder'].flatMap((dir) => readdirSync(join(ROOT, dir)).filter((f) => f.endsWith('.c')).map((f) => join(ROOT, dir, f)));
  const cc = run('cc', ['-std=c11', '-Wall', '-Wextra', '-Werror', `-I${join(ROOT, 'include')}`, `-I${join(ROOT, 'src')}`, `${base}.c`, ...sources, '-lm', '-o', base]);
  expect(cc.stderr).toBe('');
  expect(cc.status).toBe(0);
  expect(run(base, []).status).toBe(0);
});
