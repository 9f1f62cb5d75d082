// scratch.js: the consumer tests' shared setup. Packs the package the way
// `npm publish` would (npm pack into build/), installs the tarball into a
// scratch project outside the repository (a temp dir), and serves and opens
// pages in headless Chromium. Packing and installing happen once per package
// content: the scratch project is keyed by the tarball's hash, built under a
// temporary name and renamed into place, so test files running in parallel
// (or a rerun) share one install. Tools (tsc, esbuild, vite, webpack) come
// from the repository's node_modules, never installed into the scratch project.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = join(ROOT, 'node_modules', '.bin');
export const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

/**
 * The environment for child processes: no npm_* variables from the npm/npx
 * that started Jest (npm_config_local_prefix would point npm back at the
 * repository), no NODE_OPTIONS (Jest's --experimental-vm-modules), no
 * NODE_ENV=test (Vite reads it).
 */
export function cleanEnv(extra = {}) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^npm_/i.test(k) || k === 'NODE_OPTIONS' || k === 'NODE_ENV' || k === 'INIT_CWD') continue;
    env[k] = v;
  }
  return { ...env, ...extra };
}

/** Runs a command; returns { status, stdout, stderr } (never throws on a non-zero exit). */
export function run(command, args, { cwd, input, env, timeout = 120000 } = {}) {
  const r = spawnSync(command, args, { cwd, input, env: cleanEnv(env), encoding: 'utf8', timeout, maxBuffer: 64 << 20 });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** run() without blocking: resolves to { status, stdout, stderr } (builds run side by side). */
export function runAsync(command, args, { cwd, env, timeout = 120000 } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    const out = { stdout: '', stderr: '' };
    child.stdout.on('data', (c) => (out.stdout += c));
    child.stderr.on('data', (c) => (out.stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeout);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, ...out });
    });
  });
}

/** Like run, but throws with the output when the command fails. */
export function mustRun(command, args, options) {
  const r = run(command, args, options);
  if (r.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} exited with ${r.status}\n${r.stdout}\n${r.stderr}`);
  }
  return r;
}

let packedOnce = null;

/**
 * npm pack into build/: { tarball, bytes, files (paths inside the package), sha }.
 * Each process packs into its own folder, then renames the tarball into
 * build/pack/ (npm pack output is deterministic: same content, same bytes).
 */
export function packed() {
  if (packedOnce) return packedOnce;
  const staging = join(ROOT, 'build', 'pack', `tmp-${process.pid}`);
  mkdirSync(staging, { recursive: true });
  const out = mustRun('npm', ['pack', '--json', '--pack-destination', staging], { cwd: ROOT });
  const [info] = JSON.parse(out.stdout);
  const tarball = join(ROOT, 'build', 'pack', info.filename);
  renameSync(join(staging, info.filename), tarball);
  rmSync(staging, { recursive: true, force: true });
  const sha = createHash('sha256').update(readFileSync(tarball)).digest('hex').slice(0, 16);
  packedOnce = { tarball, bytes: statSync(tarball).size, files: info.files.map((f) => f.path).sort(), sha };
  return packedOnce;
}

const SCRATCH_PREFIX = 'posenc-consumers-';

/**
 * A scratch project (outside the repository) with the packed tarball
 * installed: `npm install <tarball>` with --no-audit --no-fund, no network
 * needed (posenc has no dependencies). Returns its directory.
 */
export function scratchProject() {
  const { tarball, sha } = packed();
  const dir = join(tmpdir(), `${SCRATCH_PREFIX}${sha}`);
  if (existsSync(join(dir, 'node_modules', 'posenc', 'package.json'))) return dir;
  const building = mkdtempSync(join(tmpdir(), `${SCRATCH_PREFIX}tmp-`));
  writeFileSync(join(building, 'package.json'), `${JSON.stringify({ name: 'scratch', version: '1.0.0', private: true }, null, 2)}\n`);
  mustRun('npm', ['install', '--no-audit', '--no-fund', '--no-package-lock', '--offline', tarball], { cwd: building });
  try {
    renameSync(building, dir);
  } catch (error) {
    // another test file got there first: use its copy
    rmSync(building, { recursive: true, force: true });
    if (!existsSync(join(dir, 'node_modules', 'posenc', 'package.json'))) throw error;
  }
  // scratch projects of older package contents, untouched for an hour
  for (const name of readdirSync(tmpdir())) {
    const old = join(tmpdir(), name);
    if (name.startsWith(SCRATCH_PREFIX) && old !== dir && Date.now() - statSync(old).mtimeMs > 3600e3) {
      rmSync(old, { recursive: true, force: true });
    }
  }
  return dir;
}

const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
};

/** A fresh directory inside the scratch project for one test file (those of ended runs are removed). */
export function workspace(name) {
  const project = scratchProject();
  for (const entry of readdirSync(project)) {
    const m = new RegExp(`^${name}-(\\d+)$`).exec(entry);
    if (m && !alive(Number(m[1]))) rmSync(join(project, entry), { recursive: true, force: true });
  }
  const dir = join(project, `${name}-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Writes { 'relative/path': text } under dir. */
export function writeFiles(dir, files) {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}

// ------------------------------------------------------------------ browser

/** The strict policy the package must run under: no inline script, no eval, wasm allowed. */
export const STRICT_CSP = "script-src 'self' 'wasm-unsafe-eval'";

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.cjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
};

