// size.mjs: what a user downloads and waits for (`make bench` runs it; run
// alone with `node bench/size.mjs`, `--sizes` for the sizes only, `--before
// DIR` to measure another built checkout's entries side by side).
// - Per entry, gzip -9 bytes of every file a browser fetches by default: the
//   entry module (the SIMD wasm travels inline in it) and the chunks it
//   imports statically, transitively. Chunks behind import() (the baseline
//   wasm, for engines without SIMD) are reported apart: they are fetched only
//   when needed.
// - Startup, import + init() to ready, in fresh Node processes (the entry
//   imported from a file URL) and in fresh Chromium contexts (from the demo's
//   server), each against the floor measured in the same runs, interleaved:
//   importing an empty module the same way and instantiating the smallest
//   wasm module, what any wasm library pays before its own work starts.
// - Where Chromium's time goes, from a trace: fetch, parse, compile,
//   evaluation, and init()'s wasm work and its own JS.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync, spawn } from 'node:child_process';
import { gzipSync } from 'node:zlib';
import { dirname, join, resolve } from 'node:path';
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
const medians = (rows) => Object.fromEntries(Object.keys(rows[0]).map((k) => [k, median(rows.map((r) => r[k]))]));

// ---------------------------------------------------------------- startup
// The floor is what any wasm library pays before its own work starts: importing
// an empty module (bench/floor/empty.mjs) from where the entry comes from (a
// file URL in Node, the same server in Chromium), and instantiating the
// smallest wasm module (the magic number and version, no sections).
// Each run reports { ready, import, init } in ms from its first statement:
// `import` the module's, `init` the instantiation's (the floor) or init()'s;
// in Node also `cpu`, the CPU time of all the process's threads over the same
// span (the wall-clock figures wait for a core on a loaded machine).
const MINIMAL_WASM = [0, 97, 115, 109, 1, 0, 0, 0];
const EMPTY_MODULE = 'bench/floor/empty.mjs';
// The server the Chromium runs fetch from: the demo's (its path is here only).
const SERVER = new URL('../tools/serve.mjs', import.meta.url);

/**
 * What one measurement runs, interleaved: the floor, each entry, and with
 * `before` (the root of another checkout, built) each of its entries too.
 * Each kind: { name, root, file (relative to root), floor }.
 */
function kindsOf(before) {
  const kinds = [{ name: 'floor', root: ROOT, file: EMPTY_MODULE, floor: true }];
  for (const [name, file] of Object.entries(ENTRIES)) kinds.push({ name, root: ROOT, file });
  if (before) for (const [name, file] of Object.entries(ENTRIES)) kinds.push({ name: `${name} (before)`, root: before, file });
  return kinds;
}

function nodeScript(kind) {
  const ready = kind.floor ? `await WebAssembly.instantiate(new Uint8Array(${JSON.stringify(MINIMAL_WASM)}))` : 'await m.init()';
  return `const c0 = process.cpuUsage();
const t0 = performance.now();
const m = await import(${JSON.stringify(pathToFileURL(join(kind.root, kind.file)).href)});
const t1 = performance.now();
${ready};
const t2 = performance.now();
const c = process.cpuUsage(c0);
console.log(JSON.stringify({ ready: t2 - t0, import: t1 - t0, init: t2 - t1, cpu: (c.user + c.system) / 1000 }));`;
}

// rows { name: [row, ...] } (row i of every kind from the same round) ->
// { name: { ...medians, overhead, cpuOverhead, runs } }: overhead is the
// median over rounds of ready minus the floor's ready in the same round
// (cpuOverhead the same of cpu). A round's runs share the machine's load, so
// the pairs cancel most of its drift.
const summarize = (rows, runs) =>
  Object.fromEntries(Object.entries(rows).map(([k, r]) => {
    const paired = (key) => (r[0][key] === undefined ? undefined : median(r.map((row, i) => row[key] - rows.floor[i][key])));
    return [k, { ...medians(r), overhead: paired('ready'), cpuOverhead: paired('cpu'), runs }];
  }));

