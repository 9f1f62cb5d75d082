// Browser consumers, in headless Chromium: posenc from the installed tarball
// loaded by <script type="module"> as it is, bundled with esbuild, Vite and
// webpack (zero configuration: no plugin, no wasm setting), each on a page and
// inside a Web Worker, every response served with the strict
// `Content-Security-Policy: script-src 'self' 'wasm-unsafe-eval'`. Every app
// uses both entries: 'posenc', and 'posenc/encoder' with its own wasm and init().
import { spawn } from 'node:child_process';
import { cpSync, existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, relative } from 'node:path';
import {
  BIN, NOTEBOOK, ROOT, STRICT_CSP, cleanEnv, launchChromium, maxDiff, openAndRead, runAsync, scratchProject, serve, workspace,
  writeFiles,
} from './scratch.js';

const ULP1 = 2 ** -23;
let dir; // the workspace inside the scratch project
let server;
let browser;
let base; // URL of the workspace

// What every page computes: the notebook table and values with known formulas.
const APP = `import { init, isReady, sinusoidal, alibiSlopes, relativePositions, ropeCache } from 'posenc';
import * as encoderEntry from 'posenc/encoder';

export async function compute(wasm) {
  await init(wasm === undefined ? {} : { wasm });
  await encoderEntry.init();
  const enc = encoderEntry.createEncoder({ vocabSize: 8, dModel: 8, heads: 2, dFF: 8, layers: 1, lmHead: true, positional: { type: 'rope' }, weights: { seed: 1 } });
  const logits = enc.logits([1, 2, 3], { causal: true });
  return {
    encoder: { logits: logits.length, finite: logits.every(Number.isFinite), pe: Array.from(encoderEntry.sinusoidal({ length: 10, dModel: 6 })) },
    ready: isReady(),
    inWorker: typeof document === 'undefined' && typeof WorkerGlobalScope !== 'undefined',
    pe: Array.from(sinusoidal({ length: 10, dModel: 6 })),
    slopes: Array.from(alibiSlopes(8)),
    rel: Array.from(relativePositions({ queryLength: 2, keyLength: 3 })),
    cos: Array.from(ropeCache({ rotaryDim: 4, length: 3, offset: 1000 }).cos),
  };
}
`;

// The page reports through <html data-done> and globals: no inline script (the CSP forbids it).
const REPORT = `export const report = (result) => {
  globalThis.posencResult = result;
  document.documentElement.dataset.done = 'ok';
};
export const fail = (error) => {
  globalThis.posencError = String((error && error.stack) || (error && error.message) || error);
  document.documentElement.dataset.done = 'error';
};
`;

const MAIN = `import { compute } from './app.js';
import { report, fail } from './report.js';
compute().then(report, fail);
`;

const WORKER_MAIN = `import { report, fail } from './report.js';
const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
worker.onmessage = (event) => (event.data.ok ? report(event.data.result) : fail(event.data.error));
worker.onerror = (event) => fail(event.message || 'the worker failed to start');
`;

const WORKER = `import { compute } from './app.js';
compute().then(
  (result) => postMessage({ ok: true, result }),
  (error) => postMessage({ ok: false, error: String((error && error.stack) || error) }),
);
`;

const html = (script, type = 'module') => `<!doctype html>
<html><head><meta charset="utf-8"><title>posenc consumer</title><link rel="icon" href="data:,">
<script ${type === 'module' ? 'type="module" ' : 'defer '}src="${script}"></script></head><body></body></html>
`;

const SOURCES = { 'app.js': APP, 'report.js': REPORT, 'main.js': MAIN, 'worker-main.js': WORKER_MAIN, 'worker.js': WORKER };

function checkResult(r, { inWorker = false } = {}) {
  expect(r.problems).toEqual([]);
  expect(r.error).toBeNull();
  expect(r.done).toBe('ok');
  const v = r.result;
  expect(v.ready).toBe(true);
  expect(v.inWorker).toBe(inWorker);
  expect(maxDiff(v.pe, NOTEBOOK.PE)).toBeLessThanOrEqual(0.5e-4);
  expect(v.pe.map((x) => x.toFixed(4))).toEqual(NOTEBOOK.PE.map((x) => x.toFixed(4)));
  expect(v.slopes).toEqual(Array.from({ length: 8 }, (_, h) => 2 ** -(h + 1)));
  expect(v.rel).toEqual([0, 1, 2, -1, 0, 1]);
  // RoPE cos cache [3][2] at positions 1000..1002, f_k = 10000^(-2k/4)
  const cos = Array.from({ length: 6 }, (_, i) => Math.cos((1000 + Math.floor(i / 2)) * 10000 ** (-(2 * (i % 2)) / 4)));
  expect(maxDiff(v.cos, cos)).toBeLessThanOrEqual(ULP1);
  // posenc/encoder: its own wasm, the same table bit for bit
  expect(v.encoder).toEqual({ logits: 24, finite: true, pe: v.pe });
}

