// C consumers: `make install PREFIX=<temp>` installs the header, the static
// library and posenc.pc; a small C program (and the same as C++) builds
// against that copy with `pkg-config --cflags --libs posenc` and runs.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PACKAGE, ROOT, mustRun, run } from './scratch.js';

let prefix;
let pkgEnv;

beforeAll(() => {
  prefix = mkdtempSync(join(tmpdir(), 'posenc-prefix-'));
  mustRun('make', ['-s', 'install', `PREFIX=${prefix}`], { cwd: ROOT });
  pkgEnv = { PKG_CONFIG_PATH: join(prefix, 'lib', 'pkgconfig') };
});
afterAll(() => rmSync(prefix, { recursive: true, force: true }));

const pkgConfig = (...args) => mustRun('pkg-config', args, { env: pkgEnv }).stdout.trim();

// Prints the notebook's table row 1 and a failing call's status text.
const PROGRAM = `#include <posenc.h>
#include <stdio.h>

int main(void) {
    float pe[10 * 6];
    int status = posenc_sinusoidal(pe, 10 * 6, 10, 6, 0, 0, POSENC_LAYOUT_INTERLEAVED);
    if (status != POSENC_OK) {
        fprintf(stderr, "%s\\n", posenc_strerror(status));
        return 1;
    }
    for (int k = 0; k < 6; k++) printf("%.4f%c", pe[6 + k], k == 5 ? '\\n' : ' ');
    printf("%s\\n", posenc_strerror(posenc_sinusoidal(pe, 1, 10, 6, 0, 0, POSENC_LAYOUT_INTERLEAVED)));
    printf("%d.%d.%d\\n", POSENC_VERSION_MAJOR, POSENC_VERSION_MINOR, POSENC_VERSION_PATCH);
    return 0;
}
`;

test('make install puts the headers, the static library and posenc.pc under PREFIX', () => {
  for (const file of ['include/posenc.h', 'include/posenc_encoder.h', 'lib/libposenc.a', 'lib/pkgconfig/posenc.pc']) {
    expect(() => readFileSync(join(prefix, file))).not.toThrow();
  }
  for (const header of ['include/posenc.h', 'include/posenc_encoder.h']) {
    expect(readFileSync(join(prefix, header), 'utf8')).toBe(readFileSync(join(ROOT, header), 'utf8'));
  }
});

test('pkg-config knows posenc: its version is the package version, its flags point into PREFIX', () => {
  expect(pkgConfig('--modversion', 'posenc')).toBe(PACKAGE.version);
  expect(pkgConfig('--cflags', 'posenc')).toBe(`-I${prefix}/include`);
  expect(pkgConfig('--libs', 'posenc')).toBe(`-L${prefix}/lib -lposenc -lm`);
});

test('the header states the same version as package.json and the changelog', () => {
  const header = readFileSync(join(ROOT, 'include/posenc.h'), 'utf8');
  const part = (name) => header.match(new RegExp(`#define POSENC_VERSION_${name} (\\d+)`))[1];
  expect(`${part('MAJOR')}.${part('MINOR')}.${part('PATCH')}`).toBe(PACKAGE.version);
  expect(readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8')).toContain(`## [${PACKAGE.version}]`);
});

test.each([
  ['C', 'cc', 'app.c', ['-std=c11', '-Wall', '-Wextra', '-Werror', '-pedantic']],
  ['C++', 'c++', 'app.cpp', ['-std=c++17', '-Wall', '-Wextra', '-Werror']],
])('a %s program builds against the installed copy with pkg-config and runs', (_, compiler, source, flags) => {
  if (run('sh', ['-c', `command -v ${compiler}`]).status !== 0) {
    expect(compiler).toBe('c++'); // cc is required; a missing C++ compiler only skips its half
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'posenc-c-'));
  try {
    writeFileSync(join(dir, source), PROGRAM);
    const pc = [...pkgConfig('--cflags', 'posenc').split(' '), ...pkgConfig('--libs', 'posenc').split(' ')];
    mustRun(compiler, [...flags, source, ...pc, '-o', 'app'], { cwd: dir, env: pkgEnv });
    const out = mustRun(join(dir, 'app'), [], { cwd: dir }).stdout.trim().split('\n');
    expect(out[0]).toBe([Math.sin(1), Math.cos(1), Math.sin(1 / 10000 ** (2 / 6)), Math.cos(1 / 10000 ** (2 / 6)),
      Math.sin(1 / 10000 ** (4 / 6)), Math.cos(1 / 10000 ** (4 / 6))].map((v) => v.toFixed(4)).join(' '));
    expect(out[1]).toMatch(/small|buffer/i); // POSENC_ERR_BUFFER_TOO_SMALL's text
    expect(out[2]).toBe(PACKAGE.version);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