/**
 * Import + init() to ready in fresh Node processes, `runs` of each kind
 * (kindsOf()), interleaved so that all see the same machine load. Returns
 * { floor, posenc, 'posenc/encoder', ... }, each the medians in ms
 * { ready, import, init } plus `runs`.
 */
export function nodeStartup({ runs = 21, before } = {}) {
  const kinds = kindsOf(before);
  const rows = Object.fromEntries(kinds.map((k) => [k.name, []]));
  for (let i = 0; i < runs; i++) {
    for (const kind of kinds) {
      const out = execFileSync(process.execPath, ['--input-type=module', '-e', nodeScript(kind)], { env: { ...process.env, NODE_OPTIONS: '' } });
      rows[kind.name].push(JSON.parse(out.toString()));
    }
  }
  return summarize(rows, runs);
}

/**
 * A copy of what a server serves for these runs, under build/bench-site/N:
 * the package files of a root (dist/*.mjs, *.wasm, and its package.json, whose
 * "files" list says what the server may serve), the floor's empty module
 * (served as /empty.js) and a blank page (/probe.html), so that every run
 * fetches from the server and none loads the demo page (which imports posenc).
 */
function siteOf(root, n) {
  const site = join(ROOT, 'build', 'bench-site', String(n));
  rmSync(site, { recursive: true, force: true });
  mkdirSync(join(site, 'web'), { recursive: true });
  mkdirSync(join(site, 'dist'));
  for (const f of readdirSync(join(root, 'dist'))) if (/\.(mjs|wasm)$/.test(f)) copyFileSync(join(root, 'dist', f), join(site, 'dist', f));
  copyFileSync(join(ROOT, EMPTY_MODULE), join(site, 'web', 'empty.js'));
  copyFileSync(join(root, 'package.json'), join(site, 'package.json')); // the server serves what its "files" list ships
  writeFileSync(join(site, 'web', 'probe.html'), '<!doctype html><meta charset="utf-8"><title>startup probe</title>\n');
  return site;
}

/**
 * Starts the server on `root` in a process of its own, as a real server runs
 * (in this process it would share an event loop with Playwright's driver,
 * whose traffic delays its answers); resolves to { url, stop() }.
 */
function serve(root) {
  const script = `const { listen } = await import(${JSON.stringify(SERVER.href)});
const { url } = await listen({ port: 0, root: ${JSON.stringify(root)} });
console.log(url);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolvePromise, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the server exited (${code}) before listening`)));
    child.stdout.once('data', (data) => resolvePromise({ url: data.toString().trim(), stop: () => child.kill() }));
  });
}

/**
 * Starts Chromium and a server per root the kinds come from (each on a copy
 * of that root's package); { urls: Map(root -> url), browser, close() }.
 */
async function startChromium(kinds) {
  const executable = process.env.CHROMIUM ?? '/usr/bin/chromium';
  if (!existsSync(executable)) throw new Error(`no Chromium at ${executable} (make test-tools installs it)`);
  const servers = [];
  const urls = new Map();
  for (const root of new Set(kinds.map((k) => k.root))) {
    const server = await serve(siteOf(root, urls.size));
    servers.push(server);
    urls.set(root, server.url);
  }
  const { chromium } = await import('playwright-core');
  const args = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--no-proxy-server'];
  const browser = await chromium.launch({ executablePath: executable, args });
  return {
    urls,
    browser,
    async close() {
      await browser.close();
      for (const server of servers) server.stop();
    },
  };
}

// Runs in the page: import + instantiate (the floor) or init(), with marks
// for the trace; `fetch` is from the import to the last response's end.
async function probe({ src, minimal }) {
  performance.mark('probe-t0');
  const t0 = performance.now();
  const m = await import(src);
  const t1 = performance.now();
  performance.mark('probe-t1');
  if (minimal) await WebAssembly.instantiate(new Uint8Array(minimal));
  else await m.init();
  const t2 = performance.now();
  performance.mark('probe-t2');
  const fetched = performance.getEntriesByType('resource').filter((e) => e.startTime >= t0);
  const fetch = Math.max(...fetched.map((e) => e.responseEnd)) - t0;
  return { ready: t2 - t0, import: t1 - t0, init: t2 - t1, fetch };
}

