// The inline wasm's base64 decoders (src/js/core/base64.js) each give the bytes of
// the wasm file the text was made from, for both builds and for the edge
// lengths of base64 (padding of 0, 1 and 2 characters).
import { readFileSync } from 'node:fs';
import { decodeBase64, decodeWithAtob, decodeWithBuffer } from '../src/js/core/base64.js';
import { wasmBase64 as simdText } from '../build/posenc.wasm.js';
import { wasmBase64 as baselineText } from '../build/posenc-baseline.wasm.js';

const file = (name) => new Uint8Array(readFileSync(new URL(`../dist/${name}`, import.meta.url)));
const same = (a, b) => a.length === b.length && Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.length), Buffer.from(b.buffer, b.byteOffset, b.length)) === 0;

const decoders = {
  atob: decodeWithAtob,
  Buffer: (t) => decodeWithBuffer(t, Buffer),
  chosen: decodeBase64,
  ...(typeof Uint8Array.fromBase64 === 'function' ? { fromBase64: (t) => Uint8Array.fromBase64(t) } : {}),
};

describe.each(Object.keys(decoders))('%s', (name) => {
  const decode = decoders[name];

  test('decodes the inline builds to the bytes of the wasm files', () => {
    expect(same(decode(simdText), file('posenc.wasm'))).toBe(true);
    expect(same(decode(baselineText), file('posenc-baseline.wasm'))).toBe(true);
  });

  test('decodes every padding length, and all 256 byte values', () => {
    for (const n of [0, 1, 2, 3, 4, 5, 256]) {
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 151 + 7) & 255);
      const out = decode(Buffer.from(bytes).toString('base64'));
      expect(out).toBeInstanceOf(Uint8Array);
      expect(Array.from(out)).toEqual(Array.from(bytes));
    }
  });
});

test('without Buffer or fromBase64, the choice falls back to atob', () => {
  const saved = { Buffer: globalThis.Buffer, atob: globalThis.atob, fromBase64: Uint8Array.fromBase64 };
  let calls = 0;
  let out;
  try {
    globalThis.Buffer = undefined;
    delete Uint8Array.fromBase64;
    globalThis.atob = (t) => (calls++, saved.atob(t));
    out = decodeBase64(simdText);
  } finally {
    globalThis.Buffer = saved.Buffer;
    globalThis.atob = saved.atob;
    if (saved.fromBase64) Uint8Array.fromBase64 = saved.fromBase64;
  }
  expect(calls).toBe(1);
  expect(same(out, file('posenc.wasm'))).toBe(true);
});

test('in Node (no fromBase64), the choice is Buffer', () => {
  if (typeof Uint8Array.fromBase64 === 'function') return; // Node 25: the standard decoder comes first
  const saved = globalThis.atob;
  let calls = 0;
  try {
    globalThis.atob = (t) => (calls++, saved(t));
    expect(same(decodeBase64(simdText), file('posenc.wasm'))).toBe(true);
  } finally {
    globalThis.atob = saved;
  }
  expect(calls).toBe(0);
});
