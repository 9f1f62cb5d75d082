// prepack.mjs: run by npm before it packs (package.json's "prepack": npm pack,
// npm publish, and installing posenc from git). The package's built files are
// in dist/, which `make wasm js` writes and git does not hold: a fresh clone
// would otherwise pack a tarball without them, silently. Refuses (exit 1, one
// line naming what to run) when a built file the package ships is missing,
// or older than a source it is built from.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const files = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).files;
const mtime = (path) => statSync(join(ROOT, path), { throwIfNoEntry: false })?.mtimeMs;
const under = (dir, test) =>
  readdirSync(join(ROOT, dir), { recursive: true }).map((f) => join(dir, String(f))).filter((f) => test(f) && statSync(join(ROOT, f)).isFile());
const newest = (paths) => paths.reduce((best, p) => ((mtime(p) ?? 0) > (mtime(best) ?? 0) ? p : best));

// The wasm builds come from the C sources (posenc.wasm and its baseline from
// those outside the encoder's); the JS and types from src/js (with the wasm inline).
const C_SOURCES = [...under('src', (f) => /\.[ch]$/.test(f)), ...under('include', (f) => f.endsWith('.h'))];
const ENCODER_ONLY = (f) => f.startsWith(join('src', 'encoder')) || f === join('include', 'posenc_encoder.h');
const sourcesOf = (file) =>
  /^dist\/posenc(-baseline)?\.wasm$/.test(file) ? C_SOURCES.filter((f) => !ENCODER_ONLY(f))
  : file.endsWith('.wasm') ? C_SOURCES
  : [...JS_SOURCES, ...C_SOURCES];
const JS_SOURCES = [...under('src/js', (f) => /\.(js|d\.ts)$/.test(f)), 'tools/bundle.mjs'];

const refuse = (why) => {
  process.stderr.write(`posenc prepack: ${why}: run 'make wasm js' first (the package ships dist/, which git does not hold)\n`);
  process.exit(1);
};

const shipped = files.filter((f) => f.startsWith('dist/') && !f.includes('*'));
const missing = shipped.filter((f) => mtime(f) === undefined);
if (missing.length) refuse(`${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} missing`);
for (const entry of ['posenc', 'encoder']) {
  if (!readdirSync(join(ROOT, 'dist')).some((f) => f.startsWith(`${entry}-chunk-`) && f.endsWith('.mjs'))) refuse(`dist/${entry}-chunk-*.mjs is missing`);
}
for (const file of shipped) {
  const source = newest(sourcesOf(file));
  if (mtime(source) > mtime(file)) refuse(`${file} is older than ${source}`);
}