/** A fresh context (empty HTTP cache) on its server's blank page; runs probe() for a kind. */
async function probeKind(chrome, kind, trace) {
  const url = chrome.urls.get(kind.root);
  const context = await chrome.browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${url}probe.html`);
    if (trace) await chrome.browser.startTracing(page, { categories: TRACE_CATEGORIES });
    const src = url + (kind.floor ? 'empty.js' : kind.file);
    const row = await page.evaluate(probe, { src, minimal: kind.floor ? MINIMAL_WASM : null });
    return trace ? attribute(JSON.parse((await chrome.browser.stopTracing()).toString())) : row;
  } finally {
    await context.close();
  }
}

/**
 * `runs` probes of each kind in Chromium, interleaved, each in a fresh
 * browser context on a blank page of its server: import + init() to ready
 * (medians per kind as nodeStartup() gives, plus `fetch`), or with `trace`
 * where the time went (attribute()'s phases).
 */
async function chromiumRuns({ runs, before, trace }) {
  const kinds = kindsOf(before);
  const chrome = await startChromium(kinds);
  const rows = Object.fromEntries(kinds.map((k) => [k.name, []]));
  try {
    for (let i = 0; i < runs; i++) for (const kind of kinds) rows[kind.name].push(await probeKind(chrome, kind, trace));
  } finally {
    await chrome.close();
  }
  return summarize(rows, runs);
}

export const chromiumStartup = ({ runs = 21, before } = {}) => chromiumRuns({ runs, before, trace: false });
export const chromiumTrace = ({ runs = 7, before } = {}) => chromiumRuns({ runs, before, trace: true });

// ---------------------------------------------------------------- trace
const TRACE_CATEGORIES = [
  'toplevel', 'blink.user_timing', 'loading', 'devtools.timeline', 'v8', 'v8.wasm', 'disabled-by-default-v8.compile',
];

// The length of the union of intervals [[start, end], ...] clipped to [a, b]
// (nested or overlapping events count once).
function covered(intervals, a, b) {
  let total = 0;
  let end = a;
  for (const [s, e] of [...intervals].sort((x, y) => x[0] - y[0])) {
    const lo = Math.max(s, end);
    const hi = Math.min(e, b);
    if (hi > lo) total += hi - lo;
    end = Math.max(end, Math.min(e, b));
  }
  return total;
}

/**
 * Where one probe's time went, in ms, from a Chrome trace. The import: fetch
 * (request sent to the last response body, as the page's thread sees it),
 * parse and compile (on a background thread while the bytes arrive, then on
 * the page's thread), and the module's evaluation. init(): the wasm work on
 * the page's thread (validate, compile, instantiate, lazy compiles), the rest
 * of what that thread ran (init()'s own JS), and the time it waited.
 */
function attribute(trace) {
  const events = (trace.traceEvents ?? trace).filter((e) => e.ph === 'X' || e.ph === 'I' || e.ph === 'R');
  const mark = (name) => events.find((e) => e.name === name && e.cat.includes('blink.user_timing')).ts;
  const [t0, t1, t2] = ['probe-t0', 'probe-t1', 'probe-t2'].map(mark);
  const main = events.find((e) => e.name === 'probe-t0').tid;
  const span = (filter, a, b, anyThread = false) =>
    covered(events.filter((e) => e.ph === 'X' && (anyThread || e.tid === main) && filter(e)).map((e) => [e.ts, e.ts + e.dur]), a, b) / 1000;
  const finished = events.filter((e) => e.name === 'ResourceFinish' && e.ts >= t0 && e.ts <= t1).map((e) => e.ts);
  const wasm = span((e) => e.cat.includes('v8.wasm'), t1, t2);
  const busy = span(() => true, t1, t2);
  return {
    fetch: (Math.max(...finished) - t0) / 1000,
    parse: span((e) => e.name === 'v8.parseOnBackgroundParsing' || e.name === 'V8.CompileCodeBackground', t0, t1, true),
    compile: span((e) => e.name === 'v8.compileModule', t0, t1),
    evaluate: span((e) => e.name === 'v8.evaluateModule', t0, t1),
    import: (t1 - t0) / 1000,
    wasm,
    initJS: busy - wasm,
    initWait: (t2 - t1) / 1000 - busy,
    init: (t2 - t1) / 1000,
  };
}

// ---------------------------------------------------------------- report
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
const f1 = (x) => x.toFixed(1);

function printSizes() {
  for (const [name, s] of Object.entries(entrySizes())) {
    const parts = s.files.map((f) => `${f.file} ${f.gzip}`).join(' + ');
    console.log(`entry '${name}': ${s.gzip} bytes gzip -9 (${kb(s.gzip)}; ${s.bytes} raw): ${parts}`);
    for (const f of s.lazy) console.log(`  only when needed: ${f.file} ${f.gzip} bytes gzip -9 (${f.bytes} raw)`);
  }
  for (const file of ['dist/posenc.wasm', 'dist/posenc-baseline.wasm', 'dist/posenc-encoder.wasm', 'dist/posenc-encoder-baseline.wasm']) {
    const f = fileSize(file);
    console.log(`${file}: ${f.bytes} bytes, ${f.gzip} gzip -9`);
  }
}

function printStartup(where, result, unit) {
  const { floor } = result;
  const cpu = floor.cpu !== undefined;
  console.log(`\n${where}: ${unit}, medians of ${floor.runs} (ms); overhead: the median over rounds of ready (CPU) minus the floor's in the same round`);
  console.log(`| | ready | import | init | overhead |${cpu ? ' CPU | CPU overhead |' : ''}`);
  console.log(`| --- | ---: | ---: | ---: | ---: |${cpu ? ' ---: | ---: |' : ''}`);
  for (const [kind, r] of Object.entries(result)) {
    const name = kind === 'floor' ? 'floor (empty module + minimal wasm)' : `'${kind}'`;
    const over = (k) => (kind === 'floor' ? '' : f1(r[k]));
    console.log(`| ${name} | ${f1(r.ready)} | ${f1(r.import)} | ${f1(r.init)} | ${over('overhead')} |${cpu ? ` ${f1(r.cpu)} | ${over('cpuOverhead')} |` : ''}`);
  }
}

