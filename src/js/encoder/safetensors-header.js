// safetensors-header.js: the JSON header of a .safetensors file, read as the
// reference parser reads it (huggingface/safetensors, safetensors/src/tensor.rs,
// SafeTensors::read_metadata: str::from_utf8, then serde_json::from_str into
// HashMetadata, then Metadata::validate). JSON.parse takes more than
// serde_json does, and each difference is a file posenc would read and the
// reference would refuse:
//   - whitespace is space, tab, LF and CR only: a UTF-8 BOM before the `{`
//     is an error (TextDecoder would drop it unseen);
//   - a \u escape of a surrogate must be half of a pair: "\ud800" alone is
//     an error (serde_json: "lone leading surrogate in hex escape");
//   - a usize (a shape dimension, a data offset) is an integer literal up to
//     2^64 - 1: 2.0, 1e2, -0 and 18446744073709551616 are not;
//   - nesting stops at 128 levels (serde_json's recursion limit).
// So this parser reads the header itself: objects as Maps (any key, duplicate
// keys: the last wins), numbers as JsonNumber (their text), the rest as JSON.

/** A JSON number as written: its text, read as the field that holds it needs. */
export class JsonNumber {
  constructor(text) {
    this.text = text;
  }

  /** Its value as a u64 (an integer literal of at most 2^64 - 1), as a BigInt; undefined when it is none. */
  get u64() {
    if (!/^(0|[1-9]\d*)$/.test(this.text)) return undefined;
    const v = BigInt(this.text);
    return v <= U64_MAX ? v : undefined;
  }
}

export const U64_MAX = 2n ** 64n - 1n;
const MAX_DEPTH = 128; // serde_json: remaining_depth starts at 128, an error when it reaches 0
const WHITESPACE = /[ \t\n\r]*/y;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * Parses the header's text; throws a SyntaxError saying what and where
 * (a character offset), as serde_json would refuse it.
 */
export function parseHeader(text) {
  let at = 0;
  const fail = (what) => {
    throw new SyntaxError(`${what} at character ${at}`);
  };
  const skip = () => {
    WHITESPACE.lastIndex = at;
    WHITESPACE.test(text);
    at = WHITESPACE.lastIndex;
  };
  // A string: its end found by its first quote after an even run of
  // backslashes, then decoded by JSON.parse (which refuses control characters
  // and bad escapes as serde_json does), then checked for what JSON.parse
  // lets through: a \u escape of a lone surrogate (the UTF-8 text itself
  // cannot hold one, so any in the result came from an escape).
  const string = () => {
    const start = at;
    let end = at;
    for (;;) {
      end = text.indexOf('"', end + 1);
      if (end < 0) fail('the header ends inside a string');
      let slashes = 0;
      while (text[end - 1 - slashes] === '\\') slashes++;
      if (slashes % 2 === 0) break;
    }
    let out;
    try {
      out = JSON.parse(text.slice(start, end + 1));
    } catch {
      fail('a control character or a bad escape in a string');
    }
    if (hasLoneSurrogate(out)) fail('a lone surrogate (a \\u escape of half a pair) in a string');
    at = end + 1;
    return out;
  };
  const value = (depth) => {
    skip();
    const c = text[at];
    if (c === '"') return string();
    if (c === '{' || c === '[') {
      if (depth + 1 >= MAX_DEPTH) fail(`nesting deeper than ${MAX_DEPTH - 1} levels`);
      at++;
      const object = c === '{' ? new Map() : null;
      const array = object ? null : [];
      skip();
      const close = c === '{' ? '}' : ']';
      if (text[at] === close) {
        at++;
        return object ?? array;
      }
      for (;;) {
        if (object) {
          skip();
          if (text[at] !== '"') fail('expected a string key');
          const key = string();
          skip();
          if (text[at] !== ':') fail("expected ':'");
          at++;
          // the last of duplicate keys wins, in its own place; `repeated` names them
          // (the reference refuses a struct's field twice: its caller checks)
          if (object.delete(key)) (object.repeated ??= new Set()).add(key);
          object.set(key, value(depth + 1));
        } else array.push(value(depth + 1));
        skip();
        if (text[at] === ',') {
          at++;
          continue;
        }
        if (text[at] === close) {
          at++;
          return object ?? array;
        }
        fail(`expected ',' or '${close}'`);
      }
    }
    for (const [word, v] of [['true', true], ['false', false], ['null', null]]) {
      if (text.startsWith(word, at)) {
        at += word.length;
        return v;
      }
    }
    NUMBER.lastIndex = at;
    const m = NUMBER.exec(text);
    if (m) {
      at = NUMBER.lastIndex;
      return new JsonNumber(m[0]);
    }
    if (c === '\ufeff') return fail('a byte order mark (U+FEFF), which is no JSON whitespace');
    const shown = c === undefined ? '' : c < ' ' || c > '~' ? `U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}` : JSON.stringify(c);
    return fail(c === undefined ? 'the header ends where a value should be' : `expected a value, got ${shown}`);
  };
  const result = value(0);
  skip();
  if (text[at] === '\ufeff') fail('a byte order mark (U+FEFF), which is no JSON whitespace');
  if (at !== text.length) fail('trailing characters after the JSON value');
  return result;
}

/**
 * The first reason a shape cannot describe a tensor of `bits`-bit elements
 * under the reference's arithmetic (Metadata::validate): the element count
 * is a product of usizes (u64) that must not overflow at any step, trailing
 * zeros or not, nor overflow once multiplied by the bits per element.
 * Returns the message, or null.
 */
export function shapeOverflow(shape, bits) {
  let n = 1n;
  for (let i = 0; i < shape.length; i++) {
    n *= BigInt(shape[i]);
    if (n > U64_MAX) return `the product of its first ${i + 1} dimensions overflows 64 bits (a reader's usize)`;
  }
  if (n * BigInt(bits) > U64_MAX) return `its ${n} elements of ${bits} bits overflow 64 bits`;
  return null;
}

/** Whether a string holds a lone surrogate (which UTF-8, and so the file, cannot carry). */
export const hasLoneSurrogate = (s) => /\p{Cs}/u.test(s);
