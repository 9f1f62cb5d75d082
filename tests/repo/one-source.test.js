// Each default and range is stated once: in a row of the header's parameter
// tables (include/posenc.h, include/posenc_encoder.h), or in the option spec
// of a value C does not check. The JS specs, the TypeScript declarations and
// the command line's help are all written from it.
//
// The first test changes a default in a copy of the header, regenerates the
// ABI mirror from it (tools/abi.mjs), and loads the JS specs, the declaration
// text and the CLI's help against that mirror (a module hook swaps
// build/abi.js): each follows the header. The others look for hand copies.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { COMMANDS, optionOf } from '../../src/cli/commands.js';
import { SPECS } from '../../src/js/specs.js';
import { defaultOf, optionText } from '../../src/js/core/option-text.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const read = (path) => readFileSync(join(ROOT, path), 'utf8');

test("a default changed in the header's table changes the JS spec, the declarations and the CLI help", () => {
  const dir = join(ROOT, 'build', 'one-source');
  mkdirSync(dir, { recursive: true });
  const header = read('include/posenc.h');
  const row = /P\(BASE,\s+"base",\s+ABOVE,\s+1, POSENC_REAL_MAX,\s+10000\)/;
  expect(header).toMatch(row); // the row this test edits
  writeFileSync(join(dir, 'posenc.h'), header.replace(row, (m) => m.replace('10000', '12345')));
  writeFileSync(join(dir, 'posenc_encoder.h'), read('include/posenc_encoder.h'));
  execFileSync(process.execPath, [join(ROOT, 'tools/abi.mjs'), dir, join(dir, 'posenc.h'), join(dir, 'posenc_encoder.h')]);

  // every import of build/abi.js resolves to the regenerated mirror
  const abi = pathToFileURL(join(ROOT, 'build/abi.js')).href;
  const swapped = pathToFileURL(join(dir, 'abi.js')).href;
  writeFileSync(join(dir, 'hooks.mjs'), `export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  return r.url === ${JSON.stringify(abi)} ? { ...r, url: ${JSON.stringify(swapped)} } : r;
}\n`);
  writeFileSync(join(dir, 'register.mjs'), `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)});\n`);
  const probe = `
    const { SPECS } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'src/js/specs.js')).href)});
    const { defaultOf, rowText } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'src/js/core/option-text.js')).href)});
    const { main } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'src/cli/main.js')).href)});
    let help = '';
    await main(['rope-cache', '--help'], { stdout: { write: (s) => { help += s; return true; } }, stderr: process.stderr });
    process.stdout.write(JSON.stringify({ spec: defaultOf(SPECS.ropeCache.base), declared: rowText('BASE'), help }));`;
  const out = JSON.parse(execFileSync(process.execPath, ['--import', pathToFileURL(join(dir, 'register.mjs')).href, '--input-type=module', '-e', probe], { encoding: 'utf8' }));
  expect(out.spec).toBe(12345);
  expect(out.declared).toMatch(/default 12345$/);
  expect(out.help).toMatch(/--base\s+rope_theta \(a finite number > 1; default 12345\)/);
});

describe('the command line states no default or range by hand', () => {
  const flags = Object.entries(COMMANDS).flatMap(([name, c]) => Object.entries(c.flags).map(([f, flag]) => [`${name} --${f}`, c, f, flag]));

  test.each(flags)('%s', (_name, command, f, flag) => {
    // --key-length's default is another flag's value, which no spec states
    if (f !== 'key-length') expect(flag.help).not.toMatch(/\bdefault\b|\(required\)/);
    const checker = SPECS[command.calls]?.[optionOf(f, flag)];
    if (checker && defaultOf(checker) !== undefined && typeof defaultOf(checker) !== 'object') expect(optionText(checker)).toMatch(/default /);
  });
});

test('the declarations write each table row as a {{ID}} marker, never its words by hand', () => {
  for (const file of ['src/js/posenc.d.ts', 'src/js/encoder.d.ts']) {
    const text = read(file);
    const built = read(`dist/${file.slice('src/js/'.length)}`);
    expect(text).toMatch(/\{\{[A-Z_0-9]+\}\}/);
    expect(built).not.toMatch(/\{\{/);
    // a row's words written out by hand: "a finite number > 1; default 10000"
    expect(text).not.toMatch(/a finite number > 1; default 10000/);
  }
});

test("no option spec restates a default its parameter-table row already gives", () => {
  expect(Object.keys(SPECS).length).toBeGreaterThan(10);
  for (const [fn, spec] of Object.entries(SPECS)) {
    for (const [option, checker] of Object.entries(spec)) {
      if (checker?.row && 'default' in checker && checker.row.zero !== 0) {
        throw new Error(`${fn}.${option}: the spec's default ${checker.default} beside its row's ${checker.row.zero}`);
      }
    }
  }
});
