// The demo server's preconditions (RFC 9110 section 13): If-Match and
// If-Unmodified-Since answer 412 when they fail, If-None-Match and
// If-Modified-Since 304, in the order of 13.2.2; dates are HTTP-dates in
// their three forms (5.6.7), anything else is ignored.
import { readFileSync, statSync } from 'node:fs';
import { parseHttpDate, entityTags, preconditionStatus } from '../../tools/serve/conditionals.mjs';
import { ask, start } from './http.js';

const ROOT = new URL('../../', import.meta.url);
let s;
let etag;
let lastModified;
beforeAll(async () => {
  s = await start();
  ({ etag, 'last-modified': lastModified } = (await ask(s.port, '/main.js')).headers);
});
afterAll(() => s.close());

const mtime = () => Math.floor(statSync(new URL('web/main.js', ROOT)).mtimeMs / 1000) * 1000;
const imf = (ms) => new Date(ms).toUTCString();
const status = async (headers, method) => (await ask(s.port, '/main.js', headers, { method })).status;

describe('If-Match: strong comparison (RFC 9110 13.1.1); every ETag served is weak, so only * holds', () => {
  test.each([
    ['another tag', () => '"nope"'],
    ['another weak tag', () => 'W/"0-0-0"'],
    ['the ETag served (weak: never a strong match)', () => etag],
    ['its opaque tag, quoted (a strong tag that is not the resource\'s)', () => etag.slice(2)],
    ['a list of others', () => '"a", "b,c"'],
    ['not an entity tag', () => 'nope'],
    ['empty', () => ''],
  ])('%s -> 412, no file', async (_what, tag) => {
    const r = await ask(s.port, '/main.js', { 'If-Match': tag() });
    expect(r.status).toBe(412);
    expect(r.body.toString()).toBe('412 precondition failed\n');
  });
  test('* -> 200 and the file', async () => {
    const r = await ask(s.port, '/main.js', { 'If-Match': '*' });
    expect(r.status).toBe(200);
    expect(Buffer.compare(r.body, readFileSync(new URL('web/main.js', ROOT)))).toBe(0);
  });
  test('HEAD too; a missing file stays 404 whatever the precondition', async () => {
    expect(await status({ 'If-Match': '"nope"' }, 'HEAD')).toBe(412);
    expect((await ask(s.port, '/nothing.js', { 'If-Match': '"nope"' })).status).toBe(404);
  });
  test('If-Match wins over If-Unmodified-Since, which it makes ignored', async () => {
    expect(await status({ 'If-Match': '*', 'If-Unmodified-Since': imf(mtime() - 86400e3) })).toBe(200);
    expect(await status({ 'If-Match': '"nope"', 'If-Unmodified-Since': imf(mtime() + 86400e3) })).toBe(412);
  });
});

describe('If-Unmodified-Since', () => {
  test('before Last-Modified -> 412; at it or after -> 200', async () => {
    expect(await status({ 'If-Unmodified-Since': imf(mtime() - 1000) })).toBe(412);
    expect(await status({ 'If-Unmodified-Since': imf(mtime() - 86400e3 * 365 * 30) })).toBe(412);
    expect(await status({ 'If-Unmodified-Since': lastModified })).toBe(200);
    expect(await status({ 'If-Unmodified-Since': imf(mtime() + 1000) })).toBe(200);
  });
  test.each(['yesterday', '1', '0', '2001', 'Sun, 06 Nov 1994 08:49:37', 'Sun, 06 Nov 1994 08:49:37 GMT, Mon, 07 Nov 1994 08:49:37 GMT', 'Mon, 06 Nov 1994 08:49:37 GMT', 'Sun, 31 Feb 1994 08:49:37 GMT', ''])(
    'not an HTTP-date (%p): ignored -> 200', async (value) => {
      expect(await status({ 'If-Unmodified-Since': value })).toBe(200);
    });
  test('its obsolete forms are read too (rfc850, asctime)', async () => {
    expect(await status({ 'If-Unmodified-Since': 'Sunday, 06-Nov-94 08:49:37 GMT' })).toBe(412);
    expect(await status({ 'If-Unmodified-Since': 'Sun Nov  6 08:49:37 1994' })).toBe(412);
  });
  test('a failed If-Unmodified-Since answers 412 even beside a matching If-None-Match', async () => {
    expect(await status({ 'If-Unmodified-Since': imf(mtime() - 1000), 'If-None-Match': etag })).toBe(412);
  });
});

describe('If-None-Match and If-Modified-Since after them', () => {
  test('a matching If-None-Match -> 304 once the preconditions above hold', async () => {
    expect(await status({ 'If-Match': '*', 'If-None-Match': etag })).toBe(304);
    expect(await status({ 'If-Unmodified-Since': lastModified, 'If-None-Match': etag })).toBe(304);
  });
  test('an entity tag holding a comma is one tag, not two', async () => {
    expect(await status({ 'If-None-Match': `"x, ${etag}"` })).toBe(200);
  });
  test('If-Modified-Since that is not an HTTP-date is ignored (Date.parse would read "1" as 2001)', async () => {
    expect(await status({ 'If-Modified-Since': String(new Date().getFullYear() + 1) })).toBe(200);
  });
});

describe('the parsers, alone', () => {
  test('parseHttpDate: the three forms give one time; anything else NaN', () => {
    const t = Date.UTC(1994, 10, 6, 8, 49, 37);
    expect(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT')).toBe(t);
    expect(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT')).toBe(t);
    expect(parseHttpDate('Sun Nov  6 08:49:37 1994')).toBe(t);
    for (const bad of ['1', 'yesterday', '2026-01-01', 'sun, 06 nov 1994 08:49:37 gmt', 'Sun, 6 Nov 1994 08:49:37 GMT', 'Sun, 06 Nov 1994 24:00:00 GMT', 'Sun, 06 Nov 1994 08:49:37 UTC']) {
      expect(parseHttpDate(bad)).toBeNaN();
    }
  });
  test('entityTags: *, lists with empty elements, commas inside tags; null when malformed', () => {
    expect(entityTags(' * ')).toBe('*');
    expect(entityTags('W/"a", , "b,c"')).toEqual([{ weak: true, tag: 'a' }, { weak: false, tag: 'b,c' }]);
    for (const bad of ['a', '"a" "b"', 'W/a', '"a', '*, "a"', '']) expect(entityTags(bad)).toBeNull();
  });
  test('preconditionStatus follows 13.2.2 on a strong ETag too (If-Match then holds for it)', () => {
    const version = { etag: '"v1"', mtimeSeconds: 1000 };
    expect(preconditionStatus({ 'if-match': '"v1"' }, version)).toBe(200);
    expect(preconditionStatus({ 'if-match': 'W/"v1"' }, version)).toBe(412);
    expect(preconditionStatus({ 'if-none-match': 'W/"v1"' }, version)).toBe(304);
    expect(preconditionStatus({ 'if-modified-since': imf(1000e3) }, version)).toBe(304);
    expect(preconditionStatus({ 'if-modified-since': imf(999e3) }, version)).toBe(200);
    expect(preconditionStatus({ 'if-unmodified-since': imf(999e3) }, version)).toBe(412);
  });
});
