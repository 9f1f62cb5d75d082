// base64.js: decodes the inline wasm (base64) with the fastest decoder the
// engine has. Cold, in a fresh Node process, atob and a charCodeAt loop take
// 2 ms for the SIMD build where Node's Buffer takes 0.2 ms; the standard
// Uint8Array.fromBase64 (recent browsers, Node 25) is native too.

/** atob and a loop: every engine has them. */
export function decodeWithAtob(text) {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Node's (or a polyfill's) Buffer, as a Uint8Array view of the same bytes. */
export function decodeWithBuffer(text, B) {
  const b = B.from(text, 'base64');
  return new Uint8Array(b.buffer, b.byteOffset, b.length);
}

/** The bytes of a base64 text, by the first decoder this engine has. */
export function decodeBase64(text) {
  if (typeof Uint8Array.fromBase64 === 'function') return Uint8Array.fromBase64(text);
  const B = globalThis.Buffer;
  if (typeof B === 'function' && typeof B.from === 'function') return decodeWithBuffer(text, B);
  return decodeWithAtob(text);
}
