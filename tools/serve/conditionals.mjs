// conditionals.mjs: the preconditions of RFC 9110 section 13 on a GET or
// HEAD, against a file version's validators (serve/versions.mjs), and the
// HTTP-date they read (section 5.6.7).
//
// Evaluated in the order of section 13.2.2:
//   1. If-Match: false unless a listed tag matches strongly (13.1.1; every
//      ETag this server makes is weak, W/"...", so only `*` can match) -> 412;
//   2. without If-Match, If-Unmodified-Since (a valid HTTP-date): false when
//      the file changed after it -> 412;
//   3. If-None-Match: false when a listed tag matches weakly, or `*` -> 304;
//   4. without If-None-Match, If-Modified-Since (a valid HTTP-date): false
//      when the file has not changed since -> 304.
// A field that is not a valid date is ignored (13.1.3, 13.1.4); an entity-tag
// list that does not parse matches nothing.

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const LONG_DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';
const month = `(${MONTHS.join('|')})`;
// IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
const IMF = new RegExp(`^(${DAYS.join('|')}), (\\d{2}) ${month} (\\d{4}) ${TIME} GMT$`);
// rfc850-date (obsolete): Sunday, 06-Nov-94 08:49:37 GMT
const RFC850 = new RegExp(`^(${LONG_DAYS.join('|')}), (\\d{2})-${month}-(\\d{2}) ${TIME} GMT$`);
// asctime-date (obsolete): Sun Nov  6 08:49:37 1994
const ASCTIME = new RegExp(`^(${DAYS.join('|')}) ${month} ([ \\d]\\d) ${TIME} (\\d{4})$`);

/**
 * The time (ms since the epoch) of an HTTP-date in any of its three forms
 * (RFC 9110 5.6.7), or NaN for anything else: Date.parse takes far more
 * ("1", "yesterday" in some engines), which the RFC says to ignore.
 */
export function parseHttpDate(text) {
  const s = String(text).trim();
  let day;
  let mon;
  let year;
  let h;
  let m;
  let sec;
  let weekday;
  let match;
  if ((match = IMF.exec(s))) [, weekday, day, mon, year, h, m, sec] = match;
  else if ((match = RFC850.exec(s))) {
    [, weekday, day, mon, year, h, m, sec] = match;
    weekday = weekday.slice(0, 3);
    // a two-digit year more than 50 years ahead is the most recent past year with those digits
    const now = new Date().getUTCFullYear();
    year = Math.floor(now / 100) * 100 + Number(year);
    if (year > now + 50) year -= 100;
  } else if ((match = ASCTIME.exec(s))) [, weekday, mon, day, h, m, sec, year] = match;
  else return NaN;
  const [Y, M, D, H, Mi, S] = [Number(year), MONTHS.indexOf(mon), Number(day), Number(h), Number(m), Number(sec)];
  if (D < 1 || H > 23 || Mi > 59 || S > 60) return NaN;
  const time = Date.UTC(Y, M, D, H, Mi, Math.min(S, 59)); // a leap second reads as :59
  const date = new Date(time);
  // 31 Feb is no date, and the weekday must be that date's
  if (date.getUTCDate() !== D || DAYS[date.getUTCDay()] !== weekday) return NaN;
  return time;
}

/**
 * An If-Match / If-None-Match field: '*', or [{ weak, tag }] of its entity
 * tags (RFC 9110 8.8.3: W/"..." or "...", the quotes holding any visible
 * character but `"`, commas included), or null when it does not parse.
 */
export function entityTags(field) {
  const s = String(field).trim();
  if (s === '*') return '*';
  const tags = [];
  const re = /\s*(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"\s*(,|$)/y;
  let at = 0;
  while (at < s.length) {
    // empty list elements are allowed (RFC 9110 5.6.1): `, , "a"`
    const comma = /\s*,/y;
    comma.lastIndex = at;
    if (comma.test(s)) {
      at = comma.lastIndex;
      continue;
    }
    re.lastIndex = at;
    const m = re.exec(s);
    if (!m) return null;
    tags.push({ weak: m[1] !== undefined, tag: m[2] });
    at = re.lastIndex;
  }
  return tags.length ? tags : null;
}

/** The weak and strong comparisons of RFC 9110 8.8.3.2, against an ETag this server made (W/"..."). */
const opaque = (etag) => etag.replace(/^W\//, '').slice(1, -1);
const weakMatch = (tags, etag) => tags === '*' || (tags !== null && tags.some((t) => t.tag === opaque(etag)));
const strongMatch = (tags, etag) => tags === '*' || (tags !== null && !etag.startsWith('W/') && tags.some((t) => !t.weak && t.tag === opaque(etag)));

/**
 * What the preconditions of a GET or HEAD make of the answer for a file
 * version ({ etag, mtimeSeconds }): 200 (serve it), 304 or 412.
 */
export function preconditionStatus(headers, version) {
  const modified = version.mtimeSeconds * 1000; // Last-Modified's resolution
  const ifMatch = headers['if-match'];
  if (ifMatch !== undefined) {
    if (!strongMatch(entityTags(ifMatch), version.etag)) return 412;
  } else if (headers['if-unmodified-since'] !== undefined) {
    const since = parseHttpDate(headers['if-unmodified-since']);
    if (Number.isFinite(since) && modified > since) return 412;
  }
  const ifNoneMatch = headers['if-none-match'];
  if (ifNoneMatch !== undefined) return weakMatch(entityTags(ifNoneMatch), version.etag) ? 304 : 200;
  if (headers['if-modified-since'] !== undefined) {
    const since = parseHttpDate(headers['if-modified-since']);
    if (Number.isFinite(since) && modified <= since) return 304;
  }
  return 200;
}
