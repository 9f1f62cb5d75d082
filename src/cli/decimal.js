// decimal.js: numbers as the CLI's CSV and JSON write them, straight into
// byte buffers (no string per value: formatting is what a text format costs).
// A float32 value is written as the shortest decimal that reads back (through
// Math.fround) as the same float32, spelled as JavaScript's Number::toString
// spells it (ECMA-262, Number::toString: plain digits from 1e-7 up to 1e21,
// exponent notation outside). float64 and int32 values are written as String(v).

// 10^k correctly rounded, for every k a float32 needs (denormals down to
// 1.4e-45 with nine digits past them; the largest float32 is 3.4e38).
const POW10_MIN = -60;
const POW10 = Array.from({ length: 121 }, (_, i) => Number(`1e${i + POW10_MIN}`));
const pow10 = (k) => POW10[k - POW10_MIN];

// A float32 never needs more than 9 significant digits to read back (IEEE 754-2008, 5.12.2).
const MAX_DIGITS = 9;
// The decimals below are formed in doubles: each step is off by a few units in
// the last place at most (2^-52 relative). Closer than this to a rounding tie,
// doubles cannot decide, and the exact definition answers instead.
const SLACK = 2 ** -40;

/**
 * The definition: the fewest significant digits p whose toPrecision(p) reads
 * back as the float32 v. Exact, and several times slower than the double
 * arithmetic below, which falls back to it where doubles cannot decide.
 */
export function shortestFloat32Exact(v) {
  for (let p = 1; p < MAX_DIGITS; p++) {
    const s = Number(v.toPrecision(p));
    if (Math.fround(s) === v) return String(s);
  }
  return String(Number(v.toPrecision(MAX_DIGITS)));
}

// The result of digitsOf: |v| = digits * 10^-scale.
let digits = 0;
let scale = 0;

/**
 * The shortest digits of a finite nonzero float32 v into `digits` and `scale`,
 * or false where doubles cannot decide. toPrecision(p) rounds |v| * 10^s to the
 * nearest integer n (s = p - 1 - exponent; ties away from zero), and n * 10^-s
 * reads back as v when it rounds to v in float32.
 */
function digitsOf(v) {
  const a = Math.abs(v);
  let e = Math.floor(Math.log10(a)); // a = m * 10^e, 1 <= m < 10
  if (a * pow10(-e) >= 10) e += 1;
  else if (a * pow10(-e) < 1) e -= 1;
  // If p digits read back, so do p + 1 (the nearest (p+1)-digit decimal is at
  // least as near as the nearest p-digit one): search for the fewest.
  let lo = 1;
  let hi = MAX_DIGITS;
  let found = false;
  while (lo <= hi) {
    const p = (lo + hi) >> 1;
    const s = p - 1 - e;
    const x = a * pow10(s);
    if (Math.abs(x - Math.floor(x) - 0.5) <= x * SLACK) return false;
    const n = Math.round(x);
    const d = n * pow10(-s);
    const up = Math.fround(d * (1 + SLACK)) === a;
    const down = Math.fround(d * (1 - SLACK)) === a;
    if (up !== down) return false;
    if (up) {
      digits = n;
      scale = s;
      found = true;
      hi = p - 1;
    } else {
      lo = p + 1;
    }
  }
  return found;
}

const ZERO = 48;
const DOT = 46;
const MINUS = 45;
const scratch = new Uint8Array(10);

/** Writes the ASCII of a string at out[at]; returns the end. */
export function writeText(out, at, text) {
  for (let i = 0; i < text.length; i++) out[at + i] = text.charCodeAt(i);
  return at + text.length;
}

/**
 * Writes n * 10^-s (n a positive integer below 2^31) as Number::toString
 * spells it (ECMA-262 steps 6-12: the k digits, with the point after e of them).
 */
function writeScaled(out, at, negative, n, s) {
  n |= 0; // below 2^31: int32 arithmetic
  while (n % 10 === 0) {
    n = (n / 10) | 0;
    s -= 1;
  }
  let k = 0;
  for (; n > 0; n = (n / 10) | 0) scratch[k++] = ZERO + (n % 10); // least significant first
  const e = k - s;
  if (negative) out[at++] = MINUS;
  if (e >= k && e <= 21) {
    for (let i = k - 1; i >= 0; i--) out[at++] = scratch[i];
    for (let i = k; i < e; i++) out[at++] = ZERO;
  } else if (e > 0 && e <= 21) {
    for (let i = k - 1; i >= k - e; i--) out[at++] = scratch[i];
    out[at++] = DOT;
    for (let i = k - e - 1; i >= 0; i--) out[at++] = scratch[i];
  } else if (e > -6 && e <= 0) {
    out[at++] = ZERO;
    out[at++] = DOT;
    for (let i = e; i < 0; i++) out[at++] = ZERO;
    for (let i = k - 1; i >= 0; i--) out[at++] = scratch[i];
  } else {
    out[at++] = scratch[k - 1];
    if (k > 1) {
      out[at++] = DOT;
      for (let i = k - 2; i >= 0; i--) out[at++] = scratch[i];
    }
    at = writeText(out, at, e - 1 < 0 ? `e-${1 - e}` : `e+${e - 1}`);
  }
  return at;
}

/** Bytes one value can take: '-1.2345678e-38', '-2147483648', '-1.2345678901234567e-308'. */
export const MAX_WIDTH = { float32: 15, int32: 11, float64: 24 };

/**
 * Writes the finite value v of a tensor of `dtype` ('float32': the shortest
 * decimal that reads back; 'int32' and 'float64': String(v)) at out[at];
 * returns the end. Non-finite values are the caller's to spell.
 */
export function writeFinite(out, at, v, dtype) {
  if (dtype === 'float32') {
    if (v === 0) {
      out[at] = ZERO; // -0 too, as String(-0)
      return at + 1;
    }
    if (digitsOf(v)) return writeScaled(out, at, v < 0, digits, scale);
    return writeText(out, at, shortestFloat32Exact(v));
  }
  return writeText(out, at, String(v));
}

/** The text writeFinite writes (for tests and the rare caller that wants a string). */
export function finiteText(v, dtype) {
  const out = new Uint8Array(MAX_WIDTH.float64);
  return String.fromCharCode(...out.subarray(0, writeFinite(out, 0, v, dtype)));
}
