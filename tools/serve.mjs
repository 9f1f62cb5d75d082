// serve.mjs: the demo server. Node's http only; binds 127.0.0.1.
//
//   node tools/serve.mjs [--port N]      (default 8080; 0 picks a free port)
//
// It serves the page (web/*.html|css|js|svg, web/views/*.js), the trained
// models (web/models/*.safetensors and manifest.json, fetched by the "train
// short, test long" view and its worker) and the package files the page may
// load (dist/posenc.mjs, its chunks, the wasm), nothing else: every request path is checked segment by segment before it touches the
// file system, so `..`, encoded dots or slashes, NUL bytes and absolute-form
// targets cannot reach outside web/, and a symlink whose real path leaves its
// served folder is not followed. Tests start it with createServer({ root }).
import http from 'node:http';
import { readFile, realpath, stat } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The Content-Security-Policy of the page: no inline script, no eval, same origin only. */
export const CSP = [
  "default-src 'none'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.wasm': 'application/wasm',
  '.json': 'application/json; charset=utf-8',
  '.safetensors': 'application/octet-stream',
};

// Page files are any web/ file with one of these extensions.
const PAGE_EXTENSIONS = new Set(['.html', '.css', '.js', '.svg']);
// Package files: the ESM entry, the chunks it imports (the bundler names them
// posenc-chunk-HASH.mjs), the wasm builds, and the torch-style printer the
// notebook view shares with the CLI. Not the CommonJS build, not the type
// declarations: the page never loads them.
const SHARED_FILE = 'src/cli/torch.js';
const PACKAGE_FILE =
  /^dist\/(?:posenc|encoder)(?:-chunk-[A-Za-z0-9_-]+)?\.mjs$|^dist\/posenc(?:-encoder)?(?:-baseline)?\.wasm$|^src\/cli\/torch\.js$/;

// The model files: only under models/, only these two kinds (no other .json anywhere).
const MODEL_FILE = /^models\/(?:[A-Za-z0-9_-]+\.safetensors|manifest\.json)$/;

const MAX_URL = 2048; // longer request targets get 414
const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/; // no leading dot: no `.`, `..` or dotfiles

const HEADERS = {
  'Content-Security-Policy': CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'X-Frame-Options': 'DENY',
  'Cache-Control': 'no-cache',
};

const extension = (name) => {
  const dot = name.lastIndexOf('.');
  return dot < 0 ? '' : name.slice(dot).toLowerCase();
};

class HttpError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/**
 * Maps a raw request target to a repository-relative file, or throws an
 * HttpError. Decoding happens once, per segment, after splitting on the raw
 * `/`: an encoded slash (%2f) or backslash stays inside its segment and fails
 * the segment pattern, as do `..`, `%2e%2e` and NUL.
 */
export function resolveTarget(target) {
  if (typeof target !== 'string' || !target.startsWith('/') || target.startsWith('//')) {
    throw new HttpError(400, 'bad request target');
  }
  if (target.length > MAX_URL) throw new HttpError(414, 'URI too long');
  const raw = target.split(/[?#]/, 1)[0];
  let segments;
  try {
    segments = raw.slice(1).split('/').map((s) => decodeURIComponent(s));
  } catch {
    throw new HttpError(400, 'malformed percent-encoding');
  }
  if (segments.length === 1 && segments[0] === '') return 'web/index.html';
  if (!segments.every((s) => SEGMENT.test(s))) {
    const hostile = segments.some((s) => s === '.' || s === '..' || /[\0\\/]/.test(s));
    throw new HttpError(hostile ? 400 : 404, hostile ? 'bad path' : 'not found');
  }
  const path = segments.join('/');
  if (PACKAGE_FILE.test(path)) return path;
  if (MODEL_FILE.test(path)) return `web/${path}`;
  if (segments.length > 2 || !PAGE_EXTENSIONS.has(extension(path))) throw new HttpError(404, 'not found');
  return `web/${path}`;
}

async function handle(req, res, root) {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    throw new HttpError(405, 'method not allowed');
  }
  const relative = resolveTarget(req.url);
  const file = join(root, ...relative.split('/'));
  // The file's real path (symlinks followed) must still be in what is served:
  // web/ for a page file, dist/ for a package file, the one shared CLI file.
  let real;
  let served;
  try {
    real = await realpath(file);
    if (!(await stat(real)).isFile()) throw new Error('not a file');
    const top = relative.split('/')[0];
    served = top === 'web' || top === 'dist' ? (await realpath(join(root, top))) + sep : await realpath(join(root, ...SHARED_FILE.split('/')));
  } catch {
    throw new HttpError(404, 'not found');
  }
  if (served.endsWith(sep) ? !real.startsWith(served) : real !== served) throw new HttpError(404, 'not found');
  const body = await readFile(real);
  res.writeHead(200, {
    ...HEADERS,
    'Content-Type': MIME[extension(real)] ?? 'application/octet-stream',
    'Content-Length': body.length,
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}

function fail(req, res, error) {
  const status = error instanceof HttpError ? error.status : 500;
  const text = `${status} ${error instanceof HttpError ? error.message : 'internal error'}\n`;
  if (res.headersSent) return res.destroy();
  const headers = { ...HEADERS, 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text) };
  if (status === 405) headers.Allow = 'GET, HEAD';
  res.writeHead(status, headers);
  res.end(req.method === 'HEAD' ? undefined : text);
}

/**
 * An http.Server for the demo, not yet listening. `root` is the repository
 * (the folder holding web/ and dist/); by default the one this file is in.
 * `timeouts` (ms): for the headers and for the whole request.
 */
export function createServer({
  root = join(dirname(fileURLToPath(import.meta.url)), '..'),
  timeouts: { headers = 5_000, request = 10_000 } = {},
} = {}) {
  const options = { headersTimeout: headers, requestTimeout: request, connectionsCheckingInterval: Math.min(1_000, headers) };
  const server = http.createServer(options, (req, res) => {
    // Request bodies are never read: drain them so a client that sends one cannot stall us.
    req.resume();
    realpath(root)
      .then((realRoot) => handle(req, res, realRoot))
      .catch((error) => fail(req, res, error));
  });
  server.keepAliveTimeout = 5_000;
  server.maxRequestsPerSocket = 1000;
  // A malformed request line, an oversized header, or a client too slow to
  // send its request: answer if the socket is still writable.
  server.on('clientError', (error, socket) => {
    if (!socket.writable) return socket.destroy();
    const status = { HPE_HEADER_OVERFLOW: 431, ERR_HTTP_REQUEST_TIMEOUT: 408 }[error.code] ?? 400;
    socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  });
  return server;
}

/** Starts a server on 127.0.0.1:port; resolves to { server, url }. */
export function listen({ port = 8080, root, timeouts } = {}) {
  const server = createServer({ root, timeouts });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve({ server, url: `http://127.0.0.1:${server.address().port}/` });
    });
  });
}

function parsePort(argv) {
  const i = argv.indexOf('--port');
  if (i < 0) return 8080;
  const text = argv[i + 1] ?? '';
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) {
    console.error(`serve.mjs: --port must be an integer from 0 to 65535, got ${JSON.stringify(text)}`);
    process.exit(2);
  }
  return port;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const port = parsePort(process.argv.slice(2));
  listen({ port }).then(
    ({ url }) => console.log(`posenc demo: ${url}`),
    (error) => {
      const hint = error.code === 'EADDRINUSE' ? ` (port ${port} is in use: try make demo PORT=8081)` : '';
      console.error(`serve.mjs: cannot listen on 127.0.0.1:${port}: ${error.message}${hint}`);
      process.exit(1);
    },
  );
}
