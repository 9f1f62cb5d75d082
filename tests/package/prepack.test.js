// npm pack from a checkout without its built files: package.json's prepack
// (tools/prepack.mjs) refuses, naming what to run, instead of a tarball with
// no dist/ (a fresh clone: git does not hold dist/); and a dist/ older than
// the sources it is built from is refused too.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cleanEnv } from '../consumers/scratch.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let dir;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'posenc-prepack-'));
  // a checkout: the package's sources, no build
  for (const f of ['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md', 'tools/prepack.mjs', 'src', 'include', 'bin', 'docs', 'examples', 'tools/train/README.md']) {
    cpSync(join(ROOT, f), join(dir, f), { recursive: true });
  }
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const pack = () => spawnSync('npm', ['pack', '--dry-run', '--json'], { cwd: dir, encoding: 'utf8', env: cleanEnv() });

test('without dist/: npm pack fails, and says to run make wasm js', () => {
  const r = pack();
  expect(r.status).not.toBe(0);
  expect(r.stderr).toMatch(/posenc prepack: dist\/cli\.mjs, dist\/posenc\.mjs, .* are missing: run 'make wasm js' first/);
});

test('with a dist/ older than a source: refused, naming both', () => {
  cpSync(join(ROOT, 'dist'), join(dir, 'dist'), { recursive: true });
  const later = new Date(Date.now() + 60_000);
  utimesSync(join(dir, 'src', 'js', 'rope.js'), later, later);
  const r = pack();
  expect(r.status).not.toBe(0);
  expect(r.stderr).toMatch(/posenc prepack: dist\/cli\.mjs is older than src\/js\/rope\.js: run 'make wasm js' first/);
});

test('with dist/ built after the sources: packed, dist/ included', () => {
  cpSync(join(ROOT, 'dist'), join(dir, 'dist'), { recursive: true, preserveTimestamps: false });
  const r = pack();
  expect(r.stderr).not.toMatch(/posenc prepack/);
  expect(r.status).toBe(0);
  const files = JSON.parse(r.stdout)[0].files.map((f) => f.path);
  expect(files).toContain('dist/posenc.mjs');
  expect(files).toContain('dist/posenc-encoder.wasm');
});