/**
 * A static file server for `root` on 127.0.0.1 (ephemeral port) that sends
 * `Content-Security-Policy: csp(url)` with every response (url: the request's URL object). Resolves to
 * { url, close() }.
 */
export async function serve(root, { csp = () => STRICT_CSP } = {}) {
  const server = http.createServer((req, res) => {
    const target = new URL(req.url, 'http://x');
    const path = decodeURIComponent(target.pathname);
    const file = normalize(join(root, path.endsWith('/') ? `${path}index.html` : path));
    if (!file.startsWith(root.endsWith(sep) ? root : root + sep) || !existsSync(file) || statSync(file).isDirectory()) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, {
      'Content-Type': MIME[extname(file)] ?? 'application/octet-stream',
      'Content-Security-Policy': csp(target),
      'Cache-Control': 'no-store',
    });
    res.end(readFileSync(file));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/** Debian's Chromium through playwright-core, launched as tests/demo/chromium.js does. */
export async function launchChromium() {
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
}

/**
 * Opens url, waits for the page to set <html data-done> ('ok' or 'error'),
 * and returns { done, result, error, problems }: the page's globalThis.posencResult
 * or posencError, and every console error, page error and failed request.
 */
export async function openAndRead(browser, url, { timeout = 20000 } = {}) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
  page.on('response', (r) => {
    if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`);
  });
  try {
    await page.goto(url);
    await page.waitForFunction(() => document.documentElement.dataset.done, null, { timeout });
    return await page.evaluate(() => ({
      done: document.documentElement.dataset.done,
      result: globalThis.posencResult ?? null,
      error: globalThis.posencError ?? null,
    })).then((r) => ({ ...r, problems }));
  } catch (error) {
    throw new Error(`${url}: ${error.message}\n${problems.join('\n')}`);
  } finally {
    await context.close();
  }
}

/** Reads a .npy file's header and data (the format of numpy/lib/format.py, version 1.0). */
export function readNpy(bytes) {
  const magic = Buffer.from(bytes.subarray(0, 6)).toString('latin1');
  if (magic !== '\x93NUMPY') throw new Error(`not an .npy file: ${JSON.stringify(magic)}`);
  const [major, minor] = [bytes[6], bytes[7]];
  const headerLength = bytes[8] | (bytes[9] << 8);
  const header = Buffer.from(bytes.subarray(10, 10 + headerLength)).toString('latin1');
  const m = /^\{'descr': '([<>|][a-z]\d)', 'fortran_order': (True|False), 'shape': \(([\d, ]*)\), \} *\n$/.exec(header);
  if (!m) throw new Error(`unexpected .npy header: ${JSON.stringify(header)}`);
  const shape = m[3].split(',').map((s) => s.trim()).filter(Boolean).map(Number);
  const start = 10 + headerLength;
  const Type = { '<f4': Float32Array, '<f8': Float64Array, '<i4': Int32Array }[m[1]];
  const count = shape.reduce((a, b) => a * b, 1);
  const copy = bytes.slice(start, start + count * Type.BYTES_PER_ELEMENT); // aligned copy
  return {
    version: [major, minor], headerLength, dataOffset: start, descr: m[1], fortranOrder: m[2] === 'True', shape,
    data: new Type(copy.buffer, copy.byteOffset, count), trailing: bytes.length - start - count * Type.BYTES_PER_ELEMENT,
  };
}

/** The notebook's table (tests/fixtures/notebook-outputs.json): PE [10][6], printed to 4 decimals. */
export const NOTEBOOK = JSON.parse(readFileSync(join(ROOT, 'tests', 'fixtures', 'notebook-outputs.json'), 'utf8'));

/** Largest |a[i] - b[i]|, Infinity when the lengths differ. */
export function maxDiff(a, b) {
  if (!a || !b || a.length !== b.length) return Infinity;
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]) || (a[i] === b[i] ? 0 : Infinity));
  return worst;
}
