// package.json hygiene and the packed tarball: what `npm install posenc`
// gives a user, checked on the tarball `npm pack` writes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE, ROOT, packed } from './scratch.js';
import { links } from '../docs/markdown.js';

const pkg = PACKAGE;

describe('package.json', () => {
  test('is an ES module package with no side effects, MIT, versioned, for Node >= 18', () => {
    expect(pkg.name).toBe('posenc');
    expect(pkg.type).toBe('module');
    expect(pkg.sideEffects).toBe(false);
    expect(pkg.license).toBe('MIT');
    expect(pkg.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(readFileSync(join(ROOT, 'LICENSE'), 'utf8')).toMatch(/MIT License/);
    expect(readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8')).toContain(`## [${pkg.version}]`);
  });

  test('has no runtime dependencies and no install scripts; packing checks the build first', () => {
    for (const key of ['dependencies', 'peerDependencies', 'optionalDependencies', 'bundleDependencies', 'bundledDependencies']) {
      expect(pkg[key] ?? {}).toEqual({});
    }
    for (const script of ['preinstall', 'install', 'postinstall', 'prepare', 'postpack', 'prepublish']) {
      expect(pkg.scripts?.[script]).toBeUndefined();
    }
    // run by npm pack and publish only: refuses a missing or stale dist/ (tests/package/prepack.test.js)
    expect(pkg.scripts.prepack).toBe('node tools/prepack.mjs');
    expect(pkg.gypfile).toBeUndefined();
  });

  test("every exports condition lists 'types' first, then resolves to a shipped file", () => {
    const conditions = pkg.exports['.'];
    expect(Object.keys(conditions)).toEqual(['import', 'require', 'default']);
    for (const [name, target] of Object.entries(conditions)) {
      expect([name, Object.keys(target)]).toEqual([name, ['types', 'default']]);
    }
    expect(conditions.import.default).toBe('./dist/posenc.mjs');
    expect(conditions.require).toEqual({ types: './dist/posenc.d.cts', default: './dist/posenc.cjs' });
    // both standalone wasm builds, as docs/install.md offers them
    expect([pkg.exports['./posenc.wasm'], pkg.exports['./posenc-baseline.wasm']]).toEqual(['./dist/posenc.wasm', './dist/posenc-baseline.wasm']);
    // the legacy fields agree with the map (for tools that predate exports)
    expect([pkg.main, pkg.module, pkg.types]).toEqual(['./dist/posenc.cjs', './dist/posenc.mjs', './dist/posenc.d.ts']);
  });

  test('has a CLI (bin) whose file is in the files whitelist and starts with a node shebang', () => {
    expect(pkg.bin).toEqual({ posenc: 'bin/posenc.js' });
    expect(pkg.files).toContain('bin/posenc.js');
    expect(pkg.files).toContain('dist/cli.mjs');
    expect(readFileSync(join(ROOT, 'bin/posenc.js'), 'utf8')).toMatch(/^#!\/usr\/bin\/env node\n/);
  });
});

describe('the tarball (npm pack)', () => {
  test('holds the entry points, types, CLI, wasm, C header and sources, docs: nothing else', () => {
    const { files } = packed();
    const needed = [
      'package.json', 'README.md', 'LICENSE', 'CHANGELOG.md',
      'dist/posenc.mjs', 'dist/posenc.cjs', 'dist/posenc.d.ts', 'dist/posenc.d.cts', 'dist/posenc.wasm',
      'dist/encoder.mjs', 'dist/encoder.cjs', 'dist/encoder.d.ts', 'dist/encoder.d.cts', 'dist/posenc-encoder.wasm',
      'bin/posenc.js', 'dist/cli.mjs', 'src/cli/torch.js',
      'include/posenc.h', 'include/posenc_encoder.h', 'src/encoder/encoder.c',
    ];
    for (const file of needed) expect(files).toContain(file);
    // the C sources ship for C users who vendor from npm; nothing else may come along
    // and what the docs link to: their picture, the examples, the training notes
    const allowed = /^(package\.json|README\.md|LICENSE|CHANGELOG\.md|docs\/[\w-]+\.md|docs\/train-view\.png|examples\/[\w-]+\.mjs|examples\/worker\/[\w-]+\.(js|html)|tools\/train\/README\.md|tools\/reference\/transformers\/README\.md|dist\/(?:posenc|encoder)[\w-]*\.(mjs|cjs|d\.ts|d\.cts|wasm)|dist\/cli\.mjs|src\/cli\/torch\.js|bin\/posenc\.js|include\/posenc(?:_encoder)?\.h|src\/(?:encoder\/)?\w+\.[ch])$/;
    expect(files.filter((f) => !allowed.test(f))).toEqual([]);
  });

  test("every relative link of the shipped pages resolves inside the tarball (node_modules/posenc reads whole)", () => {
    const { files } = packed();
    const pages = files.filter((f) => /\.md$/.test(f));
    expect(pages.length).toBeGreaterThan(5);
    const missing = [];
    for (const page of pages) {
      for (const { target } of links(readFileSync(join(ROOT, page), 'utf8'))) {
        if (/^[a-z]+:/.test(target) || target.startsWith('#')) continue; // https:, mailto:, this page
        const path = decodeURIComponent(new URL(target.split('#')[0], `file:///${page}`).pathname.slice(1));
        const found = path.endsWith('/') ? files.some((f) => f.startsWith(path)) : files.includes(path);
        if (!found) missing.push(`${page} -> ${target}`);
      }
    }
    expect(missing).toEqual([]);
  });

  test('every file the package.json points at is in the tarball', () => {
    const { files } = packed();
    const targets = [pkg.main, pkg.module, pkg.types, ...Object.values(pkg.bin)];
    for (const entry of Object.values(pkg.exports)) {
      if (typeof entry === 'string') targets.push(entry);
      else for (const c of Object.values(entry)) targets.push(...Object.values(c));
    }
    for (const t of targets) expect(files).toContain(t.replace(/^\.\//, ''));
  });

  test('is small', () => {
    const { bytes } = packed();
    console.log(`posenc tarball: ${bytes} bytes (${packed().files.length} files)`);
    // two entries, each with its wasm as files and inline in ESM and CommonJS (a page fetches one entry:
    // tests/builds/size.test.js), and the README's picture of the train view (95 KB, docs/train-view.png).
    // 0.3.0: 865 KB, most of it the two wasm builds of each entry three times (files, ESM, CommonJS)
    expect(bytes).toBeLessThan(900 * 1024);
  });
});