const url = (path) => `${base}/${path}`;

/** A TCP port free right now on 127.0.0.1. */
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}

beforeAll(async () => {
  dir = workspace('browser');
  const root = scratchProject();
  const posencPath = relative(join(dir, 'raw'), join(root, 'node_modules', 'posenc', 'dist', 'posenc.mjs'));
  const encoderPath = posencPath.replace(/posenc\.mjs$/, 'encoder.mjs');

  // 1. as shipped: the page imports dist/posenc.mjs by path (no bundler, no import map)
  writeFiles(join(dir, 'raw'), {
    ...SOURCES,
    'app.js': APP.replace("from 'posenc'", `from '${posencPath}'`).replace("from 'posenc/encoder'", `from '${encoderPath}'`),
    // init({ wasm: URL }) of the shipped posenc.wasm: instantiateStreaming on application/wasm
    'main-url.js': MAIN.replace('compute()', `compute(new URL('${posencPath.replace('posenc.mjs', 'posenc.wasm')}', import.meta.url))`),
    'index.html': html('./main.js'),
    'url.html': html('./main-url.js'),
    'worker.html': html('./worker-main.js'),
  });

  // 2-4. bundled: the same sources, 'posenc' resolved from the scratch project's node_modules
  for (const bundler of ['esbuild', 'vite', 'webpack']) {
    writeFiles(join(dir, bundler), { ...SOURCES, 'index.html': html('./main.js'), 'worker.html': html('./worker-main.js') });
  }
  writeFiles(join(dir, 'vite'), {
    // two pages; nothing about wasm or posenc: Vite's defaults
    'vite.config.mjs': `import { fileURLToPath } from 'node:url';
export default {
  base: './',
  logLevel: 'warn',
  build: { outDir: 'out', rollupOptions: { input: { index: fileURLToPath(new URL('index.html', import.meta.url)), worker: fileURLToPath(new URL('worker.html', import.meta.url)) } } },
};
`,
  });
  writeFiles(join(dir, 'webpack'), {
    'webpack.config.cjs': `module.exports = {
  mode: 'production',
  context: __dirname,
  entry: { main: './main.js', 'worker-main': './worker-main.js' },
  output: { path: __dirname + '/out', clean: true },
  devtool: false,
};
`,
    // every warning fails the build but webpack's size recommendations (244 KiB): this app
    // bundles both entries, each with its wasm inline, and passes them (docs/install.md says so)
    'build.cjs': `const webpack = require(process.env.WEBPACK);
const SIZE_HINTS = ['AssetsOverSizeLimitWarning', 'EntrypointsOverSizeLimitWarning', 'RuntimeInLargeChunkWarning'];
webpack(require('./webpack.config.cjs'), (error, stats) => {
  const warnings = stats ? stats.compilation.warnings.filter((w) => !SIZE_HINTS.includes(w.name)) : [];
  if (error || stats.hasErrors() || warnings.length) {
    console.error(error || stats.toString({ all: false, errors: true, warnings: true }));
    process.exit(1);
  }
});
`,
  });

  // 5. the Web Worker example of docs/install.md, as it is (examples/worker/), built with no Vite config at all
  cpSync(join(ROOT, 'examples', 'worker'), join(dir, 'worker-example'), { recursive: true });

  const builds = await Promise.all([
    runAsync(join(BIN, 'esbuild'), ['main.js', 'worker-main.js', 'worker.js', '--bundle', '--format=esm', '--platform=browser', '--outdir=out', '--log-level=warning'], { cwd: join(dir, 'esbuild') }),
    runAsync(process.execPath, [join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build'], { cwd: join(dir, 'vite') }),
    runAsync(process.execPath, ['build.cjs'], { cwd: join(dir, 'webpack'), env: { WEBPACK: join(ROOT, 'node_modules', 'webpack') } }),
    runAsync(process.execPath, [join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build'], { cwd: join(dir, 'worker-example') }),
  ]);
  for (const [name, b] of [['esbuild', builds[0]], ['vite', builds[1]], ['webpack', builds[2]], ['vite (examples/worker/)', builds[3]]]) {
    if (b.status !== 0) throw new Error(`${name} build failed (${b.status}):\n${b.stdout}\n${b.stderr}`);
  }
  for (const bundler of ['esbuild', 'webpack']) {
    // the built pages: module scripts for esbuild's ESM output, classic for webpack's
    const type = bundler === 'esbuild' ? 'module' : 'classic';
    writeFiles(join(dir, bundler, 'out'), { 'index.html': html('./main.js', type), 'worker.html': html('./worker-main.js', type) });
  }

  // ?lax-csp: the negative control, a policy without 'wasm-unsafe-eval'
  server = await serve(root, { csp: (u) => (u.searchParams.has('lax-csp') ? "script-src 'self'" : STRICT_CSP) });
  base = `${server.url}/${relative(root, dir)}`;
  browser = await launchChromium();
}, 120000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe("<script type=\"module\"> with the package's dist/posenc.mjs, no bundler", () => {
  test('a page computes the notebook table (wasm inline, strict CSP)', async () => {
    checkResult(await openAndRead(browser, url('raw/index.html')));
  });
  test('a module Web Worker computes it too', async () => {
    checkResult(await openAndRead(browser, url('raw/worker.html')), { inWorker: true });
  });
  test("init({ wasm: new URL('.../posenc.wasm', import.meta.url) }) streams the shipped .wasm", async () => {
    checkResult(await openAndRead(browser, url('raw/url.html')));
  });
  test("the CSP is enforced: without 'wasm-unsafe-eval' init() fails (the negative control)", async () => {
    const r = await openAndRead(browser, url('raw/index.html?lax-csp'));
    expect(r.done).toBe('error');
    expect(r.error).toMatch(/WebAssembly|wasm|Content Security Policy|unsafe-eval/i);
  });
});

// The dev server pre-bundles dependencies with its optimizer, the step where
// wasm packages most often lose their .wasm: posenc's is inline, so nothing is lost.
describe('the Vite dev server (dependency optimizer)', () => {
  let vite;
  let origin;

  beforeAll(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    vite = spawn(process.execPath, [join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), '--host', '127.0.0.1', '--port', String(port), '--strictPort', '--force'], {
      cwd: join(dir, 'vite'), env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    vite.stdout.on('data', (c) => (output += c));
    vite.stderr.on('data', (c) => (output += c));
    // until it answers or exits; a server that never starts meets this hook's Jest timeout
    for (;;) {
      const ok = await fetch(`${origin}/index.html`).then((r) => r.ok, () => false);
      if (ok) break;
      if (vite.exitCode !== null) throw new Error(`vite dev did not start:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }, 120000);

  afterAll(async () => {
    if (vite && vite.exitCode === null) {
      const exited = new Promise((resolve) => vite.on('exit', resolve));
      vite.kill('SIGTERM');
      await exited;
    }
  });

  test('the page computes the notebook table', async () => {
    checkResult(await openAndRead(browser, `${origin}/index.html`, { timeout: 40000 }));
  });
  test('a Web Worker computes it too', async () => {
    checkResult(await openAndRead(browser, `${origin}/worker.html`, { timeout: 40000 }), { inWorker: true });
  });
  test('the optimizer did pre-bundle posenc (--force: a fresh run, no cache)', () => {
    expect(existsSync(join(scratchProject(), 'node_modules', '.vite', 'deps', 'posenc.js'))).toBe(true);
  });
});

describe.each(['esbuild', 'vite', 'webpack'])('bundled with %s (default settings)', (bundler) => {
  test('the page computes the notebook table under the strict CSP', async () => {
    checkResult(await openAndRead(browser, url(`${bundler}/out/index.html`)));
  });
  test('a Web Worker bundled alongside computes it too', async () => {
    checkResult(await openAndRead(browser, url(`${bundler}/out/worker.html`)), { inWorker: true });
  });
});

// docs/install.md's Web Worker example, the files of examples/worker/ as they
// are, built by `vite build` with no config (Vite's default worker format,
// iife, is where a worker's top-level await fails) and served as a site root.
describe('the Web Worker example of docs/install.md (examples/worker/), vite build with its default config', () => {
  test('the worker computes the table and the page logs it, under the strict CSP', async () => {
    const site = await serve(join(dir, 'worker-example', 'dist'));
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const problems = [];
      const logged = new Promise((resolve) => page.on('console', (m) => {
        if (m.type() === 'error') problems.push(m.text());
        if (m.type() === 'log') resolve(m.text());
      }));
      page.on('pageerror', (e) => problems.push(e.message));
      await page.goto(`${site.url}/index.html`);
      const text = await Promise.race([logged, new Promise((resolve) => setTimeout(() => resolve('(nothing logged in 20 s)'), 20000))]);
      expect(text).toBe(`sinusoidal table: ${2048 * 512} values`);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
      await site.close();
    }
  }, 30000);
});
