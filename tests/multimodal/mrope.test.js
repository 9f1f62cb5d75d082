// Multimodal RoPE (Qwen2-VL, Qwen2.5-VL) and 2-D RoPE of vision encoders (Pixtral,
// the Qwen2-VL vision encoder) against tests/fixtures/reference.json, written from
// HF's get_rope_index, apply_multimodal_rotary_pos_emb, PixtralRotaryEmbedding and
// VisionRotaryEmbedding / rot_pos_emb; and M-RoPE with equal axes against plain RoPE.
import { readFileSync } from 'node:fs';
import { posenc, maxError, thrown, ULP1, ropeOracle } from '../helpers.js';

const ref = JSON.parse(readFileSync(new URL('../fixtures/reference.json', import.meta.url)));

beforeAll(() => posenc.init());

const same = (a, b) => a.length === b.length && a.every((v, i) => Object.is(v, b[i]));
const values = (n, seed) => Float32Array.from({ length: n }, (_, i) => Math.sin(seed + 1.7 * i) * 1.5);

describe('mropePositions: HF get_rope_index on the token ids the spans stand for', () => {
  test.each(ref.mropePositions.map((c) => [c.name, c]))('%s', (_name, c) => {
    const options = { spans: c.spans };
    if (c.spatialMergeSize !== undefined) options.spatialMergeSize = c.spatialMergeSize;
    if (c.tokensPerSecond !== undefined) options.tokensPerSecond = c.tokensPerSecond;
    const p = posenc.mropePositions(options);
    expect(p).toBeInstanceOf(Int32Array);
    expect(Array.from(p)).toEqual(c.positions.flat());
    let max = -Infinity;
    for (const v of p) max = Math.max(max, v);
    expect(max + 1 - c.seq).toBe(c.ropeDelta); // HF's rope_deltas: where decoding continues
  });

  test("the brief's example: 12 text tokens, an image of grid t=1 h=28 w=42, 5 text tokens; grids as [t, h, w] too", () => {
    const a = posenc.mropePositions({ spans: [{ text: 12 }, { image: { t: 1, h: 28, w: 42 } }, { text: 5 }] });
    const b = posenc.mropePositions({ spans: [{ text: 12 }, { image: [1, 28, 42] }, { text: 5 }], spatialMergeSize: 2 });
    expect(a.length).toBe(3 * (12 + 14 * 21 + 5));
    expect(same(a, b)).toBe(true);
    const seq = a.length / 3;
    expect([a[seq - 5], a[seq + seq - 5], a[2 * seq + seq - 5]]).toEqual([33, 33, 33]); // 12 + max(0, 13, 20) + 1
  });

  test('out is filled and returned; errors name the span', () => {
    const out = new Int32Array(3 * 9);
    expect(posenc.mropePositions({ spans: [{ text: 5 }, { image: [1, 4, 4] }], out })).toBe(out);
    const odd = thrown(() => posenc.mropePositions({ spans: [{ text: 1 }, { image: { t: 1, h: 3, w: 4 } }] }));
    expect(odd).toBeInstanceOf(RangeError);
    expect(odd.message).toContain('spans[1].image.h must be a multiple of spatialMergeSize = 2');
    const far = thrown(() => posenc.mropePositions({ spans: [{ video: { t: 3, h: 2, w: 2, secondsPerGrid: 1e9 } }], tokensPerSecond: 100 }));
    expect(far).toBeInstanceOf(RangeError);
    expect(far.message).toContain('int32');
  });
});

