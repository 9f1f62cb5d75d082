// demo-load.mjs: how long the demo page takes to load (`make bench`; alone:
// `node bench/demo-load.mjs [--runs N] [--server FILE]...`), in Debian's
// Chromium, each load in a fresh browser context (empty HTTP cache), the
// demo server running as a child process as `make demo` runs it. Several
// --server FILEs (another version of tools/serve.mjs: before and after) are
// measured side by side, their loads interleaved. From the navigation's start
// (performance.now()'s origin) to:
//   - first view drawn: web/main.js's mark after the positional views are
//     drawn (<html data-first-drawn-ms>);
//   - every view ready: its mark after the encoder views are drawn
//     (data-ready-ms);
//   - trained models scored: the train view's mark when its workers' last
//     point arrived (data-eval-done-at; tests/demo/train-view.test.js
//     waits for the same);
//   - reload, first view drawn: the same page navigated again in the same
//     context (the HTTP cache warm: what the validators save);
// and the bytes the page and its workers received (response bodies as sent).
// The server alone, apart from the browser's work: every file the page
// fetches, fetched again in sequence by Node over one keep-alive connection,
// asking for what Chromium asks (Accept-Encoding: gzip, deflate, br), ms per
// file, beside the floor page's two files fetched the same way.
// The floor, measured in the same run and interleaved with the demo: an empty
// page with one empty module, served by a second instance of the same server
// code from a scratch root, marking itself drawn on arrival.
import { chromium } from 'playwright-core';
import http from 'node:http';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir, cpus } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ARGS } from '../tests/demo/chromium.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i < 0 ? fallback : process.argv[i + 1];
};
const RUNS = Number(arg('--runs', process.env.BENCH_RUNS || 9));
const given = process.argv.flatMap((a, i) => (a === '--server' ? [process.argv[i + 1]] : []));
const SERVERS = (given.length ? given : ['tools/serve.mjs']).map((f) => resolve(ROOT, f));
const executable = process.env.CHROMIUM ?? '/usr/bin/chromium';

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** Starts a server module's listen({ port: 0, root }) in a child process; resolves to { child, url }. */
function startServer(server, root) {
  const script = `const { listen } = await import(${JSON.stringify(pathToFileURL(server).href)});
const { url } = await listen({ port: 0, root: ${JSON.stringify(root)} });
console.log(url);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error('the server printed no URL within 10 s')), 10_000);
    child.stdout.once('data', (d) => {
      clearTimeout(timer);
      resolveUrl({ child, url: String(d).trim() });
    });
    child.once('exit', (code) => reject(new Error(`the server exited (${code})`)));
  });
}

/** A scratch root holding an empty page and an empty module: the floor. */
function floorRoot() {
  const dir = mkdtempSync(join(tmpdir(), 'posenc-demo-load-'));
  mkdirSync(join(dir, 'web'));
  writeFileSync(join(dir, 'package.json'), readFileSync(join(ROOT, 'package.json')));
  writeFileSync(join(dir, 'web', 'index.html'), '<!doctype html>\n<meta charset="utf-8">\n<title>floor</title>\n<script type="module" src="main.js"></script>\n');
  writeFileSync(join(dir, 'web', 'main.js'), 'document.documentElement.dataset.firstDrawnMs = performance.now().toFixed(0);\n');
  return dir;
}

/** Resolves once every URL is served brotli-compressed, or not compressed at all (30 s at most). */
async function settle(urls) {
  const end = Date.now() + 30_000;
  for (const url of urls) {
    while (Date.now() < end) {
      const r = await fetch(url, { method: 'HEAD', headers: { 'Accept-Encoding': 'br, gzip' } });
      if (r.headers.get('content-encoding') !== 'gzip') break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

const marks = (page) => page.evaluate(() => {
  const d = document.documentElement.dataset;
  const train = document.querySelector('[data-view="train"]');
  return { first: Number(d.firstDrawnMs), ready: Number(d.readyMs), scored: Number(train?.dataset.evalDoneAt) };
});

/** ms per file to fetch `urls` in sequence over one keep-alive connection, reading every body. */
async function fetchAll(urls) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const one = (url) => new Promise((done, fail) => {
    http.get(url, { agent, headers: { 'Accept-Encoding': 'gzip, deflate, br' } }, (res) => {
      res.on('data', () => {});
      res.on('end', done);
    }).on('error', fail);
  });
  try {
    const t0 = performance.now();
    for (const url of urls) await one(url);
    return (performance.now() - t0) / urls.length;
  } finally {
    agent.destroy();
  }
}

/** Sums the response bodies as sent (compressed, when they were) of the requests given. */
async function bytesOf(requests) {
  let sum = 0;
  for (const r of requests) sum += (await r.sizes()).responseBodySize;
  return sum;
}

async function loadOnce(browser, url, demo, requested = new Set()) {
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 }, deviceScaleFactor: 1 });
  try {
    const page = await context.newPage();
    const finished = [];
    page.on('request', (r) => requested.add(r.url()));
    page.on('requestfinished', (r) => finished.push(r));
    await page.goto(url);
    if (!demo) {
      await page.waitForFunction(() => document.documentElement.dataset.firstDrawnMs);
      return await marks(page);
    }
    await page.waitForFunction(() => document.documentElement.dataset.ready === 'true', null, { timeout: 30_000 });
    await page.waitForFunction(() => document.querySelector('[data-view="train"]').dataset.evalDone === 'true', null, { timeout: 60_000 });
    const cold = { ...(await marks(page)), bytes: await bytesOf(finished) };
    await page.reload();
    await page.waitForFunction(() => document.documentElement.dataset.ready === 'true', null, { timeout: 30_000 });
    const warm = await marks(page);
    return { ...cold, reload: warm.first };
  } finally {
    await context.close();
  }
}

if (!existsSync(executable)) {
  console.log(`demo load: not measured (no Chromium at ${executable}; make test-tools installs it)`);
  process.exit(0);
}

const scratch = floorRoot();
const children = [];
let browser;
try {
  const servers = [];
  for (const file of SERVERS) {
    const demo = await startServer(file, ROOT);
    children.push(demo.child);
    const floor = await startServer(file, scratch);
    children.push(floor.child);
    servers.push({ file, demo: demo.url, floor: floor.url, files: [], rows: { floor: [], demo: [], fetchFloor: [], fetchDemo: [] } });
  }
  browser = await chromium.launch({ executablePath: executable, args: ARGS });
  // One load of each first, so every server has compiled its code paths and
  // compressed every file the page fetches; then wait for the compressions a
  // server runs in the background (brotli) to end, so they do not compete
  // with the timed loads.
  for (const s of servers) {
    const requested = new Set();
    await loadOnce(browser, s.demo, true, requested);
    s.files = [...requested].filter((u) => u.startsWith(s.demo));
    await settle(s.files);
    await loadOnce(browser, s.floor, false);
  }
  for (let i = 0; i < RUNS; i++) {
    for (const s of servers) {
      s.rows.floor.push(await loadOnce(browser, s.floor, false));
      s.rows.demo.push(await loadOnce(browser, s.demo, true));
    }
  }
  for (let i = 0; i < 15; i++) {
    for (const s of servers) {
      s.rows.fetchFloor.push({ ms: await fetchAll([s.floor, `${s.floor}main.js`]) });
      s.rows.fetchDemo.push({ ms: await fetchAll(s.files) });
    }
  }
  console.log(`demo load: ${cpus()[0].model}, ${cpus().length} cores, Node ${process.version}, medians of ${RUNS} fresh Chromium contexts per server, interleaved; ms from navigation, and over the floor`);
  const names = servers.map((s) => relative(ROOT, s.file));
  console.log(`| | ${names.join(' | ')} |`);
  console.log(`| --- |${names.map(() => ' --- |').join('')}`);
  const m = (s, kind, key) => median(s.rows[kind].map((r) => r[key]));
  console.log(`| floor: an empty page and an empty module, same server | ${servers.map((s) => m(s, 'floor', 'first')).join(' | ')} |`);
  for (const [key, name] of [['first', 'first view drawn'], ['ready', 'every view ready'], ['scored', 'trained models scored'], ['reload', 'reload, first view drawn']]) {
    console.log(`| ${name} | ${servers.map((s) => `${m(s, 'demo', key)} (+${m(s, 'demo', key) - m(s, 'floor', 'first')})`).join(' | ')} |`);
  }
  console.log(`| bytes received, page and workers | ${servers.map((s) => m(s, 'demo', 'bytes')).join(' | ')} |`);
  const ms = (s, kind) => m(s, kind, 'ms').toFixed(2);
  console.log(`| server alone: the page's ${servers[0].files.length} files in sequence, ms per file (floor: the empty page's 2) | ${servers.map((s) => `${ms(s, 'fetchDemo')} (floor ${ms(s, 'fetchFloor')})`).join(' | ')} |`);
} finally {
  await browser?.close();
  for (const child of children) child.kill();
  rmSync(scratch, { recursive: true, force: true });
}
