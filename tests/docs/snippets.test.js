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
// Nothing is added to a block: no hidden preamble, no import the reader does
// not see. A block that cannot run in Node at all (a browser's or a worker's
// code) is fenced ```js no-run, and is then the whole of a file in examples/
// that its page links to, byte for byte; NO_RUN lists each with the test that
// runs that file (so that they stay few and known).
//
// Every ```c block is a whole program: it compiles with -std=c11 -Wall
// -Wextra -Werror against include/ and the library's sources, and runs with
// status 0.
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, blocks, links, pages, read } from './markdown.js';
import { run } from '../consumers/scratch.js';

const RUN = new Set(['js', 'javascript', 'mjs']);
const SCRATCH = join(ROOT, 'build', 'doc-snippets');

// The blocks that do not run in Node: page -> the examples/ file each one is -> the test that runs it.
const NO_RUN = {
  'docs/install.md': {
    'examples/worker/main.js': 'tests/consumers/browser.test.js (vite build, default config; Chromium)',
    'examples/worker/worker.js': 'tests/consumers/browser.test.js (vite build, default config; Chromium)',
  },
};

const all = pages().flatMap((page) => blocks(read(page)).map((b) => ({ page, ...b })));
const js = all.filter((b) => RUN.has(b.info[0]));
const runnable = js.filter((b) => !b.info.includes('no-run'));

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

test('the blocks that cannot run in Node are few, each the whole of an examples/ file its page links to', () => {
  const skipped = js.filter((b) => b.info.includes('no-run'));
  const found = skipped.map((b) => {
    const linked = links(read(b.page)).map((l) => new URL(l.target.split('#')[0], `file:///${b.page}`).pathname.slice(1));
    const file = linked.find((f) => f.startsWith('examples/') && existsSync(join(ROOT, f)) && !statSync(join(ROOT, f)).isDirectory() &&
      readFileSync(join(ROOT, f), 'utf8') === `${b.code}\n`);
    return [b.page, file ?? `(${b.page}:${b.line} is no linked examples/ file)`];
  });
  const known = Object.entries(NO_RUN).flatMap(([page, files]) => Object.keys(files).map((f) => [page, f]));
  expect(found).toEqual(known);
});

test('no block leans on a preamble the reader cannot see', () => {
  const hidden = all.filter((b) => /^preamble\b/i.test(b.comment ?? '')).map((b) => `${b.page}:${b.line}`);
  expect(hidden).toEqual([]);
  for (const page of pages()) expect(read(page)).not.toMatch(/<!--\s*preamble/i);
});

test.each(runnable.map((b) => [b.page, b.line, b]))('%s:%i runs as written', (page, line, block) => {
  const commonjs = /\brequire\(/.test(block.code) && !/^\s*import\b/m.test(block.code);
  const file = join(SCRATCH, `${page.replace(/\W/g, '-')}-${line}.${commonjs ? 'cjs' : 'mjs'}`);
  writeFileSync(file, `${block.code}\n`);
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
