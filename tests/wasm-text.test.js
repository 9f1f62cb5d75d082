// The inline wasm's text (tools/embed-wasm.mjs writes it, src/js/core/wasm-text.js
// decodes it): every inline build decodes to the bytes of its wasm file, any
// bytes survive the round trip, the text is plain ASCII that needs no escape
// in any string literal, and the decoder's bytes are the assembly of the text
// its comment shows.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ALPHABET, DECODER, SINGLES, decodeWasmText } from '../src/js/core/wasm-text.js';
import { encodeWasmText } from '../tools/embed-wasm.mjs';

const file = (name) => new Uint8Array(readFileSync(new URL(`../dist/${name}`, import.meta.url)));
const same = (a, b) => a.length === b.length && Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.length), Buffer.from(b.buffer, b.byteOffset, b.length)) === 0;

const INLINE = {
  'posenc.wasm': '../build/posenc.wasm.js',
  'posenc-baseline.wasm': '../build/posenc-baseline.wasm.js',
  'posenc-encoder.wasm': '../build/posenc-encoder.wasm.js',
  'posenc-encoder-baseline.wasm': '../build/posenc-encoder-baseline.wasm.js',
};

test.each(Object.keys(INLINE))('the inline text of %s decodes to the bytes of the file', async (name) => {
  const { wasmText } = await import(INLINE[name]);
  const bytes = decodeWasmText(wasmText);
  expect(bytes).toBeInstanceOf(Uint8Array);
  expect(same(bytes, file(name))).toBe(true);
  // and it is what the encoder writes for that file
  expect(wasmText).toBe(encodeWasmText(file(name)));
});

test('any bytes survive the round trip: every byte value, one or two characters, and no bytes at all', () => {
  const cases = [
    new Uint8Array(0),
    Uint8Array.from({ length: 256 }, (_, i) => i),
    Uint8Array.from({ length: 5000 }, (_, i) => (i * 151 + 7) & 255),
    // skewed: a few values make most of it, as in a wasm
    Uint8Array.from({ length: 70000 }, (_, i) => (i % 7 ? (i * 13) % 40 : (i * 101) & 255)),
    new Uint8Array(1000).fill(255),
  ];
  for (const bytes of cases) {
    const text = encodeWasmText(bytes);
    expect(same(decodeWasmText(text), bytes)).toBe(true);
  }
});

test('the text is printable ASCII without quotes, backslash, < or >, one or two characters a byte', () => {
  expect(ALPHABET).toHaveLength(89);
  expect(new Set(ALPHABET).size).toBe(89);
  expect(ALPHABET).toMatch(/^[ -~]+$/);
  expect(ALPHABET).not.toMatch(/["'`\\<>]/);
  // 87 one-character values and 2 x 89 two-character ones cover the 256 byte values
  expect(SINGLES + (ALPHABET.length - SINGLES) * ALPHABET.length).toBeGreaterThanOrEqual(256);
  const bytes = file('posenc.wasm');
  const text = encodeWasmText(bytes);
  expect(text.slice(0, 256)).toMatch(/^[01]{256}$/);
  expect([...text.slice(0, 256)].filter((c) => c === '1')).toHaveLength(SINGLES);
  const body = text.slice(256);
  expect([...body].every((c) => ALPHABET.includes(c))).toBe(true);
  expect(body.length).toBeGreaterThanOrEqual(bytes.length);
  expect(body.length).toBeLessThanOrEqual(2 * bytes.length);
});

test('the text gzips to within 2% of the binary, and smaller than base64', () => {
  const bytes = file('posenc.wasm');
  const gz = (b) => gzipSync(b, { level: 9 }).length;
  const text = gz(Buffer.from(encodeWasmText(bytes)));
  console.log(`posenc.wasm gzip -9: binary ${gz(bytes)}, text ${text}, base64 ${gz(Buffer.from(Buffer.from(bytes).toString('base64')))}`);
  expect(text).toBeLessThan(gz(bytes) * 1.02);
  expect(text).toBeLessThan(gz(Buffer.from(Buffer.from(bytes).toString('base64'))));
});

test("the decoder's bytes are its comment's text assembled (Binaryen's wasm-as)", () => {
  const source = readFileSync(new URL('../src/js/core/wasm-text.js', import.meta.url), 'utf8');
  const comment = source.match(/\/\*\n \* DECODER, assembled from this text[^\n]*\n([\s\S]*?)\n \*\//)[1];
  const wat = comment.split('\n').map((line) => line.replace(/^ \* ?/, '')).join('\n');
  const dir = mkdtempSync(join(tmpdir(), 'posenc-wat-'));
  try {
    writeFileSync(join(dir, 'decoder.wat'), wat);
    execFileSync('wasm-as', [join(dir, 'decoder.wat'), '-o', join(dir, 'decoder.wasm')]);
    expect(Array.from(readFileSync(join(dir, 'decoder.wasm')))).toEqual(DECODER);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
