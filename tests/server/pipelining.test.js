// The demo server and clients that pipeline: every request written in one
// go is answered, in order, when the client reads the answers, however many
// there are; memory stays bounded because a connection whose queue is long
// is not read (the client's requests wait in its socket), not because the
// connection is closed. (Clients that never read: tests/demo/server.test.js,
// the server's RSS under pipelined floods.)
import { readFileSync } from 'node:fs';
import { ask, exchange, responses, start } from './http.js';

const ROOT = new URL('../../', import.meta.url);
let s;
beforeAll(async () => {
  s = await start();
});
afterAll(() => s.close());

const TARGETS = ['/main.js', '/style.css', '/favicon.svg', '/nothing.js'];
const pipelined = (n, target = (i) => TARGETS[i % TARGETS.length]) =>
  Array.from({ length: n }, (_, i) => `GET ${target(i)} HTTP/1.1\r\nHost: x\r\n${i === n - 1 ? 'Connection: close\r\n' : ''}\r\n`).join('');

// 5000 requests span several socket reads and more than QUEUE_MAX requests:
// answered only if the connection is not read while its queue is long
test.each([65, 100, 1000, 5000])('%i GETs pipelined in one write, every answer read: an answer each, in the order asked', async (n) => {
  const { bytes, closed } = await exchange(s.port, pipelined(n), { timeout: 30000 });
  const got = responses(bytes);
  expect(got.length).toBe(n);
  expect(closed).toBe(true); // after the last, which asked for it
  const types = { '/main.js': 'text/javascript', '/style.css': 'text/css', '/favicon.svg': 'image/svg+xml', '/nothing.js': 'text/plain' };
  expect(got.map((r) => r.headers['content-type'].split(';')[0])).toEqual(Array.from({ length: n }, (_, i) => types[TARGETS[i % TARGETS.length]]));
  expect(got.map((r) => r.status)).toEqual(Array.from({ length: n }, (_, i) => (TARGETS[i % TARGETS.length] === '/nothing.js' ? 404 : 200)));
  const main = readFileSync(new URL('web/main.js', ROOT));
  expect(Buffer.compare(got[0].body, main)).toBe(0);
  expect(Buffer.compare(got[Math.floor((n - 1) / 4) * 4].body, main)).toBe(0);
}, 40000);

test('100 pipelined GETs of a large file (dist/posenc.wasm), read slowly: every byte of every answer', async () => {
  const wasm = readFileSync(new URL('dist/posenc.wasm', ROOT));
  const { bytes } = await exchange(s.port, pipelined(100, () => '/dist/posenc.wasm'), { timeout: 30000 });
  const got = responses(bytes);
  expect(got.length).toBe(100);
  expect(got.every((r) => r.status === 200 && Buffer.compare(r.body, wasm) === 0)).toBe(true);
}, 40000);

test('two pipelining clients at once are each answered in their own order', async () => {
  const [a, b] = await Promise.all([
    exchange(s.port, pipelined(300, (i) => (i % 2 ? '/main.js' : '/style.css')), { timeout: 30000 }),
    exchange(s.port, pipelined(300, (i) => (i % 2 ? '/style.css' : '/favicon.svg')), { timeout: 30000 }),
  ]);
  expect(responses(a.bytes).map((r) => r.headers['content-type'].split(';')[0])).toEqual(Array.from({ length: 300 }, (_, i) => (i % 2 ? 'text/javascript' : 'text/css')));
  expect(responses(b.bytes).map((r) => r.headers['content-type'].split(';')[0])).toEqual(Array.from({ length: 300 }, (_, i) => (i % 2 ? 'text/css' : 'image/svg+xml')));
}, 40000);

test('the server answers other clients while one pipelines thousands', async () => {
  const flood = exchange(s.port, pipelined(3000, () => '/main.js'), { timeout: 30000 });
  const t0 = Date.now();
  const other = await ask(s.port, '/main.js');
  expect(other.status).toBe(200);
  expect(Date.now() - t0).toBeLessThan(5000);
  expect(responses((await flood).bytes).length).toBe(3000);
}, 40000);
