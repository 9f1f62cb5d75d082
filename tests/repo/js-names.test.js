// Every name the JS sources use is defined or imported. The bundler takes an
// undefined name for a global and fails only when the line runs, so a name
// lost in a move between files would reach users as a ReferenceError. tsc
// (the repository's, a devDependency) reads the sources as checked JS; only
// its errors about names and modules count here, not its type inference.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// cannot find name; a type used as a value; no such export; no such module; a duplicate
const NAME_ERRORS = /error (TS2304|TS2693|TS2552|TS2305|TS2614|TS2724|TS2307|TS2459|TS2300|TS2451):/;

test('src/js, src/cli and web use no undefined name and no missing export', () => {
  const dir = join(ROOT, 'build', 'js-names');
  mkdirSync(dir, { recursive: true });
  const config = join(dir, 'tsconfig.json');
  writeFileSync(config, JSON.stringify({
    compilerOptions: {
      allowJs: true, checkJs: true, noEmit: true, target: 'es2022', module: 'esnext', moduleResolution: 'bundler',
      lib: ['esnext', 'dom', 'webworker'], types: [], skipLibCheck: true,
    },
    include: ['../../src/js/**/*.js', '../../src/cli/*.js', '../../web/**/*.js'],
    exclude: ['../../web/models/**'],
  }));
  let output = '';
  try {
    output = execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', config, '--pretty', 'false'], { encoding: 'utf8', maxBuffer: 64 << 20 });
  } catch (error) {
    output = error.stdout; // type errors make tsc exit non-zero: read its report
  }
  const problems = output.split('\n').filter((line) => NAME_ERRORS.test(line))
    // the entry name the bundler defines (tools/bundle.mjs), read only where typeof checks it
    .filter((line) => !/core\/instance\.js.*'POSENC_ENTRY'/.test(line))
    // Node's Buffer in the CLI (no @types/node here)
    .filter((line) => !/^src\/cli\/.*Cannot find name 'Buffer'/.test(line))
    // the page's URLs that the demo server maps onto the package's built files
    .filter((line) => !/^web\/.*TS2307: Cannot find module '(\.\.?\/)+(dist\/(posenc|encoder)\.mjs|src\/cli\/torch\.js)'/.test(line));
  expect(problems).toEqual([]);
}, 120000);