describe('M-RoPE: apply_multimodal_rotary_pos_emb', () => {
  const m = ref.mropeApply;
  const seq = m.positions[0].length;
  const positions = Int32Array.from(m.positions.flat());

  test('applyRope with mropeSection equals the reference rotation of q [seq][heads][headDim]', () => {
    const q = Float32Array.from(m.q.flat(2));
    posenc.applyRope(q, { heads: m.heads, headDim: m.headDim, mropeSection: m.mropeSection, positions });
    const want = m.out.flat(2);
    expect(maxError(q, (i) => want[i])).toBeLessThanOrEqual(2 * ULP1 * 3); // 2^-22 (|a| + |b|), |a|, |b| < 1.5
  });

  test('ropeCache with mropeSection: cos and sin [seq][headDim / 2] within 2^-23', () => {
    const { cos, sin } = posenc.ropeCache({ rotaryDim: m.headDim, mropeSection: m.mropeSection, positions });
    expect(cos.length).toBe(seq * m.headDim / 2);
    const [c, s] = [m.cos.flat(), m.sin.flat()];
    expect(maxError(cos, (i) => c[i])).toBeLessThanOrEqual(ULP1);
    expect(maxError(sin, (i) => s[i])).toBeLessThanOrEqual(ULP1);
  });

  test.each([
    ['half', 'float64', 'bshd'], ['interleaved', 'float64', 'bhsd'], ['half', 'float32', 'bhsd'], ['interleaved', 'float32', 'bshd'],
  ])('all three axes equal is plain RoPE bit for bit (%s, %s, %s), caches and rotations, shared and per-batch positions', (layout, precision, order) => {
    const [heads, headDim, seq2, batch] = [3, 24, 1100, 2]; // past a recurrence anchor
    const plain = Int32Array.from({ length: batch * seq2 }, (_, i) => (i % 7 === 3 ? 5 * i : i) - 40);
    const three = Int32Array.from([...plain, ...plain, ...plain]);
    const x = values(batch * seq2 * heads * headDim, 1);
    const rope = { heads, headDim, layout, precision, batch, base: 500000, order };
    const a = posenc.applyRope(x.slice(), { ...rope, positions: plain });
    const b = posenc.applyRope(x.slice(), { ...rope, positions: three, mropeSection: [4, 4, 4] });
    expect(same(a, b)).toBe(true);
    const shared = plain.subarray(0, seq2);
    const c = posenc.applyRope(x.slice(), { ...rope, positions: shared });
    const d = posenc.applyRope(x.slice(), { ...rope, positions: Int32Array.from([...shared, ...shared, ...shared]), mropeSection: [6, 0, 6] });
    expect(same(c, d)).toBe(true);
    const cacheA = posenc.ropeCache({ rotaryDim: headDim, positions: shared, precision, base: 500000 });
    const cacheB = posenc.ropeCache({ rotaryDim: headDim, positions: Int32Array.from([...shared, ...shared, ...shared]), mropeSection: [2, 5, 5], precision, base: 500000 });
    expect(same(cacheA.cos, cacheB.cos) && same(cacheA.sin, cacheB.sin)).toBe(true);
  });

  test('each pair takes its position from its section, in both halves (half) and both members (interleaved)', () => {
    const [headDim, section] = [12, [1, 2, 3]];
    const positions = Int32Array.from([10, 20, 30]); // seq 1: temporal 10, height 20, width 30
    const f = ropeOracle({ rotaryDim: headDim }).invFreq; // 10000^(-2k/12), in double, here
    const axisOf = (k) => (k < 1 ? 0 : k < 3 ? 1 : 2);
    for (const layout of ['half', 'interleaved']) {
      const x = values(headDim, 3);
      const y = posenc.applyRope(x.slice(), { heads: 1, headDim, layout, positions, mropeSection: section });
      for (let k = 0; k < 6; k++) {
        const angle = positions[axisOf(k)] * f[k];
        const [i, j] = layout === 'half' ? [k, k + 6] : [2 * k, 2 * k + 1];
        expect(Math.abs(y[i] - (x[i] * Math.cos(angle) - x[j] * Math.sin(angle)))).toBeLessThanOrEqual(4 * ULP1);
        expect(Math.abs(y[j] - (x[j] * Math.cos(angle) + x[i] * Math.sin(angle)))).toBeLessThanOrEqual(4 * ULP1);
      }
    }
  });

  test('a Qwen2-VL config.json: ropeFromConfig reads mrope_section, and the result spreads into applyRope', () => {
    const config = { model_type: 'qwen2_vl', hidden_size: 3584, num_attention_heads: 28, rope_theta: 1000000, rope_scaling: { type: 'mrope', mrope_section: [16, 24, 24] } };
    const rope = posenc.ropeFromConfig(config);
    expect(rope).toEqual({ rotaryDim: 128, base: 1000000, layout: 'half', mropeSection: [16, 24, 24], mropeInterleaved: false });
    const v5 = posenc.ropeFromConfig({ model_type: 'qwen2_vl', text_config: { head_dim: 128, rope_parameters: { rope_type: 'default', rope_theta: 1000000, mrope_section: [16, 24, 24] } } });
    expect(v5).toEqual(rope);
    const spans = [{ text: 3 }, { image: [1, 4, 4] }, { text: 2 }];
    const positions = posenc.mropePositions({ spans });
    const seq = positions.length / 3;
    const q = posenc.applyRope(values(seq * 2 * 128, 5), { ...rope, heads: 2, headDim: 128, positions });
    expect(q.every(Number.isFinite)).toBe(true);
    expect(posenc.ropeFrequencies(rope).invFreq.length).toBe(64);
    // text alone (no positions): every axis at the same position, plain RoPE bit for bit
    const x = values(5 * 2 * 128, 7);
    const text = posenc.applyRope(Float32Array.from(x), { ...rope, heads: 2, headDim: 128, offset: 3 });
    const plain = posenc.applyRope(Float32Array.from(x), { rotaryDim: 128, base: 1000000, heads: 2, headDim: 128, offset: 3 });
    expect(Array.from(text)).toEqual(Array.from(plain));
  });

  test("Qwen3-VL's interleaved M-RoPE (apply_interleaved_mrope): pair k on axis k % 3 within its section, else temporal", () => {
    const rope = posenc.ropeFromConfig({ model_type: 'qwen3_vl', text_config: { head_dim: 128, rope_theta: 5000000, rope_scaling: { rope_type: 'default', mrope_section: [24, 20, 20], mrope_interleaved: true } } });
    expect(rope).toEqual({ rotaryDim: 128, base: 5000000, layout: 'half', mropeSection: [24, 20, 20], mropeInterleaved: true });
    const positions = posenc.mropePositions({ spans: [{ text: 3 }, { image: [1, 4, 6] }, { text: 2 }] });
    const seq = positions.length / 3;
    const { cos, sin } = posenc.ropeCache({ ...rope, positions });
    const f = (k) => 5000000 ** (-(2 * k) / 128);
    let worst = 0;
    for (let r = 0; r < seq; r++) {
      for (let k = 0; k < 64; k++) {
        const axis = k % 3 !== 0 && k < 3 * 20 ? k % 3 : 0;
        const angle = positions[axis * seq + r] * f(k);
        worst = Math.max(worst, Math.abs(cos[r * 64 + k] - Math.cos(angle)), Math.abs(sin[r * 64 + k] - Math.sin(angle)));
      }
    }
    expect(worst).toBeLessThanOrEqual(ULP1);
    // the sectioned form (Qwen2-VL's) differs: the arrangement is part of the options
    const sectioned = posenc.ropeCache({ ...rope, mropeInterleaved: false, positions });
    expect(Array.from(sectioned.cos)).not.toEqual(Array.from(cos));
  });
});

