// The demo server (tools/serve.mjs) under hostile requests: raw HTTP on
// loopback, so request targets reach it byte for byte (no client-side
// normalization of `..` or encodings), every exchange bounded by a timeout.
// Also what makes it a real static server: validators and 304, compression
// made once per file version, and memory that stays bounded when a client
// pipelines requests and never reads the answers (the server's RSS, read
// from /proc, in a child process). Pipelining clients that read, the
// preconditions, Accept-Encoding's weights and idle connections: tests/server/.
import net from 'node:net';
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listen, CSP } from '../../tools/serve.mjs';
import { createCache, versionOf } from '../../tools/serve/versions.mjs';

let server;
let port;
const ROOT = new URL('../../', import.meta.url);
const PACKAGE_JSON = readFileSync(new URL('package.json', ROOT), 'utf8');
// the chunks the ESM entry imports, whatever the bundler named them
const chunks = readdirSync(new URL('dist/', ROOT)).filter((f) => /^posenc-chunk-.*\.mjs$/.test(f));

beforeAll(async () => {
  ({ server } = await listen({ port: 0 }));
  port = server.address().port;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

/** Sends raw bytes, resolves to { status, headers, body } once the server closes. */
function raw(request, { timeout = 5000, to = port } = {}) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(to, '127.0.0.1');
    const chunks = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeout} ms to ${JSON.stringify(request.slice(0, 80))}`));
    }, timeout);
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', () => {}); // a reset after the answer is fine; the answer is checked below
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks);
      const split = text.indexOf('\r\n\r\n');
      const head = text.subarray(0, split < 0 ? text.length : split).toString('latin1').split('\r\n');
      const headers = {};
      for (const line of head.slice(1)) {
        const i = line.indexOf(':');
        headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
      }
      resolve({ status: Number(head[0].split(' ')[1]), headers, body: split < 0 ? Buffer.alloc(0) : text.subarray(split + 4) });
    });
    socket.write(request);
  });
}

const get = (target, method = 'GET') => raw(`${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);
/** A GET (or HEAD) with extra request headers ({ name: value }). */
const ask = (target, headers = {}, { method = 'GET', to = port } = {}) =>
  raw(`${method} ${target} HTTP/1.1\r\nHost: x\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}Connection: close\r\n\r\n`, { to });
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

describe('what it serves', () => {
  test.each([
    ['/', 'text/html; charset=utf-8'],
    ['/index.html', 'text/html; charset=utf-8'],
    ['/main.js', 'text/javascript; charset=utf-8'],
    ['/views/table.js', 'text/javascript; charset=utf-8'],
    ['/style.css', 'text/css; charset=utf-8'],
    ['/favicon.svg', 'image/svg+xml'],
    ['/dist/posenc.mjs', 'text/javascript; charset=utf-8'],
    ['/dist/posenc.wasm', 'application/wasm'],
    ['/main.js?x=1#y', 'text/javascript; charset=utf-8'],
    ['/train/worker.js', 'text/javascript; charset=utf-8'],
    ['/train/client.js', 'text/javascript; charset=utf-8'],
    ['/train/models.js', 'text/javascript; charset=utf-8'],
    ['/draw/heatmap.js', 'text/javascript; charset=utf-8'],
    ['/models/copy-task.js', 'text/javascript; charset=utf-8'],
    ['/models/manifest.json', 'application/json; charset=utf-8'],
    // package.json's "files": shipped by npm, so served (the notebook view imports the CLI's printer)
    ['/src/cli/torch.js', 'text/javascript; charset=utf-8'],
    ['/bin/posenc.js', 'text/javascript; charset=utf-8'],
    ['/dist/encoder.mjs', 'text/javascript; charset=utf-8'],
    ['/dist/posenc-encoder.wasm', 'application/wasm'],
    ...['none', 'learned', 'sinusoidal', 'rope', 'alibi', 't5'].map((s) => [`/models/copy-${s}.safetensors`, 'application/octet-stream']),
    ...chunks.map((f) => [`/dist/${f}`, 'text/javascript; charset=utf-8']),
  ])('GET %s: 200 %s with the security headers', async (target, type) => {
    const r = await get(target);
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe(type);
    expect(r.headers['content-security-policy']).toBe(CSP);
    expect(r.headers['x-content-type-options']).toBe('nosniff');
    expect(Number(r.headers['content-length'])).toBe(r.body.length);
  });

  test("the CSP allows scripts from the page's own origin and wasm compilation only", () => {
    expect(CSP).toContain("script-src 'self' 'wasm-unsafe-eval'");
    expect(CSP).toContain("default-src 'none'");
    expect(CSP).not.toMatch(/'unsafe-inline'|'unsafe-eval'|\*/);
  });

  test('the wasm is served byte for byte; HEAD gives the headers and no body', async () => {
    const wasm = readFileSync(new URL('dist/posenc.wasm', ROOT));
    const r = await get('/dist/posenc.wasm');
    expect(Buffer.compare(r.body, wasm)).toBe(0);
    const h = await get('/dist/posenc.wasm', 'HEAD');
    expect(h.status).toBe(200);
    expect(Number(h.headers['content-length'])).toBe(wasm.length);
    expect(h.body.length).toBe(0);
  });

  test('a model file is served byte for byte', async () => {
    const bytes = readFileSync(new URL('web/models/copy-rope.safetensors', ROOT));
    const r = await get('/models/copy-rope.safetensors');
    expect(Buffer.compare(r.body, bytes)).toBe(0);
  });

  test.each([
    '/serve.mjs', '/tools/serve.mjs', '/dist/posenc.cjs', '/dist/posenc.d.ts', '/package.json', '/Makefile', '/src/js/index.js',
    '/src/js/core/load.js', '/src/alibi.c', '/include/posenc.h', '/CHANGELOG.md', '/README.md', '/docs/train-view.png', '/LICENSE',
    '/web/index.html', '/tests/helpers.js', '/dist/posenc-chunk-.mjs', '/dist/other.mjs', '/dist/posenc.wasm.map', '/.git/config', '/.gitignore', '/views/', '/nothing.js', '/views/a/b.js',
    '/manifest.json', '/models/other.json', '/models/sub/copy-rope.safetensors', '/copy-rope.safetensors', '/views/x.safetensors', '/models/.safetensors',
  ])('GET %s: 404, nothing outside the page and the package files (and of those, only the types a page loads)', async (target) => {
    const r = await get(target);
    expect(r.status).toBe(404);
    expect(r.body.toString()).not.toContain('"name": "posenc"');
  });
});

describe('validators: ETag and Last-Modified, 304 to a matching If-None-Match or If-Modified-Since', () => {
  let first;
  beforeAll(async () => {
    first = await get('/main.js');
  });

  test('every file carries a weak ETag, Last-Modified and Cache-Control: no-cache (a reload asks again)', () => {
    expect(first.headers.etag).toMatch(/^W\/"[0-9a-f]+-[0-9a-f]+-[0-9a-f]+"$/);
    expect(new Date(first.headers['last-modified']).getTime()).toBe(Math.floor(statSync(new URL('web/main.js', ROOT)).mtimeMs / 1000) * 1000);
    expect(first.headers['cache-control']).toBe('no-cache');
  });

  test.each([
    ['the same ETag', (e) => e],
    ['the ETag without W/ (weak comparison)', (e) => e.slice(2)],
    ['a list holding it', (e) => `"nope", ${e}`],
    ['*', () => '*'],
  ])('If-None-Match: %s -> 304, no body, the validators and the security headers', async (_, tag) => {
    const r = await ask('/main.js', { 'If-None-Match': tag(first.headers.etag) });
    expect(r.status).toBe(304);
    expect(r.body.length).toBe(0);
    expect(r.headers.etag).toBe(first.headers.etag);
    expect(r.headers['content-security-policy']).toBe(CSP);
  });

  test('If-None-Match with another tag -> 200 and the whole file; it wins over a matching If-Modified-Since', async () => {
    const r = await ask('/main.js', { 'If-None-Match': 'W/"0-0-0"', 'If-Modified-Since': 'Fri, 01 Jan 2100 00:00:00 GMT' });
    expect(r.status).toBe(200);
    expect(Buffer.compare(r.body, readFileSync(new URL('web/main.js', ROOT)))).toBe(0);
  });

  test('If-Modified-Since: at Last-Modified or later -> 304; earlier, or not a date -> 200', async () => {
    const at = first.headers['last-modified'];
    expect((await ask('/main.js', { 'If-Modified-Since': at })).status).toBe(304);
    const before = new Date(Date.parse(at) - 1000).toUTCString();
    expect((await ask('/main.js', { 'If-Modified-Since': before })).status).toBe(200);
    expect((await ask('/main.js', { 'If-Modified-Since': 'yesterday' })).status).toBe(200);
  });

  test('HEAD with a matching If-None-Match -> 304; a model file and a package file have validators too', async () => {
    expect((await ask('/main.js', { 'If-None-Match': first.headers.etag }, { method: 'HEAD' })).status).toBe(304);
    for (const target of ['/models/copy-rope.safetensors', '/dist/posenc.mjs', '/src/cli/torch.js']) {
      const { headers } = await get(target);
      expect((await ask(target, { 'If-None-Match': headers.etag })).status).toBe(304);
    }
  });
});

describe('compression: gzip, or brotli where accepted, made once per file version', () => {
  const TYPES = ['/', '/style.css', '/main.js', '/favicon.svg', '/dist/posenc.mjs', '/dist/posenc.wasm', '/models/manifest.json', '/models/copy-rope.safetensors'];
  const fileOf = (target) => readFileSync(new URL(target === '/' ? 'web/index.html' : target.startsWith('/dist/') ? target.slice(1) : `web${target}`, ROOT));

  test.each(TYPES)('GET %s with Accept-Encoding: gzip -> gzip that inflates to the file, Vary: Accept-Encoding, the same ETag', async (target) => {
    const plain = await get(target);
    const r = await ask(target, { 'Accept-Encoding': 'gzip' });
    expect(r.status).toBe(200);
    expect(r.headers['content-encoding']).toBe('gzip');
    expect(r.headers.vary).toBe('Accept-Encoding');
    expect(r.headers.etag).toBe(plain.headers.etag);
    expect(Number(r.headers['content-length'])).toBe(r.body.length);
    expect(r.body.length).toBeLessThan(fileOf(target).length);
    expect(Buffer.compare(gunzipSync(r.body), fileOf(target))).toBe(0);
  });

  test.each(['/dist/posenc.mjs', '/dist/posenc.wasm', '/models/copy-rope.safetensors'])(
    'GET %s with Accept-Encoding: br, gzip -> brotli once it is made (gzip meanwhile), decoding to the file',
    async (target) => {
      let r;
      for (let i = 0; i < 200; i++) { // brotli is made in the background: at most 10 s
        r = await ask(target, { 'Accept-Encoding': 'br, gzip' });
        if (r.headers['content-encoding'] === 'br') break;
        expect(r.headers['content-encoding']).toBe('gzip');
        await sleep(50);
      }
      expect(r.headers['content-encoding']).toBe('br');
      expect(Buffer.compare(brotliDecompressSync(r.body), fileOf(target))).toBe(0);
    },
    15000,
  );

  test.each([
    ['br;q=0, gzip', 'gzip'],
    ['gzip;q=0', undefined],
    ['identity', undefined],
    ['deflate', undefined],
    ['', undefined],
  ])('Accept-Encoding: "%s" -> Content-Encoding %s', async (accept, coding) => {
    const r = await ask('/dist/posenc.mjs', accept ? { 'Accept-Encoding': accept } : {});
    expect(r.headers['content-encoding']).toBe(coding);
    expect(r.headers.vary).toBe('Accept-Encoding');
    const body = coding ? gunzipSync(r.body) : r.body;
    expect(Buffer.compare(body, fileOf('/dist/posenc.mjs'))).toBe(0);
  });

  test('HEAD with gzip: the compressed length, no body', async () => {
    const g = await ask('/dist/posenc.mjs', { 'Accept-Encoding': 'gzip' });
    const h = await ask('/dist/posenc.mjs', { 'Accept-Encoding': 'gzip' }, { method: 'HEAD' });
    expect(h.headers['content-encoding']).toBe('gzip');
    expect(Number(h.headers['content-length'])).toBe(g.body.length);
    expect(h.body.length).toBe(0);
  });

  test('the cache gives the same compressed bytes for a version (made once), new ones for a new version, none for a version gone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'posenc-cache-'));
    try {
      const file = join(dir, 'a.js');
      const versionNow = async () => {
        const { open } = await import('node:fs/promises');
        const fh = await open(file);
        try {
          return versionOf(file, await fh.stat({ bigint: true }));
        } finally {
          await fh.close();
        }
      };
      writeFileSync(file, 'export const a = 1;\n'.repeat(100));
      const cache = createCache();
      const v1 = await versionNow();
      const a = await cache.body(v1, ['gzip']);
      const b = await cache.body(v1, ['gzip']);
      expect(a.bytes).toBe(b.bytes); // the same Buffer: compressed once
      writeFileSync(file, 'export const b = 2;\n'.repeat(120));
      utimesSync(file, new Date(), new Date(Date.now() + 5000));
      // v1's bytes are gone from the disk: a cache that never compressed v1 cannot make them under v1's tag
      expect(await createCache().body(v1, ['gzip'])).toBeNull();
      const v2 = await versionNow();
      expect(v2.etag).not.toBe(v1.etag);
      const c = await cache.body(v2, ['gzip']);
      expect(gunzipSync(c.bytes).toString()).toBe('export const b = 2;\n'.repeat(120));
      expect(cache.bytes).toBe(c.bytes.length); // the old version's body is not kept
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('bounded memory: pipelined GETs whose answers are never read (the server in a child process, its RSS from /proc)', () => {
  // The bound: 32 MB for V8's young generation growing under load, plus 2 MB
  // per connection: node:http parses every request of one socket read (64 KiB,
  // at most ~1,500 GETs of 45 bytes, ~1.3 KB of objects each) before the server
  // can refuse them. It does not grow with the requests a client pipelines: a
  // connection is answered one response at a time, the next only once the
  // previous one has left the process, and it is not read while requests
  // wait (clients that pipeline and read: tests/server/pipelining.test.js).
  // (The server before this bound: 2 sockets x 1,000 GETs, 44 MB -> 631 MB.)
  const bound = (sockets) => 32 + 2 * sockets;
  let child;
  let cport;
  const rss = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))[1]) / 1024;

  beforeAll(async () => {
    child = spawn(process.execPath, [fileURLToPath(new URL('tools/serve.mjs', ROOT)), '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const line = await new Promise((resolve) => child.stdout.once('data', (d) => resolve(String(d))));
    cport = Number(/:(\d+)\//.exec(line)[1]);
    // warm: every code path and compressed body the floods below use
    for (let i = 0; i < 20; i++) {
      for (const accept of ['', 'gzip', 'br']) await ask('/dist/posenc.mjs', accept ? { 'Accept-Encoding': accept } : {}, { to: cport });
    }
  }, 20000);
  afterAll(() => child?.kill());

  test.each([
    [2, 1000, ''],
    [2, 20000, ''],
    [50, 1000, ''],
    [50, 1000, 'gzip'],
  ])('%i sockets x %i pipelined GETs of dist/posenc.mjs (Accept-Encoding: "%s"), never read: RSS growth within the bound', async (sockets, requests, accept) => {
    await sleep(300);
    const base = rss();
    let peak = base;
    const sampler = setInterval(() => (peak = Math.max(peak, rss())), 10);
    const request = `GET /dist/posenc.mjs HTTP/1.1\r\nHost: x\r\n${accept ? `Accept-Encoding: ${accept}\r\n` : ''}\r\n`;
    const open = [];
    try {
      for (let i = 0; i < sockets; i++) {
        const socket = net.connect(cport, '127.0.0.1');
        socket.on('error', () => {});
        socket.pause(); // never read
        socket.write(request.repeat(requests));
        open.push(socket);
      }
      await sleep(1500);
    } finally {
      clearInterval(sampler);
      open.forEach((socket) => socket.destroy());
    }
    console.log(`${sockets} x ${requests} pipelined, never read: server RSS ${base.toFixed(0)} -> peak ${peak.toFixed(0)} MB (bound +${bound(sockets)} MB)`);
    expect(peak - base).toBeLessThan(bound(sockets));
    expect((await ask('/', {}, { to: cport })).status).toBe(200);
  }, 20000);
});

describe('hostile paths cannot escape web/', () => {
  test.each([
    '/../package.json', '/../../../../etc/passwd', '/views/../../package.json', '/..%2fpackage.json',
    '/%2e%2e/package.json', '/%2E%2E/%2E%2E/etc/passwd', '/%2e%2e%2fpackage.json', '/views%2f..%2f..%2fpackage.json',
    '/dist/..%2f..%2fpackage.json', '/..%5cpackage.json', '/%5c..%5cpackage.json', '/index.html%00.js',
    '/%00', '/./index.html', '/views/./table.js', '//etc/passwd', '///package.json', '/%252e%252e/package.json',
    '/..;/package.json', '/%c0%ae%c0%ae/package.json',
  ])('GET %s is refused (400 or 404)', async (target) => {
    const r = await get(target);
    expect([400, 404]).toContain(r.status);
    const body = r.body.toString();
    expect(body).not.toContain('"name": "posenc"');
    expect(body).not.toContain('root:');
    expect(body.length).toBeLessThan(100);
  });

  test.each(['http://127.0.0.1/etc/passwd', 'http://127.0.0.1/../package.json', '*', 'package.json', 'C:\\Windows\\win.ini'])(
    'a request target not starting with one slash (%s) gets 400',
    async (target) => {
      expect((await get(target)).status).toBe(400);
    },
  );

  test('a raw NUL byte or control character in the target never reaches the file system', async () => {
    const r = await raw(`GET /index.html\0.js HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    expect(r.status).toBe(400);
  });

  test.each(['/%zz', '/%', '/%E0%A4%A', '/%ff%fe', '/views/%c3%28.js', '/dist/posenc.mjs%'])('malformed encoding %s: 400', async (target) => {
    expect((await get(target)).status).toBe(400);
  });

  test('an encoded legitimate name still works (%6D%61in.js is main.js)', async () => {
    expect((await get('/%6D%61in.js')).status).toBe(200);
  });
});

describe('methods, sizes and load', () => {
  test.each(['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'PROPFIND'])('%s gets 405 with Allow: GET, HEAD', async (method) => {
    const r = await get('/', method);
    expect(r.status).toBe(405);
    expect(r.headers.allow).toBe('GET, HEAD');
  });

  test('a POST with a body gets 405 and the body is not echoed', async () => {
    const body = 'x'.repeat(10000);
    const r = await raw(`POST /index.html HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
    expect(r.status).toBe(405);
    expect(r.body.toString()).not.toContain('xxxx');
  });

  test('a long URL gets 414; a huge one is refused (414 or 431) and the server stays up', async () => {
    expect((await get(`/${'a'.repeat(3000)}`)).status).toBe(414);
    expect((await get(`/index.html?${'q'.repeat(5000)}`)).status).toBe(414);
    expect([414, 431]).toContain((await get(`/${'a'.repeat(200_000)}`)).status);
    expect((await get('/')).status).toBe(200);
  });

  test('garbage instead of HTTP gets 400 and the server stays up', async () => {
    const r = await raw('\x16\x03\x01\x02\x00hello\r\n\r\n');
    expect(r.status).toBe(400);
    expect((await raw('GET\r\n\r\n')).status).toBe(400);
    expect((await get('/')).status).toBe(200);
  });

  test('300 idle connections plus 200 concurrent requests: every request is answered', async () => {
    const idle = await Promise.all(
      Array.from({ length: 300 }, () => new Promise((resolve) => {
        const s = net.connect(port, '127.0.0.1', () => resolve(s));
        s.on('error', () => {});
        s.write('GET / HTTP/1.1\r\nHost: x\r\n'); // headers never finished
      })),
    );
    try {
      const results = await Promise.all(Array.from({ length: 200 }, (_, i) => get(i % 2 ? '/main.js' : '/dist/posenc.wasm')));
      expect(results.every((r) => r.status === 200)).toBe(true);
    } finally {
      idle.forEach((s) => s.destroy());
    }
  }, 20000);

  test('a keep-alive connection serves several requests in a row', async () => {
    const two = 'GET /main.js HTTP/1.1\r\nHost: x\r\n\r\nGET /style.css HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n';
    const r = await raw(two);
    expect(r.status).toBe(200);
    expect(r.body.toString()).toContain('HTTP/1.1 200 OK');
  });
});

describe('symlinks, odd files and slow clients (a scratch root: web/, dist/, src/cli/ and package.json)', () => {
  let scratch;
  let outside;
  let other;
  const at = (target, headers) => ask(target, headers, { to: other.address().port });

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'posenc-serve-'));
    outside = mkdtempSync(join(tmpdir(), 'posenc-outside-')); // outside the repository
    writeFileSync(join(outside, 'secret.js'), 'export const secret = "outside";\n');
    for (const dir of ['web', 'dist', 'src/cli', 'web/dir.js']) mkdirSync(join(scratch, dir), { recursive: true });
    writeFileSync(join(scratch, 'package.json'), PACKAGE_JSON);
    writeFileSync(join(scratch, 'web', 'main.js'), 'export {};\n');
    writeFileSync(join(scratch, 'dist', 'posenc.wasm'), 'wasm');
    writeFileSync(join(scratch, 'src', 'cli', 'torch.js'), 'export {};\n');
    writeFileSync(join(scratch, 'src', 'cli', 'main.js'), 'export {};\n');
    symlinkSync('../package.json', join(scratch, 'web', 'pkg.js')); // inside the repository, outside web/
    symlinkSync('../src/cli/main.js', join(scratch, 'web', 'cli.js')); // a package file, under a page name
    symlinkSync('../web/main.js', join(scratch, 'dist', 'posenc.mjs')); // a page file under a package name
    symlinkSync(join(outside, 'secret.js'), join(scratch, 'web', 'secret.js')); // out of the repository
    symlinkSync(outside, join(scratch, 'web', 'out')); // a folder out of the repository
    symlinkSync(join(outside, 'secret.js'), join(scratch, 'dist', 'posenc-chunk-secret.mjs')); // a shipped name (dist/posenc-chunk-*.mjs), out of the repository
    symlinkSync('/etc/passwd', join(scratch, 'web', 'passwd.js'));
    symlinkSync('main.js', join(scratch, 'web', 'alias.js')); // inside web/: fine
    symlinkSync('posenc.wasm', join(scratch, 'dist', 'posenc-chunk-alias.mjs')); // a package file to a package file: fine
    spawnSync('mkfifo', [join(scratch, 'web', 'fifo.js')]); // opening a FIFO to read would wait for a writer
    ({ server: other } = await listen({ port: 0, root: scratch, timeouts: { headers: 500, request: 1000 } }));
  });
  afterAll(async () => {
    await new Promise((resolve) => other.close(resolve));
    rmSync(scratch, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  test.each(['/pkg.js', '/cli.js', '/dist/posenc.mjs', '/secret.js', '/out/secret.js', '/dist/posenc-chunk-secret.mjs', '/passwd.js'])(
    'a symlink from %s to a file outside its served root (or the repository) gets 404',
    async (target) => {
      const r = await at(target);
      expect(r.status).toBe(404);
      expect(r.body.toString()).not.toMatch(/"name": "posenc"|outside|root:/);
    },
  );

  test('a folder and a FIFO under a served name get 404, at once', async () => {
    expect((await at('/dir.js')).status).toBe(404);
    expect((await at('/fifo.js')).status).toBe(404);
  });

  test('a symlink that stays inside its root is served; so are the plain files', async () => {
    expect((await at('/alias.js')).body.toString()).toBe('export {};\n');
    expect((await at('/dist/posenc-chunk-alias.mjs')).body.toString()).toBe('wasm');
    expect((await at('/main.js')).status).toBe(200);
    expect((await at('/dist/posenc.wasm')).status).toBe(200);
    expect((await at('/src/cli/torch.js')).status).toBe(200);
  });

  test('an edited file is a new version: a new ETag, the new bytes plain and compressed, the old ETag no longer 304', async () => {
    const file = join(scratch, 'web', 'edit.js');
    writeFileSync(file, 'export const v = 1;\n'.repeat(50));
    const one = await at('/edit.js', { 'Accept-Encoding': 'gzip' });
    expect(gunzipSync(one.body).toString()).toBe('export const v = 1;\n'.repeat(50));
    writeFileSync(file, 'export const v = 22;\n'.repeat(50));
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    const two = await at('/edit.js', { 'Accept-Encoding': 'gzip' });
    expect(two.headers.etag).not.toBe(one.headers.etag);
    expect(gunzipSync(two.body).toString()).toBe('export const v = 22;\n'.repeat(50));
    expect((await at('/edit.js')).body.toString()).toBe('export const v = 22;\n'.repeat(50));
    expect((await at('/edit.js', { 'If-None-Match': one.headers.etag })).status).toBe(200);
    expect((await at('/edit.js', { 'If-None-Match': two.headers.etag })).status).toBe(304);
  });

  test('headers that never finish get 408 Request Timeout, not 400', async () => {
    const r = await raw('GET / HTTP/1.1\r\nHost: x\r\n', { to: other.address().port, timeout: 10000 });
    expect(r.status).toBe(408);
  }, 15000);
});

describe("the package files served are package.json's \"files\" list, read at start", () => {
  let scratch;
  const files = (list) => {
    scratch = mkdtempSync(join(tmpdir(), 'posenc-files-'));
    for (const dir of ['web', 'dist', 'lib/deep']) mkdirSync(join(scratch, dir), { recursive: true });
    writeFileSync(join(scratch, 'package.json'), JSON.stringify({ name: 'x', files: list }));
    for (const f of ['web/index.html', 'dist/only.mjs', 'dist/other.mjs', 'dist/chunk-a.mjs', 'lib/deep/b.js']) writeFileSync(join(scratch, f), 'export {};\n');
    return scratch;
  };
  afterEach(() => rmSync(scratch, { recursive: true, force: true }));

  test('a file, a `*` pattern and a folder entry are served; nothing else', async () => {
    const { server: s } = await listen({ port: 0, root: files(['dist/only.mjs', 'dist/chunk-*.mjs', 'lib']) });
    try {
      const to = s.address().port;
      const status = async (t) => (await ask(t, {}, { to })).status;
      expect(await status('/dist/only.mjs')).toBe(200);
      expect(await status('/dist/chunk-a.mjs')).toBe(200);
      expect(await status('/lib/deep/b.js')).toBe(200);
      expect(await status('/dist/other.mjs')).toBe(404);
      expect(await status('/package.json')).toBe(404);
    } finally {
      await new Promise((resolve) => s.close(resolve));
    }
  });

  test.each([['dist/**'], ['!dist/other.mjs'], ['dist/[ab].mjs'], ['../outside.js']])('an entry the server does not read (%s) stops it at start, by name', (entry) => {
    expect(() => listen({ port: 0, root: files([entry]) })).toThrow(`package.json "files" entry ${JSON.stringify(entry)}`);
  });
});

describe('the command line', () => {
  const serve = fileURLToPath(new URL('tools/serve.mjs', ROOT));

  test('--port 0 listens on 127.0.0.1 and prints the URL', async () => {
    const child = spawn(process.execPath, [serve, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const line = await new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no URL printed within 5 s')), 5000);
        child.stdout.on('data', (d) => {
          clearTimeout(timer);
          resolve(String(d));
        });
      });
      const url = /http:\/\/127\.0\.0\.1:(\d+)\//.exec(line);
      expect(url).not.toBeNull();
      const res = await fetch(url[0]);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('<section id="table"');
    } finally {
      child.kill();
    }
  });

  test('a bad --port is refused with a message and exit code 2', () => {
    const r = spawnSync(process.execPath, [serve, '--port', 'http'], { encoding: 'utf8', timeout: 5000 });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--port must be an integer');
  });

  test('the probes above would have recognised package.json', () => {
    expect(PACKAGE_JSON).toContain('"name": "posenc"');
  });
});
