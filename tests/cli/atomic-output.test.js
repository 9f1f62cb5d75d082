// posenc --out FILE writes a temporary file beside FILE and renames it over
// FILE once every byte is written: a write that fails part way (a full disk,
// here a file-size limit: ulimit -f makes write() fail with EFBIG as a full
// disk fails with ENOSPC) leaves no truncated file whose header claims the
// full shape, and an earlier FILE as it was. Paths that are not regular files
// (/dev/stdout, /dev/full, a FIFO) are written in place.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readNpy } from '../consumers/scratch.js';

const CLI = fileURLToPath(new URL('../../bin/posenc.js', import.meta.url));
let dir;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'posenc-atomic-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The CLI under a file-size limit of `kib` KiB (none when undefined): { status, stdout, stderr }. */
function posenc(args, { kib } = {}) {
  const command = `${kib === undefined ? '' : `ulimit -f ${kib}; `}exec "$0" "$@"`;
  const r = spawnSync('bash', ['-c', command, process.execPath, CLI, ...args], { cwd: dir, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
// 2,000,000 float32 values: 8 MB of .npy, past a 1 MiB limit
const BIG = ['sinusoidal', '--length', '31250', '--d-model', '64'];

test.each(['npy', 'raw', 'csv', 'json'])('a write that fails part way (%s) leaves no file, and nothing beside it', (format) => {
  const out = join(dir, `pe.${format}`);
  const r = posenc([...BIG, '--format', format, '--out', out], { kib: 1024 });
  expect(r.status).toBe(1);
  expect(r.stderr).toMatch(new RegExp(`^posenc sinusoidal: cannot write ${out.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: EFBIG: file too large`));
  expect(readdirSync(dir)).toEqual([]);
});

test('an earlier file at the path is left as it was', () => {
  const out = join(dir, 'pe.npy');
  writeFileSync(out, 'the earlier file');
  expect(posenc([...BIG, '--out', out], { kib: 1024 }).status).toBe(1);
  expect(readFileSync(out, 'utf8')).toBe('the earlier file');
  expect(readdirSync(dir)).toEqual(['pe.npy']);
});

test('a write that succeeds replaces the file whole, keeps its mode, and leaves nothing beside it', () => {
  const out = join(dir, 'pe.npy');
  writeFileSync(out, 'the earlier file');
  chmodSync(out, 0o640);
  const r = posenc(['sinusoidal', '--length', '3', '--d-model', '4', '--out', out]);
  expect(r).toEqual({ status: 0, stdout: '', stderr: '' });
  const npy = readNpy(new Uint8Array(readFileSync(out)));
  expect(npy.shape).toEqual([3, 4]);
  expect(npy.trailing).toBe(0);
  expect(statSync(out).mode & 0o777).toBe(0o640);
  expect(readdirSync(dir)).toEqual(['pe.npy']);
});

test('a symlink at the path: the file it points to is replaced, the link stays', () => {
  mkdirSync(join(dir, 'real'));
  writeFileSync(join(dir, 'real', 'pe.npy'), 'old');
  symlinkSync(join(dir, 'real', 'pe.npy'), join(dir, 'link.npy'));
  expect(posenc(['sinusoidal', '--length', '2', '--d-model', '2', '--out', join(dir, 'link.npy')]).status).toBe(0);
  expect(readNpy(new Uint8Array(readFileSync(join(dir, 'real', 'pe.npy')))).shape).toEqual([2, 2]);
  expect(readdirSync(join(dir, 'real'))).toEqual(['pe.npy']);
  expect(readdirSync(dir).sort()).toEqual(['link.npy', 'real']);
});

test('a folder as --out is one line naming it, and nothing is written', () => {
  mkdirSync(join(dir, 'folder.npy'));
  const r = posenc(['sinusoidal', '--length', '2', '--d-model', '2', '--out', join(dir, 'folder.npy')]);
  expect(r.status).toBe(1);
  expect(r.stderr).toBe(`posenc sinusoidal: cannot write ${join(dir, 'folder.npy')}: EISDIR: illegal operation on a directory, open '${join(dir, 'folder.npy')}'\n`);
  expect(readdirSync(join(dir, 'folder.npy'))).toEqual([]);
});

test('a folder that does not exist: the message names the path asked for, not a temporary one', () => {
  const out = join(dir, 'missing', 'pe.npy');
  const r = posenc(['sinusoidal', '--length', '2', '--d-model', '2', '--out', out]);
  expect(r.status).toBe(1);
  expect(r.stderr).toBe(`posenc sinusoidal: cannot write ${out}: ENOENT: no such file or directory, open '${out}'\n`);
});

test('devices are written in place: /dev/null stays a device, /dev/full fails with ENOSPC, /dev/stdout reaches stdout', () => {
  expect(posenc(['sinusoidal', '--length', '1', '--d-model', '2', '--out', '/dev/null'])).toEqual({ status: 0, stdout: '', stderr: '' });
  expect(statSync('/dev/null').isCharacterDevice()).toBe(true);
  expect(posenc(['sinusoidal', '--length', '1', '--d-model', '2', '--out', '/dev/full']).stderr).toMatch(/^posenc sinusoidal: cannot write \/dev\/full: ENOSPC/);
  // stdout redirected to a file, as a shell does
  const r = spawnSync('bash', ['-c', 'exec "$0" "$@" > stdout.csv', process.execPath, CLI, 'sinusoidal', '--length', '1', '--d-model', '2', '--out', '/dev/stdout', '--format', 'csv'], { cwd: dir, encoding: 'utf8' });
  expect(r.status).toBe(0);
  expect(readFileSync(join(dir, 'stdout.csv'), 'utf8')).toBe('0,1\n');
  expect(readdirSync(dir)).toEqual(['stdout.csv']);
});
