// http.js: raw HTTP/1.1 on loopback for the demo server's tests
// (tools/serve.mjs): requests reach it byte for byte, answers are split by
// hand, every exchange is bounded by a timeout.
import net from 'node:net';
import { listen } from '../../tools/serve.mjs';

/** Starts a server on a free port: { server, port, close() }. */
export async function start(options = {}) {
  const { server } = await listen({ port: 0, ...options });
  return { server, port: server.address().port, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** Splits a raw byte stream of HTTP/1.1 responses into [{ status, headers, body }] (bodies by Content-Length). */
export function responses(bytes, { head = false } = {}) {
  const out = [];
  let at = 0;
  while (at < bytes.length) {
    const end = bytes.indexOf('\r\n\r\n', at);
    if (end < 0) break;
    const lines = bytes.subarray(at, end).toString('latin1').split('\r\n');
    const headers = Object.fromEntries(lines.slice(1).map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
    const status = Number(lines[0].split(' ')[1]);
    const length = head || status === 304 ? 0 : Number(headers['content-length'] ?? 0);
    out.push({ status, headers, body: bytes.subarray(end + 4, end + 4 + length) });
    at = end + 4 + length;
  }
  return out;
}

/**
 * Writes `request` (one string: one request or many pipelined) on a new
 * connection and reads until the server closes it or `timeout` ms pass;
 * resolves to { bytes, closed } (closed: whether the server ended it).
 */
export function exchange(port, request, { timeout = 10000 } = {}) {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks = [];
    let closed = false;
    const timer = setTimeout(() => socket.destroy(), timeout);
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', () => {}); // a reset is an answer too: what arrived is checked
    socket.on('end', () => (closed = true));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ bytes: Buffer.concat(chunks), closed });
    });
    socket.write(request);
  });
}

/** One GET (or `method`) with extra headers, Connection: close: resolves to { status, headers, body }. */
export async function ask(port, target, headers = {}, { method = 'GET', timeout } = {}) {
  const fields = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  const { bytes } = await exchange(port, `${method} ${target} HTTP/1.1\r\nHost: x\r\n${fields}Connection: close\r\n\r\n`, { timeout });
  const [r] = responses(bytes, { head: method === 'HEAD' });
  return r ?? { status: NaN, headers: {}, body: Buffer.alloc(0) };
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