describe('2-D RoPE: Pixtral and the Qwen2-VL vision encoder', () => {
  test.each(ref.pixtralRope.map((c) => [`${c.height} x ${c.width}, headDim ${c.headDim}`, c]))('Pixtral %s: the cache of a patch grid', (_name, c) => {
    const { cos, sin } = posenc.ropeCache({ rotaryDim: c.headDim, base: c.base, rope2d: 'pixtral', grid: { height: c.height, width: c.width } });
    const [wc, ws] = [c.cos.flat(), c.sin.flat()];
    expect(maxError(cos, (i) => wc[i])).toBeLessThanOrEqual(ULP1);
    expect(maxError(sin, (i) => ws[i])).toBeLessThanOrEqual(ULP1);
  });

  test('Pixtral applyRope on q [patches][heads][headDim] is q * cos + rotate_half(q) * sin with its cache', () => {
    const c = ref.pixtralRope[1];
    const [heads, patches, half] = [2, c.height * c.width, c.headDim / 2];
    const q = values(patches * heads * c.headDim, 2);
    const y = posenc.applyRope(q.slice(), { heads, headDim: c.headDim, rope2d: 'pixtral', grid: { height: c.height, width: c.width } });
    const err = maxError(y, (i) => {
      const p = Math.floor(i / (heads * c.headDim)), j = i % c.headDim, o = i - j;
      const k = j % half, [co, si] = [c.cos[p][k], c.sin[p][k]];
      return j < half ? q[o + j] * co - q[o + j + half] * si : q[o + j] * co + q[o + j - half] * si;
    });
    expect(err).toBeLessThanOrEqual(2 * ULP1 * 3);
    // the grid is the positions [2][patches] of row-major patches
    const rows = Int32Array.from({ length: patches }, (_, i) => Math.floor(i / c.width));
    const cols = Int32Array.from({ length: patches }, (_, i) => i % c.width);
    const z = posenc.applyRope(q.slice(), { heads, headDim: c.headDim, rope2d: 'pixtral', positions: Int32Array.from([...rows, ...cols]) });
    expect(same(y, z)).toBe(true);
  });

  test.each(ref.qwen2VisionRope.map((c) => [`t ${c.t}, ${c.h} x ${c.w}, headDim ${c.headDim}`, c]))('axial (Qwen2-VL vision encoder) %s: the cache at rot_pos_emb positions', (_name, c) => {
    const positions = Int32Array.from(c.positions.flat());
    const { cos, sin } = posenc.ropeCache({ rotaryDim: c.headDim, base: c.base, rope2d: 'axial', positions });
    const [wc, ws] = [c.cos.flat(), c.sin.flat()];
    expect(maxError(cos, (i) => wc[i])).toBeLessThanOrEqual(ULP1);
    expect(maxError(sin, (i) => ws[i])).toBeLessThanOrEqual(ULP1);
  });

  test.each(['pixtral', 'axial'])('%s: the score of q at (y, x) and k at (y\', x\') depends only on (y - y\', x - x\')', (form) => {
    const headDim = 32;
    const q = values(headDim, 7), k = values(headDim, 11);
    const at = (v, y, x) => posenc.applyRope(v.slice(), { heads: 1, headDim, rope2d: form, positions: Int32Array.from([y, x]) });
    const dot = (a, b) => a.reduce((s, v, i) => s + v * b[i], 0);
    const near = dot(at(q, 3, 5), at(k, 1, 2));
    const far = dot(at(q, 1003, 2005), at(k, 1001, 2002));
    expect(Math.abs(near - far)).toBeLessThanOrEqual(1e-5);
  });

  test('ropeFrequencies with rope2d: the frequencies in the order the pairs use them', () => {
    const f = [0, 1, 2, 3].map((k) => 10000 ** (-2 * k / 8)); // base^(-2k/d), in double, here
    const close = (got, want) => Array.from(got).forEach((v, i) => expect(Math.abs(v / want[i] - 1)).toBeLessThanOrEqual(2 ** -51));
    // Pixtral: the even frequencies for the row, the odd ones for the column
    close(posenc.ropeFrequencies({ rotaryDim: 8, rope2d: 'pixtral' }).invFreq, [f[0], f[2], f[1], f[3]]);
    // the Qwen2-VL vision encoder: base^(-4k/d) for each axis
    close(posenc.ropeFrequencies({ rotaryDim: 8, rope2d: 'axial' }).invFreq, [f[0], f[2], f[0], f[2]]);
  });

  test('rules: grid fits x, rotaryDim % 4, no scaling, grid or positions, not with mropeSection', () => {
    const x = new Float32Array(6 * 16);
    const cases = [
      [() => posenc.applyRope(x, { heads: 1, headDim: 16, rope2d: 'pixtral', grid: { height: 2, width: 2 } }), RangeError, 'grid.height * grid.width'],
      [() => posenc.applyRope(x, { heads: 1, headDim: 16, rotaryDim: 6, rope2d: 'pixtral', grid: { height: 2, width: 3 } }), RangeError, 'multiple of 4'],
      [() => posenc.applyRope(x, { heads: 1, headDim: 16, rope2d: 'axial', grid: { height: 2, width: 3 }, scaling: { type: 'linear', factor: 2 } }), RangeError, 'no scaling'],
      [() => posenc.applyRope(x, { heads: 1, headDim: 16, rope2d: 'axial' }), TypeError, 'grid'],
      [() => posenc.applyRope(x, { heads: 1, headDim: 16, grid: { height: 2, width: 3 } }), RangeError, 'rope2d'],
      [() => posenc.applyRope(x, { heads: 1, headDim: 16, rope2d: 'axial', mropeSection: [4, 2, 2], positions: new Int32Array(18) }), RangeError, 'not both'],
      [() => posenc.applyRope(x, { heads: 1, headDim: 16, mropeInterleaved: true }), TypeError, 'mropeInterleaved goes with mropeSection'],
      [() => posenc.applyRope(x, { heads: 1, headDim: 16, mropeSection: [0, 4, 4], mropeInterleaved: true, positions: new Int32Array(18) }), RangeError, 'too many pairs'],
      [() => posenc.applyRope(x, { heads: 1, headDim: 16, mropeSection: [4, 2, 1], positions: new Int32Array(18) }), RangeError, 'add up to rotaryDim (default headDim = 16) / 2 = 8'],
      [() => posenc.applyRope(x, { heads: 1, headDim: 16, mropeSection: [4, 2, 2], positions: new Int32Array(6) }), RangeError, '3 * seq = 18'],
      [() => posenc.applyRope(x, { heads: 1, headDim: 16, mropeSection: [4, 2, 2], positions: new Int32Array(18), offset: 3 }), RangeError, 'offset'],
    ];
    const before = posenc.memoryStats();
    for (const [call, Err, text] of cases) {
      const e = thrown(call);
      expect(e).toBeInstanceOf(Err);
      expect(e.message).toContain(text);
    }
    expect(x.every((v) => v === 0)).toBe(true);
    expect(posenc.memoryStats()).toEqual(before);
  });
});
