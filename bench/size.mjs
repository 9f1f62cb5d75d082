// size.mjs: what a user downloads and waits for (`make bench` runs it; run
// alone with `node bench/size.mjs`, or `--sizes` for the sizes only).
// - Per entry, gzip -9 bytes of every file a browser fetches by default: the
//   entry module (the SIMD wasm travels inline in it) and the chunks it
//   imports statically, transitively. Chunks behind import() (the baseline
//   wasm, for engines without SIMD) are reported apart: they are fetched only
//   when needed.
// - Startup, import + init() to ready, in fresh Node processes and in fresh
//   Chromium contexts on the demo's origin (tools/serve.mjs), each against the
//   floor measured in the same run: instantiating the smallest wasm module,
//   which is what any wasm library pays before its own work starts.
import { existsSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { gzipSync } from 'node:zlib';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import os from 'node:os';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
// the public entries: package.json's export name -> the ESM file it resolves to
export const ENTRIES = { posenc: 'dist/posenc.mjs', 'posenc/encoder': 'dist/encoder.mjs' };

const gz = (bytes) => gzipSync(bytes, { level: 9 }).length;

// Relative module specifiers of a minified ESM file, static and dynamic apart.
// esbuild writes `import{...}from"./x.mjs"`, `import"./x.mjs"`, `export{...}from"./x.mjs"`, `import("./x.mjs")`;
// Vite quotes dynamic ones with backticks.
function imports(text) {
  const dynamic = [...text.matchAll(/\bimport\(\s*["'`](\.[^"'`]+)["'`]\s*\)/g)].map((m) => m[1]);
  const all = [...text.matchAll(/\b(?:from|import)\s*["'](\.[^"']+)["']/g)].map((m) => m[1]);
  return { static: all, dynamic };
}

/**
 * The files an entry fetches: { files: [{ file, bytes, gzip }], bytes, gzip,
 * lazy: [...] } with `lazy` the chunks reached only through import().
 * Paths are relative to `root` (the repository by default).
 */
export function entrySize(entry, root = ROOT) {
  const seen = new Map();
  const lazy = new Set();
  const visit = (file) => {
    if (seen.has(file)) return;
    const bytes = readFileSync(join(root, file));
    seen.set(file, { file, bytes: bytes.length, gzip: gz(bytes) });
    const found = imports(bytes.toString('utf8'));
    for (const s of found.static) visit(join(dirname(file), s));
    for (const s of found.dynamic) lazy.add(join(dirname(file), s));
  };
  visit(entry);
  const files = [...seen.values()];
  const lazyFiles = [...lazy].filter((f) => !seen.has(f)).map((file) => {
    const bytes = readFileSync(join(root, file));
    return { file, bytes: bytes.length, gzip: gz(bytes) };
  });
  return {
    files,
    bytes: files.reduce((s, f) => s + f.bytes, 0),
    gzip: files.reduce((s, f) => s + f.gzip, 0),
    lazy: lazyFiles,
  };
}

/** entrySize() of every public entry, by export name. */
export function entrySizes() {
  return Object.fromEntries(Object.entries(ENTRIES).map(([name, file]) => [name, entrySize(file)]));
}

/** gzip -9 bytes of a file of the repository (the standalone wasm builds). */
export const fileSize = (file) => {
  const bytes = readFileSync(join(ROOT, file));
  return { file, bytes: bytes.length, gzip: gz(bytes) };
};

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

// The smallest wasm module: the magic number and version, no sections.
const MINIMAL_WASM = '[0, 97, 115, 109, 1, 0, 0, 0]';

// Each script prints { ready } (ms from its first statement to ready), and
// where that went: { import, init }.
const NODE_SCRIPTS = {
  ready: (entry) => `const t0 = performance.now();
const m = await import(${JSON.stringify(pathToFileURL(join(ROOT, entry)).href)});
const t1 = performance.now();
await m.init();
const t2 = performance.now();
console.log(JSON.stringify({ ready: t2 - t0, import: t1 - t0, init: t2 - t1 }));`,
  floor: () => `const t0 = performance.now();
await WebAssembly.instantiate(new Uint8Array(${MINIMAL_WASM}));
console.log(JSON.stringify({ floor: performance.now() - t0 }));`,
};

const medians = (rows) => Object.fromEntries(Object.keys(rows[0]).map((k) => [k, median(rows.map((r) => r[k]))]));

/**
 * Import + init() in fresh Node processes, `runs` each, interleaved with the
 * floor so both see the same machine load. Returns medians in ms:
 * { ready, import, init, floor, runs }.
 */
export function nodeStartup({ runs = 15, entry = ENTRIES.posenc } = {}) {
  const rows = { ready: [], floor: [] };
  for (let i = 0; i < runs; i++) {
    for (const [kind, script] of Object.entries(NODE_SCRIPTS)) {
      const out = execFileSync(process.execPath, ['--input-type=module', '-e', script(entry)], { env: { ...process.env, NODE_OPTIONS: '' } });
      rows[kind].push(JSON.parse(out.toString()));
    }
  }
  return { ...medians(rows.ready), ...medians(rows.floor), runs };
}

/**
 * Import + init() in Chromium, each run in a fresh browser context (empty
 * HTTP cache) on a blank page of the demo's origin, interleaved with the
 * floor. Needs Debian's Chromium (tests/browser/chromium.js). Medians in ms.
 */
export async function chromiumStartup({ runs = 15, entry = ENTRIES.posenc } = {}) {
  const executable = process.env.CHROMIUM ?? '/usr/bin/chromium';
  if (!existsSync(executable)) throw new Error(`no Chromium at ${executable} (make test-tools installs it)`);
  const { launch } = await import('../tests/browser/chromium.js');
  const { browser, url, close } = await launch();
  const rows = { ready: [], floor: [] };
  try {
    for (let i = 0; i < runs; i++) {
      for (const kind of ['ready', 'floor']) {
        const context = await browser.newContext();
        const page = await context.newPage();
        // a blank page of the demo's origin: the demo page itself would import posenc first
        const blank = `${url}size-probe.html`;
        await page.route(blank, (route) => route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>size</title>' }));
        await page.goto(blank);
        const row = kind === 'ready'
          ? await page.evaluate(async (src) => {
            const t0 = performance.now();
            const m = await import(src);
            const t1 = performance.now();
            await m.init();
            const t2 = performance.now();
            return { ready: t2 - t0, import: t1 - t0, init: t2 - t1 };
          }, `${url}${entry}`)
          : await page.evaluate(async (bytes) => {
            const t0 = performance.now();
            await WebAssembly.instantiate(new Uint8Array(bytes));
            return { floor: performance.now() - t0 };
          }, JSON.parse(MINIMAL_WASM));
        rows[kind].push(row);
        await context.close();
      }
    }
  } finally {
    await close();
  }
  return { ...medians(rows.ready), ...medians(rows.floor), runs };
}

const kb = (n) => `${(n / 1024).toFixed(1)} KB`;

function printSizes() {
  for (const [name, s] of Object.entries(entrySizes())) {
    const parts = s.files.map((f) => `${f.file} ${f.gzip}`).join(' + ');
    console.log(`entry '${name}': ${s.gzip} bytes gzip -9 (${kb(s.gzip)}; ${s.bytes} raw): ${parts}`);
    for (const f of s.lazy) console.log(`  only when needed: ${f.file} ${f.gzip} bytes gzip -9 (${f.bytes} raw)`);
  }
  for (const file of ['dist/posenc.wasm', 'dist/posenc-baseline.wasm']) {
    const f = fileSize(file);
    console.log(`${file}: ${f.bytes} bytes, ${f.gzip} gzip -9`);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(`posenc size and startup: ${os.cpus()[0].model}, ${os.cpus().length} cores, Node ${process.version}, ${new Date().toISOString()}`);
  printSizes();
  if (!process.argv.includes('--sizes')) {
    const n = nodeStartup();
    console.log(`Node: import + init() ${n.ready.toFixed(2)} ms (import ${n.import.toFixed(2)}, init ${n.init.toFixed(2)}), floor (minimal wasm) ${n.floor.toFixed(2)} ms, medians of ${n.runs} fresh processes`);
    try {
      const c = await chromiumStartup();
      console.log(`Chromium: import + init() ${c.ready.toFixed(2)} ms (import ${c.import.toFixed(2)}, init ${c.init.toFixed(2)}), floor (minimal wasm) ${c.floor.toFixed(2)} ms, medians of ${c.runs} fresh contexts on the demo origin`);
    } catch (error) {
      console.log(`Chromium: not measured (${error.message.split('\n')[0]})`);
    }
  }
}
