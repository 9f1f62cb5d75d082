// init({ wasm }) when the wasm cannot be had: every error names posenc.init,
// the option, and the URL or path it tried, never only the engine's words
// ("fetch failed", "Failed to parse URL from dist/posenc.wasm", "HTTP
// undefined"); the engine's error stays as the cause. A failed init() leaves
// nothing behind: init() with no options then loads the inline build.
import http from 'node:http';
import net from 'node:net';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const DIST = new URL('../../dist/', import.meta.url);
const WASM = readFileSync(new URL('posenc.wasm', DIST));
let copies = 0;
/** A fresh copy of the default entry (its own init() state). */
const freshCopy = () => import(`${new URL('posenc.mjs', DIST).href}?load-errors=${++copies}`);

let server;
let base;
let closedPort;
beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/posenc.wasm') res.writeHead(200, { 'Content-Type': 'application/wasm' }).end(WASM);
    else if (req.url === '/page.wasm') res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><p>not wasm</p>');
    else if (req.url === '/encoder.wasm') res.writeHead(200, { 'Content-Type': 'application/wasm' }).end(readFileSync(new URL('posenc-encoder.wasm', DIST)));
    else if (req.url === '/broken.wasm') res.writeHead(500, { 'Content-Type': 'text/plain' }).end('oops');
    else res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${server.address().port}`;
  // a port nothing listens on: taken, then released
  closedPort = await new Promise((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const failed = (promise) => promise.then(() => {
  throw new Error('init() resolved');
}, (e) => e);

// each case's wasm comes in an array, so that a Promise given as wasm stays one
test.each([
  ['a relative path, which Node cannot fetch', () => ['dist/posenc.wasm'], TypeError,
    /^posenc\.init: wasm is not an absolute URL, got "dist\/posenc\.wasm" \(.*pass new URL\('dist\/posenc\.wasm', import\.meta\.url\), a file: URL or the file's bytes\)$/],
  ['an absolute path', () => ['/srv/posenc.wasm'], TypeError, /^posenc\.init: wasm is not an absolute URL, got "\/srv\/posenc\.wasm"/],
  ['a server that refuses the connection', () => [`http://127.0.0.1:${closedPort}/posenc.wasm`], TypeError,
    /^posenc\.init: could not fetch wasm from http:\/\/127\.0\.0\.1:\d+\/posenc\.wasm: fetch failed \(.*ECONNREFUSED.*\)$/],
  ['a URL answering 404', () => [`${base}/missing.wasm`], Error, /^posenc\.init: could not fetch wasm from http:\/\/127\.0\.0\.1:\d+\/missing\.wasm: HTTP 404 Not Found$/],
  ['a URL object answering 500', () => [new URL(`${base}/broken.wasm`)], Error, /^posenc\.init: could not fetch wasm from http:\/\/127\.0\.0\.1:\d+\/broken\.wasm: HTTP 500 Internal Server Error$/],
  ['a file: URL of no file', () => [pathToFileURL('/nonexistent/posenc.wasm')], Error,
    /^posenc\.init: could not read wasm from file:\/\/\/nonexistent\/posenc\.wasm: ENOENT: no such file or directory/],
  ['a Response that failed', () => [new Response('nope', { status: 403, statusText: 'Forbidden' })], Error, /^posenc\.init: wasm is a Response that failed: HTTP 403 Forbidden$/],
  ['a promise of a response that failed', () => [fetch(`${base}/missing.wasm`)], Error,
    /^posenc\.init: wasm is a Response that failed: HTTP 404 Not Found \(http:\/\/127\.0\.0\.1:\d+\/missing\.wasm\)$/],
  ['a promise of bytes, not of a Response', () => [Promise.resolve(WASM)], TypeError,
    /^posenc\.init: wasm is a Promise that resolved to Uint8Array\(\d+\), not a Response: pass fetch\(url\) itself, or the bytes or WebAssembly\.Module without a Promise$/],
  ['a promise that rejects', () => [Promise.reject(new Error('offline'))], Error, /^posenc\.init: wasm is a Promise that rejected: offline$/],
  ['a Response whose body was read already', async () => {
    const r = await fetch(`${base}/posenc.wasm`);
    await r.arrayBuffer();
    return [r];
  }, TypeError, /^posenc\.init: wasm is a Response whose body could not be read \(.+\)$/],
])('%s: the error names posenc.init and what it tried', async (_what, wasm, Err, message) => {
  const copy = await freshCopy();
  const [given] = await wasm(); // in an array: a Promise given as wasm stays one
  const error = await failed(copy.init({ wasm: given }));
  expect(error).toBeInstanceOf(Err);
  expect(error.message).toMatch(message);
  expect(copy.isReady()).toBe(false);
  await copy.init(); // nothing left behind
  expect(copy.sinusoidal({ length: 1, dModel: 2 })[1]).toBe(1);
});

test('a URL that answers with something else names the URL too: not WebAssembly, another module', async () => {
  const copy = await freshCopy();
  const html = await failed(copy.init({ wasm: `${base}/page.wasm` }));
  expect(html).toBeInstanceOf(WebAssembly.CompileError);
  expect(html.message).toMatch(/^posenc\.init: the wasm from http:\/\/127\.0\.0\.1:\d+\/page\.wasm could not be compiled: it is not valid WebAssembly/);
  const encoderCopy = await import(`${new URL('encoder.mjs', DIST).href}?load-errors=${++copies}`);
  const other = await failed(encoderCopy.init({ wasm: `${base}/posenc.wasm` }));
  expect(other.message).toMatch(/^posenc\.init: the wasm from http:\/\/127\.0\.0\.1:\d+\/posenc\.wasm is not posenc\/encoder's: it lacks the exports /);
  await encoderCopy.init({ wasm: `${base}/encoder.wasm` }); // and a later init() loads the right one
  expect(encoderCopy.wasmBuild()).toBe('custom');
});

test('the engine\'s own error is kept as the cause', async () => {
  const copy = await freshCopy();
  const error = await failed(copy.init({ wasm: `http://127.0.0.1:${closedPort}/posenc.wasm` }));
  expect(error.cause.name).toBe('TypeError'); // fetch's own (another realm's class under Jest)
  expect(error.cause.message).toBe('fetch failed');
});

test('the URLs that work still work: http, a URL object, a file: URL, a promise of a Response', async () => {
  for (const wasm of [`${base}/posenc.wasm`, new URL(`${base}/posenc.wasm`), pathToFileURL(new URL('posenc.wasm', DIST).pathname), fetch(`${base}/posenc.wasm`)]) {
    const copy = await freshCopy();
    await copy.init({ wasm });
    expect(copy.wasmBuild()).toBe('custom');
    expect(copy.sinusoidal({ length: 1, dModel: 2 })[1]).toBe(1);
  }
});
