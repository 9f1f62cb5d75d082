// The demo server (tools/serve.mjs) under hostile requests: raw HTTP on
// loopback, so request targets reach it byte for byte (no client-side
// normalization of `..` or encodings), every exchange bounded by a timeout.
import net from 'node:net';
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listen, CSP } from '../../tools/serve.mjs';

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
    ['/train/copy-models.js', 'text/javascript; charset=utf-8'],
    ['/draw/heatmap.js', 'text/javascript; charset=utf-8'],
    ['/models/copy-task.js', 'text/javascript; charset=utf-8'],
    ['/models/manifest.json', 'application/json; charset=utf-8'],
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
    '/serve.mjs', '/dist/posenc.cjs', '/dist/posenc.d.ts', '/package.json', '/Makefile', '/src/js/index.js',
    '/web/index.html', '/tests/helpers.js', '/dist/posenc-chunk-.mjs', '/dist/other.mjs', '/dist/posenc.wasm.map', '/.git/config', '/.gitignore', '/views/', '/nothing.js', '/views/a/b.js',
    '/manifest.json', '/models/other.json', '/models/sub/copy-rope.safetensors', '/copy-rope.safetensors', '/views/x.safetensors', '/models/.safetensors',
  ])('GET %s: 404, nothing outside the page and the package files', async (target) => {
    const r = await get(target);
    expect(r.status).toBe(404);
    expect(r.body.toString()).not.toContain('"name": "posenc"');
  });
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

describe('symlinks and slow clients (a scratch root: web/, dist/, src/cli/ and package.json)', () => {
  let scratch;
  let other;
  const at = (target) => raw(`GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, { to: other.address().port });

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'posenc-serve-'));
    for (const dir of ['web', 'dist', 'src/cli']) mkdirSync(join(scratch, dir), { recursive: true });
    writeFileSync(join(scratch, 'package.json'), PACKAGE_JSON);
    writeFileSync(join(scratch, 'web', 'main.js'), 'export {};\n');
    writeFileSync(join(scratch, 'dist', 'posenc.wasm'), 'wasm');
    writeFileSync(join(scratch, 'src', 'cli', 'torch.js'), 'export {};\n');
    writeFileSync(join(scratch, 'src', 'cli', 'main.js'), 'export {};\n');
    symlinkSync('../package.json', join(scratch, 'web', 'pkg.js')); // inside the repository, outside web/
    symlinkSync('../src/cli/main.js', join(scratch, 'web', 'cli.js')); // a file not served
    symlinkSync('../web/main.js', join(scratch, 'dist', 'posenc.mjs')); // a page file under a package name
    symlinkSync('main.js', join(scratch, 'web', 'alias.js')); // inside web/: fine
    ({ server: other } = await listen({ port: 0, root: scratch, timeouts: { headers: 500, request: 1000 } }));
  });
  afterAll(async () => {
    await new Promise((resolve) => other.close(resolve));
    rmSync(scratch, { recursive: true, force: true });
  });

  test.each(['/pkg.js', '/cli.js', '/dist/posenc.mjs'])('a symlink from %s to a file outside its served folder gets 404', async (target) => {
    const r = await at(target);
    expect(r.status).toBe(404);
    expect(r.body.toString()).not.toContain('"name": "posenc"');
  });

  test('a symlink that stays inside web/ is served; so are the plain files', async () => {
    expect((await at('/alias.js')).body.toString()).toBe('export {};\n');
    expect((await at('/main.js')).status).toBe(200);
    expect((await at('/dist/posenc.wasm')).status).toBe(200);
    expect((await at('/src/cli/torch.js')).status).toBe(200);
  });

  test('headers that never finish get 408 Request Timeout, not 400', async () => {
    const r = await raw('GET / HTTP/1.1\r\nHost: x\r\n', { to: other.address().port, timeout: 10000 });
    expect(r.status).toBe(408);
  }, 15000);
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
      expect(await res.text()).toContain('<canvas');
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
