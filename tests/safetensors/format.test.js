// The .safetensors reader and writer against the format's specification
// (huggingface/safetensors README): files assembled byte by byte here, the
// binary16 / bfloat16 encodings from IEEE 754 and the bfloat16 definition.
import { posencEncoder as posenc, thrown } from '../helpers.js';

/** A file from a header object and raw data bytes, as the format lays it out. */
function file(header, data, pad = 0) {
  const json = new TextEncoder().encode(JSON.stringify(header) + ' '.repeat(pad));
  const out = new Uint8Array(8 + json.length + data.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  out.set(data, 8 + json.length);
  return out;
}

const le32 = (values) => new Uint8Array(Float32Array.from(values).buffer); // the test machine is little-endian
const le16 = (bits) => new Uint8Array(Uint16Array.from(bits).buffer);

describe('readSafetensors', () => {
  test('a file assembled by hand: F32, F16, BF16 and F64 tensors, metadata, header padding', () => {
    const data = new Uint8Array([
      ...le32([1.5, -2, 3.25, 0]),
      ...le16([0x3c00, 0xc000, 0x7bff, 0x0001, 0x7c00]), // 1, -2, 65504, 2^-24, +inf
      ...le16([0x3f80, 0xc0a0]), // bfloat16 1, -5
      ...new Uint8Array(Float64Array.from([0.1]).buffer),
    ]);
    const header = {
      __metadata__: { format: 'pt' },
      w: { dtype: 'F32', shape: [2, 2], data_offsets: [0, 16] },
      h: { dtype: 'F16', shape: [5], data_offsets: [16, 26] },
      b: { dtype: 'BF16', shape: [2, 1], data_offsets: [26, 30] },
      d: { dtype: 'F64', shape: [], data_offsets: [30, 38] },
    };
    const { tensors, metadata } = posenc.readSafetensors(file(header, data, 5));
    expect(metadata).toEqual({ format: 'pt' });
    expect(tensors.w).toEqual({ dtype: 'F32', shape: [2, 2], data: Float32Array.from([1.5, -2, 3.25, 0]) });
    expect(Array.from(tensors.h.data)).toEqual([1, -2, 65504, 2 ** -24, Infinity]);
    expect(Array.from(tensors.b.data)).toEqual([1, -5]);
    expect(tensors.b.shape).toEqual([2, 1]);
    expect(tensors.d.data[0]).toBe(Math.fround(0.1)); // a scalar: shape []
    // an ArrayBuffer and an unaligned view read alike
    const bytes = file(header, data, 1);
    const shifted = new Uint8Array(bytes.length + 1);
    shifted.set(bytes, 1);
    expect(posenc.readSafetensors(shifted.subarray(1)).tensors.w.data).toEqual(tensors.w.data);
    expect(posenc.readSafetensors(bytes.slice().buffer).tensors.h.data).toEqual(tensors.h.data);
  });

  test('malformed files are RangeErrors that say what is wrong', () => {
    const ok = { a: { dtype: 'F32', shape: [2], data_offsets: [0, 8] } };
    const eight = new Uint8Array(8);
    const cases = [
      [new Uint8Array(5), /fewer than the 8/],
      [(() => { const b = file(ok, eight); new DataView(b.buffer).setBigUint64(0, 2n ** 40n, true); return b; })(), /above the format's limit/],
      [(() => { const b = file(ok, eight); new DataView(b.buffer).setBigUint64(0, 1000n, true); return b; })(), /runs past the end/],
      [(() => { const b = file(ok, eight); b[8] = 0x5b; return b; })(), /not UTF-8 JSON/],
      [file([1, 2], eight), /must be a JSON object/],
      [file({ a: { dtype: 'F32', shape: [3], data_offsets: [0, 8] } }, eight), /needs 12 bytes/],
      [file({ a: { dtype: 'F32', shape: [2], data_offsets: [0, 8] } }, new Uint8Array(12)), /cover 8 of the 12/],
      [file({ a: { dtype: 'F32', shape: [1], data_offsets: [4, 8] } }, eight), /starts at byte 4, expected 0/],
      [file({ a: { dtype: 'F32', shape: [2], data_offsets: [0, 8] }, b: { dtype: 'F32', shape: [1], data_offsets: [4, 8] } }, eight), /must not overlap/],
      [file({ a: { dtype: 'F32', shape: [4], data_offsets: [0, 16] } }, eight), /past the 8 data bytes/],
      [file({ a: { dtype: 'I64', shape: [1], data_offsets: [0, 8] } }, eight), /dtype I64: posenc reads the floating dtypes/],
      [file({ a: { dtype: 'F32', shape: [-2], data_offsets: [0, 8] } }, eight), /shape of non-negative integers/],
      [file({ a: { dtype: 'F32', shape: [2], data_offsets: [8, 0] } }, eight), /data_offsets/],
      [file({ __metadata__: { n: 1 }, ...ok }, eight), /__metadata__ must map strings to strings/],
    ];
    for (const [bytes, message] of cases) {
      const error = thrown(() => posenc.readSafetensors(bytes));
      expect(error).toBeInstanceOf(RangeError);
      expect(error.message).toMatch(/^posenc\.readSafetensors: bytes /);
      expect(error.message).toMatch(message);
    }
    expect(thrown(() => posenc.readSafetensors([1, 2, 3]))).toBeInstanceOf(TypeError);
  });
});

describe('writeSafetensors', () => {
  test('the layout: u64 header length (a multiple of 8, space-padded), JSON header, tensors in key order', () => {
    const bytes = posenc.writeSafetensors(
      { 'embed.weight': { shape: [2, 3], data: Float32Array.from([1, 2, 3, 4, 5, 6]) }, bias: Float32Array.from([7]) },
      { metadata: { format: 'pt' } },
    );
    const n = Number(new DataView(bytes.buffer).getBigUint64(0, true));
    expect(n % 8).toBe(0);
    const text = new TextDecoder().decode(bytes.subarray(8, 8 + n));
    expect(text.trimEnd().length).toBeGreaterThan(n - 8);
    expect(JSON.parse(text)).toEqual({
      __metadata__: { format: 'pt' },
      'embed.weight': { dtype: 'F32', shape: [2, 3], data_offsets: [0, 24] },
      bias: { dtype: 'F32', shape: [1], data_offsets: [24, 28] },
    });
    expect(Array.from(new Float32Array(bytes.slice(8 + n).buffer))).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(bytes.length).toBe(8 + n + 28);
  });

  test('F16 and BF16: rounded to nearest even, exact where representable, round trip through the reader', () => {
    const values = [0, -0, 1, -2, 1 / 3, 65504, 65519, 65520, 1e6, 2 ** -24, 2 ** -25, 3 * 2 ** -26, 2 ** -14, NaN, -Infinity, 1 + 2 ** -11, 1 + 3 * 2 ** -11];
    // binary16: 11 significant bits, exponents -14..15, subnormals down to 2^-24
    const half = (x) => {
      if (Number.isNaN(x) || !Number.isFinite(x)) return x;
      const a = Math.abs(x);
      if (a >= 65520) return Math.sign(x) * Infinity;
      const e = Math.max(Math.floor(Math.log2(a || 1)), -14);
      const ulp = 2 ** (e - 10);
      const q = a / ulp;
      let r = Math.round(q);
      if (r - q === 0.5 && r % 2) r -= 1; // ties to even
      return r === 0 ? (x < 0 || Object.is(x, -0) ? -0 : 0) : Math.sign(x) * r * ulp;
    };
    const f16 = posenc.readSafetensors(posenc.writeSafetensors({ x: { shape: [values.length], data: values, dtype: 'F16' } })).tensors.x;
    expect(f16.dtype).toBe('F16');
    values.forEach((v, i) => expect([v, f16.data[i]]).toEqual([v, Math.fround(half(v))]));
    expect(Object.is(f16.data[1], -0)).toBe(true);
    // bfloat16: the float32 rounded to 8 significant bits, ties to even
    const bvalues = [1, 1 + 2 ** -8, 1 + 3 * 2 ** -8, 1 / 3, -7.5e30, NaN];
    const bf = posenc.readSafetensors(posenc.writeSafetensors({ x: { shape: [bvalues.length], data: bvalues, dtype: 'BF16' } })).tensors.x;
    expect(Array.from(bf.data.subarray(0, 3))).toEqual([1, 1, 1 + 4 * 2 ** -8]);
    expect(Math.abs(bf.data[3] - 1 / 3)).toBeLessThanOrEqual(2 ** -10);
    expect(Math.abs(bf.data[4] / -7.5e30 - 1)).toBeLessThan(2 ** -8);
    expect(Number.isNaN(bf.data[5])).toBe(true);
  });

  test('bad tensors are errors naming writeSafetensors and the tensor', () => {
    const w = (t, o) => thrown(() => posenc.writeSafetensors(t, o));
    expect(w({ a: { shape: [2], data: [1] } }).message).toMatch(/^posenc\.writeSafetensors: tensors\['a'\]\.data must have 2 elements/);
    expect(w({ a: { shape: [1], data: [1], dtype: 'I8' } })).toBeInstanceOf(RangeError);
    expect(w({ a: { shape: 2, data: [1, 2] } })).toBeInstanceOf(TypeError);
    expect(w({ a: { shape: [1], data: 'x' } })).toBeInstanceOf(TypeError);
    expect(w({ a: { shape: [1], data: [1], extra: 1 } })).toBeInstanceOf(TypeError);
    expect(w({ __metadata__: { shape: [1], data: [1] } })).toBeInstanceOf(RangeError);
    expect(w({}, { metadata: { a: 1 } })).toBeInstanceOf(TypeError);
    expect(w({}, { meta: {} })).toBeInstanceOf(TypeError);
    expect(w(null)).toBeInstanceOf(TypeError);
    // an empty file is valid and reads back empty
    expect(posenc.readSafetensors(posenc.writeSafetensors({})).tensors).toEqual({});
  });
});

test('writeSafetensors: options that are a typed array or an array are not an options object', () => {
  const tensors = { w: { shape: [2], data: new Float32Array(2) } };
  for (const options of [new Float32Array(2), [1, 2]]) {
    const e = thrown(() => posenc.writeSafetensors(tensors, options));
    expect(e).toBeInstanceOf(TypeError);
    expect(e.message).toContain('posenc.writeSafetensors: expects an options object');
  }
});
