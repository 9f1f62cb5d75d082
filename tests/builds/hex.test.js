// The inline wasm's hex (tools/embed-wasm.mjs writes it, src/js/core/hex.js
// decodes it): each decoder gives the bytes of the wasm file the text was made
// from, for every inline build and every byte value; the choice falls back in
// order; the text gzips smaller than base64; the bundles carry it on one line.
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { decodeHex, decodeWithBuffer, decodeWithLoop } from '../../src/js/core/hex.js';
import { wasmHex as simdText } from '../../build/posenc.wasm.js';
import { wasmHex as baselineText } from '../../build/posenc-baseline.wasm.js';
import { wasmHex as encoderText } from '../../build/posenc-encoder.wasm.js';
import { wasmHex as encoderBaselineText } from '../../build/posenc-encoder-baseline.wasm.js';

const file = (name) => new Uint8Array(readFileSync(new URL(`../../dist/${name}`, import.meta.url)));
const same = (a, b) => a.length === b.length && Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.length), Buffer.from(b.buffer, b.byteOffset, b.length)) === 0;

const INLINE = {
  'posenc.wasm': simdText,
  'posenc-baseline.wasm': baselineText,
  'posenc-encoder.wasm': encoderText,
  'posenc-encoder-baseline.wasm': encoderBaselineText,
};

const decoders = {
  loop: decodeWithLoop,
  Buffer: (t) => decodeWithBuffer(t, Buffer),
  chosen: decodeHex,
  ...(typeof Uint8Array.fromHex === 'function' ? { fromHex: (t) => Uint8Array.fromHex(t) } : {}),
};

describe.each(Object.keys(decoders))('%s', (name) => {
  const decode = decoders[name];

  test.each(Object.keys(INLINE))('decodes the inline %s to the bytes of the file', (wasm) => {
    const bytes = decode(INLINE[wasm]);
    expect(bytes).toBeInstanceOf(Uint8Array);
    expect(same(bytes, file(wasm))).toBe(true);
  });

  test('decodes every byte value, and no bytes at all', () => {
    for (const n of [0, 1, 256, 1000]) {
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 151 + 7) & 255);
      const out = decode(Buffer.from(bytes).toString('hex'));
      expect(out).toBeInstanceOf(Uint8Array);
      expect(Array.from(out)).toEqual(Array.from(bytes));
    }
  });
});

test('the inline text is lowercase hex, two digits a byte', () => {
  for (const [wasm, text] of Object.entries(INLINE)) {
    expect(text).toMatch(/^(?:[0-9a-f]{2})+$/);
    expect(text.length).toBe(2 * file(wasm).length);
  }
});

test('without fromHex or Buffer, the choice falls back to the loop', () => {
  const saved = { Buffer: globalThis.Buffer, fromHex: Uint8Array.fromHex };
  let out;
  try {
    globalThis.Buffer = undefined;
    delete Uint8Array.fromHex;
    out = decodeHex(simdText);
  } finally {
    globalThis.Buffer = saved.Buffer;
    if (saved.fromHex) Uint8Array.fromHex = saved.fromHex;
  }
  expect(same(out, file('posenc.wasm'))).toBe(true);
});

test('in Node (no fromHex), the choice is Buffer', () => {
  if (typeof Uint8Array.fromHex === 'function') return; // Node 25: the standard decoder comes first
  const saved = Buffer.from;
  let calls = 0;
  try {
    Buffer.from = (...args) => (args[1] === 'hex' && calls++, saved.apply(Buffer, args));
    expect(same(decodeHex(simdText), file('posenc.wasm'))).toBe(true);
  } finally {
    Buffer.from = saved;
  }
  expect(calls).toBe(1);
});

test('hex gzips smaller than base64', () => {
  const gz = (b) => gzipSync(b, { level: 9 }).length;
  const bytes = file('posenc.wasm');
  const [hex, base64, binary] = [gz(Buffer.from(simdText)), gz(Buffer.from(Buffer.from(bytes).toString('base64'))), gz(bytes)];
  console.log(`posenc.wasm gzip -9: binary ${binary}, hex ${hex}, base64 ${base64}`);
  expect(hex).toBeLessThan(base64);
});

test.each(['posenc.mjs', 'posenc.cjs', 'encoder.mjs', 'encoder.cjs'])('dist/%s carries the SIMD build on one line, as embed-wasm wrote it', (bundle) => {
  const text = readFileSync(new URL(`../../dist/${bundle}`, import.meta.url), 'utf8');
  const inline = bundle.startsWith('posenc') ? simdText : encoderText;
  expect(text.split('\n').some((line) => line.includes(inline))).toBe(true);
});
