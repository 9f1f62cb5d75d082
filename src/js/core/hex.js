// hex.js: decodes an entry's inline wasm, which travels as hexadecimal text
// (tools/embed-wasm.mjs writes it), with the fastest decoder the engine has.
// Why hex and not base64: base64 packs 3 bytes into 4 characters, so a run of
// bytes that repeats in the wasm shows up in 3 different shapes and gzip finds
// few of the repeats (the SIMD build gzips to 17.0 KB in base64, 14.6 KB in
// hex, 13.4 KB as a binary file). Hex keeps every byte two characters, and
// Node (Buffer) and current browsers (Uint8Array.fromHex: Chrome 140, Firefox
// 133, Safari 18.2) decode it natively. A denser text that gzips as small as
// the binary needs a decoder of its own, which cost 1.5 to 3 ms of startup
// (measured; docs/performance.md, Size and startup).

/** A loop, for engines with neither: every engine has it. */
export function decodeWithLoop(text) {
  const bytes = new Uint8Array(text.length >> 1);
  // '0'-'9' are codes 48-57, 'a'-'f' 97-102
  const nibble = (i) => {
    const c = text.charCodeAt(i);
    return c > 57 ? c - 87 : c - 48;
  };
  for (let i = 0; i < bytes.length; i++) bytes[i] = (nibble(2 * i) << 4) | nibble(2 * i + 1);
  return bytes;
}

/** Node's (or a polyfill's) Buffer, as a Uint8Array view of the same bytes. */
export function decodeWithBuffer(text, B) {
  const b = B.from(text, 'hex');
  return new Uint8Array(b.buffer, b.byteOffset, b.length);
}

/** The bytes of a lowercase hex text, by the first decoder this engine has. */
export function decodeHex(text) {
  if (typeof Uint8Array.fromHex === 'function') return Uint8Array.fromHex(text);
  const B = globalThis.Buffer;
  if (typeof B === 'function' && typeof B.from === 'function') return decodeWithBuffer(text, B);
  return decodeWithLoop(text);
}
