// wasm-text.js: decodes an entry's inline wasm, which travels as printable
// ASCII text (tools/embed-wasm.mjs writes it). Why not base64: base64 packs 3
// bytes into 4 characters, so a run of bytes that repeats in the wasm shows up
// in 4 different shapes and gzip finds a fraction of the repeats (the SIMD
// build gzips to 19.0 KB in base64 against 14.5 KB as a binary file). Here
// every byte is always the same one or two characters, so gzip sees the
// wasm's own repeats and the text gzips as small as the binary.
//
// The text: 256 characters '1' or '0', then the body. '1' at position b says
// that byte value b is one of the 87 most frequent in this wasm: each of
// those is one character of the body (the k-th such byte value, in increasing
// order, is ALPHABET[k]). Every other byte value is two characters: ALPHABET[87]
// or ALPHABET[88], then any character of ALPHABET (the k-th other byte value
// is ALPHABET[87 + floor(k / 89)] then ALPHABET[k % 89]).
// ALPHABET is printable ASCII without the quotes, the backslash, '<' and '>':
// the text stays one plain string literal in any quoting a bundler or a
// minifier picks, in a page of any charset, and inside an HTML <script>.
//
// A loop in JS takes 2 to 4 ms for the 33,000 characters of the SIMD build in
// a fresh Node process (it runs before any JIT); a 137-byte wasm module does
// it in a fraction of that (DECODER below), and TextEncoder writes the text
// into its memory natively.

export const ALPHABET = ' !#$%&()*+,-./0123456789:;=?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_abcdefghijklmnopqrstuvwxyz{|}~';
/** How many byte values are one character (the rest of ALPHABET starts two-character codes). */
export const SINGLES = 87;

/*
 * DECODER, assembled from this text (Binaryen's wasm-as):
 * (module
 *   (import "m" "m" (memory 1))
 *   ;; memory[0, 128): the rank in ALPHABET of each ASCII code
 *   ;; memory[128, 393): the byte value of each code (see the layout in decodeWasmText)
 *   ;; d(src, end, dst): decodes the text at [src, end) into bytes from dst on;
 *   ;; returns where the bytes end
 *   (func (export "d") (param $src i32) (param $end i32) (param $dst i32) (result i32)
 *     (local $r i32)
 *     (block $done
 *       (loop $next
 *         (br_if $done (i32.ge_u (local.get $src) (local.get $end)))
 *         (local.set $r (i32.load8_u (i32.load8_u (local.get $src))))
 *         (if (i32.ge_u (local.get $r) (i32.const 87))
 *           (then ;; a two-character code: 87 + 89 (r - 87) + the rank of the second
 *             (local.set $src (i32.add (local.get $src) (i32.const 1)))
 *             (local.set $r (i32.add (i32.mul (local.get $r) (i32.const 89))
 *                                    (i32.sub (i32.load8_u (i32.load8_u (local.get $src))) (i32.const 7656))))))
 *         (i32.store8 (local.get $dst) (i32.load8_u offset=128 (local.get $r)))
 *         (local.set $dst (i32.add (local.get $dst) (i32.const 1)))
 *         (local.set $src (i32.add (local.get $src) (i32.const 1)))
 *         (br $next)))
 *     (local.get $dst)))
 */
export const DECODER = [
  0, 97, 115, 109, 1, 0, 0, 0, 1, 8, 1, 96, 3, 127, 127, 127, 1, 127, 2, 8, 1, 1, 109, 1, 109, 2, 0, 1, 3, 2, 1, 0,
  7, 5, 1, 1, 100, 0, 0, 10, 96, 1, 94, 1, 1, 127, 2, 64, 3, 64, 32, 0, 32, 1, 79, 13, 1, 32, 0, 45, 0, 0, 45, 0,
  0, 33, 3, 32, 3, 65, 215, 0, 79, 4, 64, 32, 0, 65, 1, 106, 33, 0, 32, 3, 65, 217, 0, 108, 32, 0, 45, 0, 0, 45, 0,
  0, 65, 232, 59, 107, 106, 33, 3, 11, 32, 2, 32, 3, 45, 0, 128, 1, 58, 0, 0, 32, 2, 65, 1, 106, 33, 2, 32, 0, 65,
  1, 106, 33, 0, 12, 0, 11, 0, 11, 32, 2, 11,
];

const TABLES = 512; // the rank and byte tables, then the text, then the bytes

/** The bytes of an inline wasm text (a view of the decoder's memory). */
export function decodeWasmText(text) {
  const length = text.length - 256;
  const memory = new WebAssembly.Memory({ initial: Math.ceil((TABLES + 2 * length) / 65536) });
  const heap = new Uint8Array(memory.buffer);
  for (let i = 0; i < ALPHABET.length; i++) heap[ALPHABET.charCodeAt(i)] = i;
  let single = 128;
  let double = 128 + SINGLES;
  for (let b = 0; b < 256; b++) heap[text.charCodeAt(b) === 49 ? single++ : double++] = b; // '1'
  const start = TABLES + length;
  new TextEncoder().encodeInto(text.slice(256), heap.subarray(TABLES, start));
  const { d } = new WebAssembly.Instance(new WebAssembly.Module(new Uint8Array(DECODER)), { m: { m: memory } }).exports;
  return heap.subarray(start, d(TABLES, start, start));
}
