// readSafetensors refuses what the reference parser refuses, and
// writeSafetensors never writes what it cannot read. The reference is
// huggingface/safetensors (safetensors/src/tensor.rs): SafeTensors::read_metadata
// decodes the header with str::from_utf8 and serde_json::from_str into
// HashMetadata (TensorInfo { dtype, shape: Vec<usize>, data_offsets:
// (usize, usize) }, __metadata__: Option<HashMap<String, String>>), then
// Metadata::validate multiplies each shape with usize::checked_mul. serde_json
// skips only space, tab, LF and CR, refuses a \u escape of a lone surrogate
// when it reads a String, reads a usize only from an integer literal up to
// u64::MAX, stops at a recursion depth of 128, and refuses a duplicate field
// of a struct (dtype, shape, data_offsets, __metadata__).
import { posencEncoder as posenc, thrown } from '../helpers.js';

const enc = new TextEncoder();
/** A file from the header's JSON text as written (not re-serialized) and data bytes. */
function file(headerText, data = new Uint8Array(0)) {
  const json = enc.encode(headerText);
  const out = new Uint8Array(8 + json.length + data.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  out.set(data, 8 + json.length);
  return out;
}
const withBytes = (bytes, data = new Uint8Array(0)) => {
  const out = new Uint8Array(8 + bytes.length + data.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(bytes.length), true);
  out.set(bytes, 8);
  out.set(data, 8 + bytes.length);
  return out;
};
const A = '{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}';
const EIGHT = new Uint8Array(8);
const refused = (bytes) => {
  const e = thrown(() => posenc.readSafetensors(bytes));
  expect(e).toBeInstanceOf(RangeError);
  expect(e.message).toMatch(/^posenc\.readSafetensors: bytes is not a valid \.safetensors file: /);
  return e.message;
};

describe('the header is JSON as serde_json reads it', () => {
  test('a UTF-8 byte order mark before the header is refused (serde_json: expected value)', () => {
    expect(refused(withBytes(new Uint8Array([0xef, 0xbb, 0xbf, ...enc.encode(A)]), EIGHT))).toMatch(/byte order mark/);
  });
  test('a byte order mark after it, or U+00A0 as whitespace, is refused too', () => {
    refused(withBytes(new Uint8Array([...enc.encode(A), 0xef, 0xbb, 0xbf]), EIGHT));
    refused(file(`{\u00a0"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`, EIGHT));
  });
  test('space, tab, LF and CR around the JSON are fine (the writer pads with spaces)', () => {
    expect(posenc.readSafetensors(file(` \t\r\n${A} \n\t `, EIGHT)).tensors.a.shape).toEqual([2]);
  });
  test.each([
    ['a tensor name', '{"\\ud800":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}'],
    ['a trailing half alone', '{"\\udc00x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}'],
    ['two leading halves', '{"\\ud800\\ud800":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}'],
    ['a metadata value', `{"__metadata__":{"k":"\\ud83d"},${A.slice(1)}`],
    ['a metadata key', `{"__metadata__":{"\\udfff":"v"},${A.slice(1)}`],
    ['a dtype', '{"a":{"dtype":"F32\\ud800","shape":[2],"data_offsets":[0,8]}}'],
    ['a field the reference ignores', '{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"note":"\\udbff"}}'],
  ])('a \\u escape of a lone surrogate in %s is refused', (_where, header) => {
    expect(refused(file(header, EIGHT))).toMatch(/lone surrogate/);
  });
  test('a surrogate pair written as escapes is one character, and read', () => {
    const { tensors } = posenc.readSafetensors(file('{"\\ud83d\\ude00":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}', EIGHT));
    expect(Object.keys(tensors)).toEqual(['\u{1f600}']);
  });
  test('nesting of 128 levels is refused (serde_json\'s recursion limit); 127 are read', () => {
    const nested = (levels) => `{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"x":${'['.repeat(levels - 2)}${']'.repeat(levels - 2)}}}`;
    expect(refused(file(nested(128), EIGHT))).toMatch(/nesting deeper than 127 levels/);
    expect(posenc.readSafetensors(file(nested(127), EIGHT)).tensors.a.shape).toEqual([2]);
  });
  test.each([
    ['__metadata__ twice', `{"__metadata__":{"a":"1"},"__metadata__":{"b":"2"},${A.slice(1)}`, /__metadata__ is given twice/],
    ['dtype twice', '{"a":{"dtype":"F32","dtype":"F32","shape":[2],"data_offsets":[0,8]}}', /tensor 'a' gives dtype twice/],
    ['shape twice', '{"a":{"dtype":"F32","shape":[2],"shape":[2],"data_offsets":[0,8]}}', /tensor 'a' gives shape twice/],
  ])('a duplicate field of the reference\'s structs (%s) is refused', (_what, header, message) => {
    expect(refused(file(header, EIGHT))).toMatch(message);
  });
  test('__metadata__: null is no metadata (serde: Option::None); fields the reference ignores are ignored', () => {
    const r = posenc.readSafetensors(file('{"__metadata__":null,"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"extra":[1.5,{"k":null}]}}', EIGHT));
    expect(r.metadata).toEqual({});
    expect(r.tensors.a.shape).toEqual([2]);
  });
});

describe('shapes and offsets are usizes, multiplied as the reference multiplies them', () => {
  test.each([
    ['[2.0]', '[0,8]'],
    ['[2e0]', '[0,8]'],
    ['[2E0]', '[0,8]'],
    ['[-0,2]', '[0,0]'],
    ['["2"]', '[0,8]'],
    ['[true]', '[0,8]'],
    ['[18446744073709551616,0]', '[0,0]'], // 2^64: past u64::MAX (serde_json reads it as a float)
    ['[2]', '[0.0,8]'],
    ['[2]', '[0,8.0]'],
    ['[2]', '[0,8e0]'],
    ['[2]', '[0,-8]'],
    ['[2]', '[0,8,8]'],
  ])('shape %s, data_offsets %s: not usizes -> refused', (shape, offsets) => {
    refused(file(`{"a":{"dtype":"F32","shape":${shape},"data_offsets":${offsets}}}`, shape === '[-0,2]' || shape.startsWith('[1844') ? new Uint8Array(0) : EIGHT));
  });

  test.each([
    ['[4294967296,4294967296,0]', 'the product of its first 2 dimensions overflows 64 bits'],
    ['[1099511627776,1099511627776,0]', 'the product of its first 2 dimensions overflows 64 bits'],
    ['[65536,65536,65536,65536,0]', 'the product of its first 4 dimensions overflows 64 bits'],
    ['[4294967296,4294967296,4294967296,0,7]', 'the product of its first 2 dimensions overflows 64 bits'],
  ])('shape %s: a product that overflows before its 0 is refused (usize::checked_mul)', (shape, message) => {
    expect(refused(file(`{"a":{"dtype":"F32","shape":${shape},"data_offsets":[0,0]}}`))).toMatch(message);
  });

  test('a zero first, then dimensions whose product alone would overflow: 0 all along, read', () => {
    const { tensors } = posenc.readSafetensors(file('{"a":{"dtype":"F32","shape":[0,4294967296,4294967296],"data_offsets":[0,0]}}'));
    expect(tensors.a.shape).toEqual([0, 2 ** 32, 2 ** 32]);
    expect(tensors.a.data.length).toBe(0);
  });

  test('4294967295 x 4294967297 = 2^64 - 1 does not overflow (the product, not its size in bytes, is checked first)', () => {
    // then the bits (x 32) overflow: refused all the same
    expect(refused(file('{"a":{"dtype":"F32","shape":[4294967295,4294967297],"data_offsets":[0,0]}}'))).toMatch(/overflow 64 bits/);
  });
});

describe('writeSafetensors writes nothing the reference cannot read', () => {
  test.each([
    ['a lone leading surrogate', '\ud800'],
    ['a lone trailing surrogate', 'w\udc00'],
    ['two leading halves', '\ud800\ud800'],
  ])('a tensor name holding %s is refused', (_what, name) => {
    const e = thrown(() => posenc.writeSafetensors({ [name]: Float32Array.of(1) }));
    expect(e).toBeInstanceOf(RangeError);
    expect(e.message).toMatch(/^posenc\.writeSafetensors: tensor names must be valid Unicode \(UTF-8 cannot hold a lone surrogate\), got /);
  });
  test('metadata keys and values holding a lone surrogate are refused', () => {
    for (const metadata of [{ '\ud800': 'v' }, { k: 'x\udfff' }]) {
      const e = thrown(() => posenc.writeSafetensors({ w: Float32Array.of(1) }, { metadata }));
      expect(e).toBeInstanceOf(RangeError);
      expect(e.message).toMatch(/^posenc\.writeSafetensors: metadata must be valid Unicode \(UTF-8 cannot hold a lone surrogate\), got /);
    }
  });
  test('a shape whose product overflows 64 bits before its 0 is refused', () => {
    const e = thrown(() => posenc.writeSafetensors({ w: { shape: [2 ** 40, 2 ** 40, 0], data: [] } }));
    expect(e).toBeInstanceOf(RangeError);
    expect(e.message).toMatch(/^posenc\.writeSafetensors: tensors\['w'\]\.shape \[1099511627776, 1099511627776, 0\]: the product of its first 2 dimensions overflows 64 bits/);
  });
  test('names and metadata in every plane, and empty tensors, round-trip', () => {
    const names = ['\u{1f600}', 'é', '\u0000', '"quoted\\', '', '\u2028'];
    const tensors = Object.fromEntries(names.map((n, i) => [n, { shape: [i, 0, 2 ** 40], data: [] }]));
    tensors.x = Float32Array.of(1, 2);
    const bytes = posenc.writeSafetensors(tensors, { metadata: { '\u{10ffff}': '\u{1f600}' } });
    const read = posenc.readSafetensors(bytes);
    expect(Object.keys(read.tensors)).toEqual([...names, 'x']);
    expect(read.metadata).toEqual({ '\u{10ffff}': '\u{1f600}' });
    expect(Array.from(read.tensors.x.data)).toEqual([1, 2]);
  });
});
