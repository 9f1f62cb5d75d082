// Idle connections never lock a new client out of the demo server: past
// MAX_CONNECTIONS open connections, a newcomer closes the oldest one with no
// request under way (one that never finished its headers, or a keep-alive
// connection between requests); connections with a request under way stay.
import net from 'node:net';
import { MAX_CONNECTIONS } from '../../tools/serve.mjs';
import { ask, sleep, start } from './http.js';

let s;
beforeAll(async () => {
  s = await start({ timeouts: { headers: 5000, request: 10000 } });
});
afterAll(() => s.close());

/** n connections, one after another (so the server accepts them in order), each sent `request` once connected. */
async function openMany(n, request) {
  const sockets = [];
  for (let i = 0; i < n; i++) {
    sockets.push(await new Promise((resolve) => {
      const socket = net.connect(s.port, '127.0.0.1', () => {
        if (request) socket.write(request);
        resolve(socket);
      });
      socket.closedByServer = false;
      socket.resume(); // answers are read (and dropped), so the server's close is seen
      socket.on('error', () => {});
      socket.on('close', () => (socket.closedByServer = true));
    }));
  }
  return sockets;
}

const timed = async (call) => {
  const t0 = Date.now();
  const r = await call();
  return { r, ms: Date.now() - t0 };
};

test.each([
  ['connected, nothing sent', ''],
  ['headers started, never finished (slowloris)', 'GET / HTTP/1.1\r\nHost: x\r\n'],
  ['keep-alive, between requests', 'GET /favicon.svg HTTP/1.1\r\nHost: x\r\n\r\n'],
])(`${MAX_CONNECTIONS} idle connections (%s): a new client is answered at once, the oldest idle one closed`, async (_what, request) => {
  const idle = await openMany(MAX_CONNECTIONS, request);
  try {
    await sleep(200);
    const { r, ms } = await timed(() => ask(s.port, '/main.js', {}, { timeout: 4000 }));
    expect(r.status).toBe(200);
    expect(ms).toBeLessThan(2000); // not the 5 s header timeout
    await sleep(100);
    expect(idle[0].closedByServer).toBe(true);
    expect(idle.filter((x) => x.closedByServer).length).toBeLessThanOrEqual(2);
    // ten more newcomers, one after another: each answered
    for (let i = 0; i < 10; i++) expect((await ask(s.port, '/style.css', {}, { timeout: 4000 })).status).toBe(200);
  } finally {
    idle.forEach((x) => x.destroy());
    await sleep(200);
  }
}, 30000);

test('a connection with a request under way is not the one closed', async () => {
  // the oldest connection: more answers than the socket buffers hold (200 x 0.2 MB), never read
  const [busy] = await openMany(1, 'GET /dist/encoder.mjs HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(200));
  busy.pause();
  await sleep(100);
  const idle = await openMany(MAX_CONNECTIONS - 1, '');
  try {
    await sleep(200);
    expect((await ask(s.port, '/main.js', {}, { timeout: 4000 })).status).toBe(200);
    await sleep(100);
    expect(idle[0].closedByServer).toBe(true);
    // the busy connection, read now, still gets every byte of its 200 answers
    const size = (await ask(s.port, '/dist/encoder.mjs')).body.length;
    let received = 0;
    busy.on('data', (c) => (received += c.length));
    busy.resume();
    for (let i = 0; i < 100 && received < 200 * size; i++) await sleep(100);
    expect(received).toBeGreaterThan(200 * size);
    expect(busy.closedByServer).toBe(false);
  } finally {
    busy.destroy();
    idle.forEach((x) => x.destroy());
    await sleep(200);
  }
}, 30000);
