// npm pack from a checkout without its built files: package.json's prepack
// (tools/prepack.mjs) refuses, naming what to run, instead of a tarball with
// no dist/ (a fresh clone: git does not hold dist/); and a dist/ older than
// the sources it is built from is refused too.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync, utimesSync } from 'node:fs';
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

test('posenc.wasm older than an encoder source it is not built from: packed (only the encoder is rebuilt by make)', () => {
  cpSync(join(ROOT, 'dist'), join(dir, 'dist'), { recursive: true, preserveTimestamps: false });
  const now = Date.now();
  const at = (path, ms) => utimesSync(join(dir, path), new Date(ms), new Date(ms));
  for (const top of ['src', 'include']) {
    for (const f of readdirSync(join(dir, top), { recursive: true })) at(join(top, String(f)), now - 120_000);
  }
  at('src/encoder/nn_math.c', now - 30_000);
  for (const f of ['dist/posenc.wasm', 'dist/posenc-baseline.wasm']) at(f, now - 60_000);
  const r = pack();
  expect(r.stderr).not.toMatch(/posenc prepack/);
  expect(r.status).toBe(0);
  // and a source it is built from is still checked
  at('src/alibi.c', now - 30_000);
  const stale = pack();
  expect(stale.status).not.toBe(0);
  expect(stale.stderr).toMatch(/posenc prepack: dist\/posenc\.wasm is older than src\/alibi\.c/);
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
