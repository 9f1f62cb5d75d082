// The demo server's choice of content coding from Accept-Encoding (RFC 9110
// 12.5.3): a weight is a qvalue from 0 to 1 with at most three decimals
// (12.4.2); a member with any other weight (q=-1, q=abc, q=2) is malformed and
// ignored, never read as q=1; the highest weight wins, brotli on a tie.
import { gunzipSync } from 'node:zlib';
import { acceptedCodings } from '../../tools/serve/versions.mjs';
import { ask, start } from './http.js';

test.each([
  ['gzip', ['gzip']],
  ['br, gzip', ['br', 'gzip']],
  ['gzip, br', ['br', 'gzip']], // a tie: brotli first
  ['gzip;q=1, br;q=0.5', ['gzip', 'br']],
  ['br;q=0.001, gzip;q=0.002', ['gzip', 'br']],
  ['gzip;q=-1', []],
  ['gzip;q=abc', []],
  ['gzip;q=1.5', []],
  ['gzip;q=2', []],
  ['gzip;q=0.0001', []],
  ['gzip;q=1.001', []],
  ['gzip;q=', []],
  ['gzip;q = 0.5', []],
  ['gzip;level=9', []],
  ['gzip;q=0.5;level=9', []],
  ['br;q=-1, gzip', ['gzip']],
  ['*;q=abc', []],
  ['GZIP;Q=0.5', ['gzip']],
  ['x-gzip', ['gzip']],
  ['gzip;q=0', []],
  ['gzip;q=0.000', []],
  ['gzip;q=1.000', ['gzip']],
  ['*', ['br', 'gzip']],
  ['*;q=0, gzip', ['gzip']],
  ['br;q=0, *', ['gzip']],
  ['identity', []],
  ['identity;q=1, gzip;q=0.5', []], // identity ranked above: the file as it is
  ['identity;q=0.5, gzip;q=0.5', ['gzip']],
  ['identity;q=0, gzip', ['gzip']],
  [', , gzip ,', ['gzip']],
  ['', []],
])('acceptedCodings(%p) = %p', (header, codings) => {
  expect(acceptedCodings(header)).toEqual(codings);
});

describe('over HTTP', () => {
  let s;
  beforeAll(async () => {
    s = await start();
  });
  afterAll(() => s.close());

  test.each(['gzip;q=-1', 'gzip;q=abc', 'gzip;q=5'])('Accept-Encoding: %s -> the file as it is', async (accept) => {
    const r = await ask(s.port, '/dist/posenc.mjs', { 'Accept-Encoding': accept });
    expect(r.status).toBe(200);
    expect(r.headers['content-encoding']).toBeUndefined();
    expect(r.headers.vary).toBe('Accept-Encoding');
  });

  test('Accept-Encoding: br;q=0.1, gzip;q=0.9 -> gzip, though brotli is ready', async () => {
    for (let i = 0; i < 200; i++) { // brotli is made in the background
      if ((await ask(s.port, '/dist/posenc.mjs', { 'Accept-Encoding': 'br' })).headers['content-encoding'] === 'br') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const r = await ask(s.port, '/dist/posenc.mjs', { 'Accept-Encoding': 'br;q=0.1, gzip;q=0.9' });
    expect(r.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(r.body).length).toBeGreaterThan(r.body.length);
  }, 15000);
});
