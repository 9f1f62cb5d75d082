// serve.mjs: the demo server (`make demo`). Node's http only; binds 127.0.0.1.
//
//   node tools/serve.mjs [--port N]      (default 8080; 0 picks a free port)
//
// What it serves, and the path checks: serve/paths.mjs (web/, and exactly the
// files package.json's "files" list ships). How it serves them:
//   - validators: a weak ETag and Last-Modified per file version, and the
//     preconditions of RFC 9110 section 13 (serve/conditionals.mjs): 412 to
//     a failed If-Match or If-Unmodified-Since, 304 to a matching
//     If-None-Match (or If-Modified-Since); Cache-Control: no-cache, so a
//     reload asks again and an edit shows at once;
//   - compression: gzip, or brotli, as Accept-Encoding's weights rank them
//     (RFC 9110 12.5.3; a malformed weight is no weight), for every type
//     served, made once per file version and kept (serve/versions.mjs), with
//     Vary: Accept-Encoding; anything else is streamed from the file;
//   - pipelining and bounded memory: a connection's requests are answered
//     one at a time, in order, the next one only once the previous response
//     has left the process (its 'finish': the socket took the last byte);
//     a connection with QUEUE_PAUSE requests waiting is not read until they
//     fall below it, so a client may pipeline any number of requests and
//     read the answers. QUEUE_MAX waiting on one connection (more than a
//     socket read holds), or any while the whole server has TOTAL_QUEUED
//     waiting, closes it. A response holds a shared compressed body or a
//     STREAM_CHUNK read buffer, never a copy of a file per request;
//   - connections: past MAX_CONNECTIONS, a new one closes the oldest idle
//     one (no request under way), so idle sockets never lock a client out;
//   - time limits: 408 for headers slower than 5 s (slowloris), 10 s for a
//     whole request, a connection idle 30 s (a client that stops reading) is closed;
//   - the page's security headers on every answer (a strict CSP above all).
// Tests start it with createServer({ root }) or listen({ port: 0, root }).
import http from 'node:http';
import { constants as fsConstants } from 'node:fs';
import { open, realpath, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { HttpError, MIME, extension, resolveTarget, servedRoots } from './serve/paths.mjs';
import { preconditionStatus } from './serve/conditionals.mjs';
import { acceptedCodings, compressible, createCache, versionOf } from './serve/versions.mjs';

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

const HEADERS = {
  'Content-Security-Policy': CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'X-Frame-Options': 'DENY',
  'Cache-Control': 'no-cache',
};

export const QUEUE_PAUSE = 8; // requests waiting on one connection before it is no longer read
// A safety net: more than one socket read can hold (64 KiB of the shortest
// requests, 18 bytes), so a connection whose reading pauses never reaches it.
export const QUEUE_MAX = 4096;
export const TOTAL_QUEUED = 16384; // requests waiting on all connections before a connection adding one is closed
export const MAX_CONNECTIONS = 1024; // open connections; past it the oldest idle one is closed for the newcomer
const SPARE_CONNECTIONS = 64; // accepted past MAX_CONNECTIONS while idle ones close
export const STREAM_CHUNK = 16 << 10; // the read buffer of a file streamed as it is
const IDLE_MS = 30_000;

// O_NOFOLLOW: the real path was checked; a symlink put there since is refused.
// O_NONBLOCK: a FIFO put there since cannot stall the open.
const OPEN_FLAGS = fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK;

const headersOf = (real, version) => ({
  ...HEADERS,
  'Content-Type': MIME[extension(real)],
  ETag: version.etag,
  'Last-Modified': version.lastModified,
  ...(compressible(real, version.size) ? { Vary: 'Accept-Encoding' } : {}),
});

/**
 * Answers one request, or throws an HttpError. The work per request is the
 * path checks (the target's segments, realpath, stat) and then one of: a 304,
 * a compressed body already made, or the file streamed from an open handle.
 */
async function answer(req, res, roots, cache) {
  if (req.method !== 'GET' && req.method !== 'HEAD') throw new HttpError(405, 'method not allowed');
  const { kind, file } = resolveTarget(req.url, roots.isPackageFile);
  let real;
  let version;
  try {
    real = await realpath(join(roots.realRoot, ...file.split('/')));
    if (!roots.check(kind, real)) throw new Error('outside its root');
    const stats = await stat(real, { bigint: true });
    if (!stats.isFile()) throw new Error('not a file');
    version = versionOf(real, stats);
  } catch {
    throw new HttpError(404, 'not found');
  }
  const status = preconditionStatus(req.headers, version);
  if (status === 412) throw new HttpError(412, 'precondition failed');
  if (status === 304) {
    res.writeHead(304, headersOf(real, version));
    return res.end();
  }
  const body = compressible(real, version.size) ? await cache.body(version, acceptedCodings(req.headers['accept-encoding'])) : null;
  if (body) {
    res.writeHead(200, { ...headersOf(real, version), 'Content-Encoding': body.coding, 'Content-Length': body.bytes.length });
    return res.end(req.method === 'HEAD' ? undefined : body.bytes);
  }
  // As it is, streamed from the open file: the headers name the version of that file.
  let fh;
  try {
    fh = await open(real, OPEN_FLAGS);
    const stats = await fh.stat({ bigint: true });
    if (!stats.isFile()) throw new HttpError(404, 'not found');
    version = versionOf(real, stats);
    res.writeHead(200, { ...headersOf(real, version), 'Content-Length': version.size });
    if (req.method === 'HEAD' || version.size === 0) return res.end();
    // this version's length only, so Content-Length holds if the file grows meanwhile
    const stream = fh.createReadStream({ highWaterMark: STREAM_CHUNK, start: 0, end: version.size - 1 });
    fh = null; // the stream closes it
    pipeline(stream, res, () => {});
  } catch (error) {
    throw error instanceof HttpError ? error : new HttpError(404, 'not found');
  } finally {
    await fh?.close();
  }
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
 * The per-connection queue: requests answered one at a time, in order, each
 * once the previous response has finished (or its connection closed).
 *
 * node:http parses every request of one socket read (64 KiB) before any is
 * answered, so a client that pipelines many requests in one write has them
 * all parsed and queued here at once. What bounds memory is that a connection
 * with QUEUE_PAUSE requests waiting is not read again until they are fewer:
 * the rest of what the client wrote waits in its socket, however much it is.
 * node:http resumes reading on its own (each request's body is read through
 * the socket; a drained socket restarts it), so every resume of a socket
 * whose queue is long is undone at once, before any read can happen.
 */
function createQueues() {
  let total = 0;
  const queues = new WeakMap();
  const queueOf = (socket) => {
    let q = queues.get(socket);
    if (!q) {
      q = { jobs: [], busy: false, paused: false };
      queues.set(socket, q);
      socket.on('resume', () => {
        if (q.paused) socket.pause();
      });
      socket.once('close', () => {
        total -= q.jobs.length;
        q.jobs.length = 0;
      });
    }
    return q;
  };
  const next = (socket, q) => {
    const job = q.jobs.shift();
    if (!job) {
      q.busy = false;
      return;
    }
    total--;
    q.busy = true;
    if (q.paused && q.jobs.length < QUEUE_PAUSE && !socket.destroyed) {
      q.paused = false;
      socket.resume();
    }
    job().then(() => next(socket, q));
  };
  return {
    /** job(): a promise that settles when its response is done with. */
    add(socket, job) {
      if (socket.destroyed) return; // the rest of a read that held more requests than allowed
      const q = queueOf(socket);
      if (q.jobs.length >= QUEUE_MAX || total >= TOTAL_QUEUED) return socket.destroy();
      q.jobs.push(job);
      total++;
      if (q.jobs.length >= QUEUE_PAUSE && !q.paused) {
        q.paused = true;
        socket.pause();
      }
      if (!q.busy) next(socket, q);
    },
    /** Whether a connection has a request under way or waiting. */
    busy(socket) {
      const q = queues.get(socket);
      return q !== undefined && (q.busy || q.jobs.length > 0);
    },
  };
}

/**
 * Keeps at most MAX_CONNECTIONS connections open: a new one past it closes
 * the oldest connection with no request under way or waiting (a keep-alive
 * connection between requests, or one that has not finished its headers), so
 * that idle sockets never lock a new client out; when every connection is
 * busy, the newcomer is closed instead.
 */
function boundConnections(server, queues) {
  const open = new Set(); // oldest first
  server.maxConnections = MAX_CONNECTIONS + SPARE_CONNECTIONS;
  server.on('connection', (socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
    if (open.size <= MAX_CONNECTIONS) return;
    let victim = socket;
    for (const s of open) {
      if (s !== socket && !queues.busy(s)) {
        victim = s;
        break;
      }
    }
    open.delete(victim);
    victim.destroy();
  });
}

/**
 * An http.Server for the demo, not yet listening. `root` is the repository
 * (the folder holding web/, dist/ and package.json); by default the one this
 * file is in. `timeouts` (ms): for the headers and for the whole request.
 */
export function createServer({
  root = join(dirname(fileURLToPath(import.meta.url)), '..'),
  timeouts: { headers = 5_000, request = 10_000 } = {},
} = {}) {
  const roots = servedRoots(root);
  const cache = createCache();
  const queues = createQueues();
  const options = { headersTimeout: headers, requestTimeout: request, connectionsCheckingInterval: Math.min(1_000, headers) };
  const server = http.createServer(options, (req, res) => {
    // Request bodies are never read: drain them so a client that sends one cannot stall us.
    req.resume();
    queues.add(req.socket, () => new Promise((done) => {
      res.once('close', done);
      answer(req, res, roots, cache).catch((error) => fail(req, res, error));
    }));
  });
  server.keepAliveTimeout = 5_000;
  // no cap on the requests of one connection: the 1,001st of a client's
  // pipelined requests would get a 503 (node:http's maxRequestsPerSocket),
  // and its queue is what bounds memory (createQueues)
  boundConnections(server, queues);
  server.setTimeout(IDLE_MS); // no timeout listener: node:http closes the idle socket
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