function printTrace(result) {
  const phases = {
    fetch: "fetch, the body parsed as it streams (request sent to its end on the page's thread)",
    parse: 'of which parse + compile on a background thread',
    compile: 'module compile, page thread',
    evaluate: 'module evaluation',
    import: 'import, in all',
    wasm: 'init(): wasm on the page thread (validate, compile, instantiate, lazy compiles)',
    initJS: "init(): the page thread's other work (init()'s JS, the browser's own tasks)",
    initWait: 'init(): the page thread idle (waiting for the background compile)',
    init: 'init(), in all',
  };
  const kinds = Object.keys(result);
  console.log(`\nChromium trace, medians of ${result.floor.runs} traced probes per kind (ms)`);
  console.log(`| phase | ${kinds.join(' | ')} |`);
  console.log(`| --- |${kinds.map(() => ' ---: |').join('')}`);
  for (const [k, label] of Object.entries(phases)) console.log(`| ${label} | ${kinds.map((kind) => f1(result[kind][k])).join(' | ')} |`);
}

// --before DIR: also measure the entries of another checkout (built), side by side
function beforeOf(argv) {
  const i = argv.indexOf('--before');
  return i < 0 ? undefined : resolve(argv[i + 1]);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const before = beforeOf(process.argv);
  console.log(`posenc size and startup: ${os.cpus()[0].model}, ${os.cpus().length} cores, Node ${process.version}, ${new Date().toISOString()}`);
  printSizes();
  if (!process.argv.includes('--sizes')) {
    printStartup('Node', nodeStartup({ before }), 'fresh processes, import from a file URL');
    try {
      printStartup('Chromium', await chromiumStartup({ before }), 'fresh contexts, import from the demo server');
      printTrace(await chromiumTrace({ before }));
    } catch (error) {
      console.log(`Chromium: not measured (${error.message.split('\n')[0]})`);
    }
  }
}
