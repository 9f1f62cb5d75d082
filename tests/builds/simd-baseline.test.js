// The two wasm builds, WASM SIMD and baseline, give bit-identical results:
// each is instantiated raw and every kernel path is run on both with the same
// input. The encoder's builds (dist/posenc-encoder*.wasm) hold every routine;
// the default entry's (dist/posenc*.wasm) are held to them too.
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { encoder_config as CONFIG, lm_head as LM_HEAD, rope as ROPE, rope_axes as AXES, sampling as SAMPLING, status as STATUS } from '../../build/abi.js';
import { writeStruct } from '../../src/js/core/struct.js';
import { posenc } from '../helpers.js';

async function load(file) {
  const bytes = readFileSync(new URL(`../../dist/${file}`, import.meta.url));
  const { instance } = await WebAssembly.instantiate(bytes, { env: { emscripten_notify_memory_growth() {} } });
  instance.exports._initialize();
  return instance.exports;
}

let simd;
let base;
let small; // the default entry's builds: { simd, base }
beforeAll(async () => {
  simd = await load('posenc-encoder.wasm');
  base = await load('posenc-encoder-baseline.wasm');
  small = { simd: await load('posenc.wasm'), base: await load('posenc-baseline.wasm') };
});

// Runs call(exports, ptr) on a buffer holding `input` (or zeros) and returns its bytes after.
function run(e, bytes, call, input) {
  const ptr = e.malloc(bytes);
  const view = new Uint8Array(e.memory.buffer, ptr, bytes);
  if (input) view.set(new Uint8Array(input.buffer, input.byteOffset, bytes));
  else view.fill(0);
  const status = call(e, ptr);
  const out = new Uint8Array(e.memory.buffer, ptr, bytes).slice();
  e.free(ptr);
  expect(status).toBe(0);
  return out;
}

function same(bytes, call, input) {
  const [a, b] = [run(simd, bytes, call, input), run(base, bytes, call, input)];
  // toEqual names the first differing byte, but walks large arrays slowly: only on a mismatch
  if (Buffer.compare(a, b) !== 0) expect(a).toEqual(b);
  expect(Buffer.compare(a, b)).toBe(0);
}

test('the SIMD build uses v128 instructions, the baseline none (binaryen wasm-dis, installed with emcc)', () => {
  const simdOps = (file) => {
    const text = execFileSync('wasm-dis', [fileURLToPath(new URL(`../../dist/${file}`, import.meta.url))], { maxBuffer: 64 << 20 }).toString();
    return (text.match(/\b(v128|f64x2|f32x4)\./g) || []).length;
  };
  expect(simdOps('posenc.wasm')).toBeGreaterThan(50);
  expect(simdOps('posenc-baseline.wasm')).toBe(0);
  expect(simdOps('posenc-encoder.wasm')).toBeGreaterThan(50);
  expect(simdOps('posenc-encoder-baseline.wasm')).toBe(0);
});

test("the default entry's builds give the encoder builds' bits (the same routines, linked apart)", () => {
  const check = (bytes, call) => {
    const want = run(simd, bytes, call);
    for (const e of [small.simd, small.base]) expect(Buffer.compare(run(e, bytes, call), want)).toBe(0);
  };
  check(37 * 129 * 4, (e, p) => e.posenc_sinusoidal(p, 37 * 129, 37, 129, 0, 1000003, 0));
  check(2 * 50 * 32 * 4, (e, p) => withRope(e, 32, {}, (r) => e.posenc_rope_cache(p, p + 50 * 32 * 4, 50 * 32, 50, 4095, 0, r)));
});

test.each([0, 1, 2, 3])('sinusoidal layout %i: identical tables, odd widths and long positions', (layout) => {
  for (const [L, d, offset] of [[37, 64, 0], [19, 129, 1000003], [70, 7, 2 ** 20], [5, 1030, 2 ** 24]]) {
    if (layout === 3 && d < 4) continue;
    same(L * d * 4, (e, p) => e.posenc_sinusoidal(p, L * d, L, d, 0, offset, layout));
  }
});

test('addSinusoidal, both orders', () => {
  const x = Float32Array.from({ length: 3 * 9 * 33 }, (_, i) => Math.sin(i));
  for (const order of [0, 1]) {
    same(x.byteLength, (e, p) => e.posenc_add_sinusoidal(p, x.length, 3, 9, 33, order, 5.5, 0, 12345, 0), x);
  }
});

/**
 * Runs call(rope) with a posenc_rope in wasm memory (include/posenc.h): rotary
 * dimension 2 * half, its frequencies given (base^(-2k/r), computed here),
 * and the other fields of `fields` (layout, precision, attention_factor).
 */
function withRope(e, half, fields, call) {
  const p = e.malloc(ROPE.bytes + half * 8);
  new Float64Array(e.memory.buffer, p + ROPE.bytes, half).set(Float64Array.from({ length: half }, (_, k) => Math.pow(10000, (-2 * k) / (2 * half))));
  writeStruct(e.memory, p, ROPE, { rotary_dim: 2 * half, inv_freq: p + ROPE.bytes, ...fields });
  const status = call(p);
  e.free(p);
  return status;
}

test('ropeCache in both precisions, with an attention factor', () => {
  const L = 300;
  const half = 36;
  for (const precision of [0, 1]) {
    same(2 * L * half * 4, (e, p) => withRope(e, half, { attention_factor: 1.25, precision }, (r) => e.posenc_rope_cache(p, p + L * half * 4, L * half, L, 777, 0, r)));
  }
});

test('applyRope, both layouts and precisions, partial rotary, odd pair counts', () => {
  const [batch, seq, heads, headDim] = [2, 40, 3, 22];
  const x = Float32Array.from({ length: batch * seq * heads * headDim }, (_, i) => Math.cos(i * 0.7) * 3);
  for (const rotary of [22, 14, 6]) {
    for (const layout of [0, 1]) {
      for (const precision of [0, 1]) {
        same(x.byteLength, (e, p) => withRope(e, rotary / 2, { layout, precision }, (r) => e.posenc_rope_apply(p, x.length, batch, seq, heads, headDim, 0, 2 ** 20, 0, 0, r)), x);
      }
    }
  }
});

test("applyRope order 'bhsd': tiles of rows, partial tiles, two frequency blocks, one row", () => {
  for (const [batch, seq, heads, headDim, rotary] of [[2, 45, 3, 256, 256], [1, 70, 2, 300, 260], [3, 1, 4, 16, 16]]) {
    const x = Float32Array.from({ length: batch * seq * heads * headDim }, (_, i) => Math.cos(i * 0.3) * 2);
    for (const layout of [0, 1]) {
      for (const precision of [0, 1]) {
        same(x.byteLength, (e, p) => withRope(e, rotary / 2, { layout, precision }, (r) => e.posenc_rope_apply(p, x.length, batch, seq, heads, headDim, 1, -20, 0, 0, r)), x);
      }
    }
  }
});

test('Transformer-XL and ALiBi', () => {
  same(50 * 64 * 4, (e, p) => e.posenc_transformer_xl_embedding(p, 50 * 64, 50, 64, 20));
  same(5 * 9 * 11 * 4, (e, p) => e.posenc_alibi_bias(p, 5 * 9 * 11, 5, 9, 11, 2, 0, 8));
});

test('the 2-D sine-cosine table and timestep embeddings', () => {
  same(15 * 17 * 32 * 4, (e, p) => e.posenc_sinusoidal_2d(p, 15 * 17 * 32, 15, 17, 32, 0, 0, 16, 2));
  const steps = Float64Array.from({ length: 40 }, (_, i) => (i < 20 ? i : 999.5 - i * 7.25));
  same(40 * 64 * 4 + steps.byteLength, (e, p) => {
    new Float64Array(e.memory.buffer, p + 40 * 64 * 4, 40).set(steps);
    return e.posenc_timestep_embedding(p, 40 * 64, p + 40 * 64 * 4, 40, 64, 1, 0, 1, 0);
  });
});

test('RoPE over three axes (M-RoPE): the cache and the rotation, both layouts and precisions', () => {
  const [seq, heads, headDim] = [60, 2, 24];
  const positions = Int32Array.from({ length: 3 * seq }, (_, i) => (i * 7) % 23 + (i > seq ? 1000 : 0));
  const withAxes = (e, arrangement, fields, call) => {
    const q = e.malloc(positions.byteLength + AXES.bytes);
    new Int32Array(e.memory.buffer, q, 3 * seq).set(positions);
    // sections of 4 pairs: valid sectioned and interleaved
    writeStruct(e.memory, q + positions.byteLength, AXES, { n_axes: 3, sections: [4, 4, 4, 0], arrangement });
    const status = withRope(e, 12, fields, (r) => call(r, q, q + positions.byteLength));
    e.free(q);
    return status;
  };
  const x = Float32Array.from({ length: seq * heads * headDim }, (_, i) => Math.sin(i * 0.3));
  for (const precision of [0, 1]) {
    for (const arrangement of [0, 1]) { // sectioned (Qwen2-VL), interleaved (Qwen3-VL)
      same(2 * seq * 12 * 4, (e, p) => withAxes(e, arrangement, { precision }, (r, pos, axes) => e.posenc_rope_axes_cache(p, p + seq * 12 * 4, seq * 12, seq, pos, axes, r)));
    }
    for (const [layout, order, arrangement] of [[0, 0, 0], [1, 0, 1], [0, 1, 1], [1, 1, 0]]) {
      same(x.byteLength, (e, p) => withAxes(e, arrangement, { layout, precision }, (r, pos, axes) => e.posenc_rope_axes_apply(p, x.length, 1, seq, heads, headDim, order, pos, 3 * seq, axes, r)), x);
    }
  }
});

// Tables that walk through position 0 and past anchors (every multiple of
// 1024): ascending from negative offsets, descending in Transformer-XL, and
// RoPE runs of listed positions. Both builds give the same bytes, and position
// 0 is exactly sin 0 = 0, cos 0 = 1 in each.
test('through position 0 and the anchors: identical, and exact at 0', () => {
  const f32 = (bytes) => new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  for (const layout of [0, 1, 2, 3]) {
    for (const [L, d, offset] of [[2100, 20, -1050], [40, 7, -5], [1100, 300, -1024]]) {
      if (layout === 3 && d < 4) continue;
      for (const e of [simd, base]) {
        const t = f32(run(e, L * d * 4, (x, p) => x.posenc_sinusoidal(p, L * d, L, d, 0, offset, layout)));
        const row = t.subarray(-offset * d, (1 - offset) * d);
        const sines = layout === 0 ? row.filter((_, k) => k % 2 === 0) : row.subarray(0, layout === 1 ? d - (d >> 1) : d >> 1);
        const cosines = layout === 0 ? row.filter((_, k) => k % 2 === 1) : row.subarray(layout === 1 ? d - (d >> 1) : d >> 1, 2 * (d >> 1) + (layout === 1 ? d % 2 : 0));
        expect(sines.every((v) => Object.is(v, 0))).toBe(true);
        expect(cosines.every((v) => v === 1)).toBe(true);
      }
      same(L * d * 4, (e, p) => e.posenc_sinusoidal(p, L * d, L, d, 0, offset, layout));
    }
  }
  for (const [L, clamp] of [[2100, 0], [3000, 1500], [5, 0]]) {
    same(L * 8 * 4, (e, p) => e.posenc_transformer_xl_embedding(p, L * 8, L, 8, clamp));
    for (const e of [simd, base]) {
      const last = f32(run(e, L * 8 * 4, (x, p) => x.posenc_transformer_xl_embedding(p, L * 8, L, 8, clamp))).subarray(-8);
      expect(Array.from(last)).toEqual([0, 0, 0, 0, 1, 1, 1, 1]);
    }
  }
  const L = 2200;
  const half = 2;
  const positions = Int32Array.from({ length: L }, (_, r) => (r < 7 ? r - 3 : r - 1100));
  for (const precision of [0, 1]) {
    same(2 * L * half * 4, (e, p) => withRope(e, half, { attention_factor: 1.25, precision }, (r) => e.posenc_rope_cache(p, p + L * half * 4, L * half, L, -1500, 0, r)));
    same(2 * L * half * 4 + L * 4, (e, p) => {
      new Int32Array(e.memory.buffer, p + 2 * L * half * 4, L).set(positions);
      return withRope(e, half, { precision }, (r) => e.posenc_rope_cache(p, p + L * half * 4, L * half, L, 0, p + 2 * L * half * 4, r));
    });
  }
  const x = Float32Array.from({ length: 1300 * 8 }, (_, i) => Math.sin(i) * 2);
  for (const layout of [0, 1]) {
    same(x.byteLength, (e, p) => withRope(e, 4, { layout }, (r) => e.posenc_rope_apply(p, x.length, 1, 1300, 1, 8, 0, -1100, 0, 0, r)), x);
  }
});

// ------------------------------------------------------------ the encoder

/**
 * Calls fn(e, ...pointers) with each input array copied into e's memory and
 * outputs[i] zeroed bytes after them; returns the outputs' bytes.
 */
function runBuffers(e, inputs, outputs, fn) {
  const ptrs = inputs.map((a) => {
    const p = e.malloc(Math.max(a.byteLength, 8));
    new Uint8Array(e.memory.buffer, p, a.byteLength).set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
    return p;
  });
  const outs = outputs.map((bytes) => {
    const p = e.malloc(Math.max(bytes, 8));
    new Uint8Array(e.memory.buffer, p, bytes).fill(0);
    return p;
  });
  const status = fn(e, ...ptrs, ...outs);
  const result = outs.map((p, i) => Buffer.from(new Uint8Array(e.memory.buffer, p, outputs[i]).slice()));
  [...ptrs, ...outs].forEach((p) => e.free(p));
  expect(status).toBe(0);
  return result;
}

function sameBuffers(inputs, outputs, fn) {
  const a = runBuffers(simd, inputs, outputs, fn);
  const b = runBuffers(base, inputs, outputs, fn);
  a.forEach((bytes, i) => {
    if (Buffer.compare(bytes, b[i]) !== 0) expect(bytes).toEqual(b[i]);
    expect(Buffer.compare(bytes, b[i])).toBe(0);
  });
  return a;
}

const noise = (n, scale, seed = 1) => Float32Array.from({ length: n }, (_, i) => scale * Math.sin(seed * 12.9898 + i * 78.233) * Math.cos(i * 0.37 + seed));

test('linear, softmax and feed-forward (every activation): identical, odd sizes', () => {
  const [R, IN, OUT] = [13, 37, 19];
  const x = noise(R * IN, 2);
  const w = noise(OUT * IN + OUT, 0.5, 2);
  sameBuffers([x, w], [R * OUT * 4], (e, px, pw, pout) => e.posenc_linear(pout, R * OUT, px, R * IN, R, IN, pw, OUT * IN, OUT, pw + OUT * IN * 4));
  const scores = noise(7 * 45, 30, 3);
  scores[5] = -Infinity;
  same(scores.byteLength, (e, p) => e.posenc_softmax(p, scores.length, 7, 45), scores);
  const [D, FF] = [24, 41];
  const params = noise(2 * FF * D + FF + D, 0.6, 4);
  for (const activation of [0, 1, 2]) {
    sameBuffers([noise(R * D, 3, 5), params], [R * D * 4, R * FF * 4], (e, px, pp, pout, pwork) =>
      e.posenc_feed_forward(pout, R * D, px, R * D, R, D, FF, pp, params.length, activation, pwork, R * FF));
  }
});

test('attention: causal or not, bias, key mask, probabilities kept or not: identical', () => {
  const [S, H, HD] = [23, 3, 7];
  const n = S * H * HD;
  const [q, k, v] = [noise(n, 2, 6), noise(n, 2, 7), noise(n, 1, 8)];
  const bias = noise(H * S * S, 1, 9);
  const mask = Int32Array.from({ length: S }, (_, i) => (i % 6 === 4 ? 0 : 1));
  for (const causal of [0, 1]) {
    for (const withBias of [false, true]) {
      const [out, probs] = sameBuffers([q, k, v, bias, mask], [n * 4, H * S * S * 4], (e, pq, pk, pv, pb, pm, pout, pprobs) =>
        e.posenc_attention(pout, n, pq, pk, pv, n, S, H, HD, withBias ? pb : 0, withBias ? H * S * S : 0, pm, causal, pprobs, H * S * S, 0, 0));
      const [lean] = sameBuffers([q, k, v, bias, mask], [n * 4, S * S * 4], (e, pq, pk, pv, pb, pm, pout, pwork) =>
        e.posenc_attention(pout, n, pq, pk, pv, n, S, H, HD, withBias ? pb : 0, withBias ? H * S * S : 0, pm, causal, 0, 0, pwork, S * S));
      expect(Buffer.compare(out, lean)).toBe(0);
      expect(probs.length).toBe(H * S * S * 4);
    }
  }
});

/** posenc_encoder_config (include/posenc.h) at its wasm32 layout, read off the header (build/abi.js). */
const CONFIG_BYTES = CONFIG.bytes;
function encoderConfig(c) {
  const memory = { buffer: new ArrayBuffer(CONFIG.bytes) };
  writeStruct(memory, 0, CONFIG, c);
  return new Uint8Array(memory.buffer);
}

test.each([
  ['none', 0, 0, 0], ['sinusoidal', 1, 1, 1], ['rope', 2, 0, 2], ['alibi', 3, 1, 1], ['t5', 4, 0, 0], ['learned', 5, 1, 1],
])('the encoder (%s): logits and attention identical, causal and not, with a mask', (name, positional, norm, activation) => {
  const [V, D, H, FF, L, S] = [18, 24, 3, 40, 2, 29];
  const HD = D / H;
  const invFreq = Float64Array.from({ length: HD / 2 }, (_, k) => Math.pow(10000, (-2 * k) / HD));
  const cfg = { vocab_size: V, d_model: D, heads: H, d_ff: FF, layers: L, positional, norm, activation, final_norm: 1, lm_head: 1, learned: { max_length: S }, t5: { unidirectional: 1 } };
  const tokens = Int32Array.from({ length: S }, (_, i) => (i * 7 + 3) % V);
  const mask = Int32Array.from({ length: S }, (_, i) => (i === S - 2 ? 0 : 1));
  for (const causal of [0, 1]) {
    const sizes = (e) => {
      // the config points at the frequencies: both live in one buffer
      const [bytes] = runBuffers(e, [], [8], (x, pSizes) => {
        const pc = x.malloc(CONFIG_BYTES + invFreq.byteLength);
        new Uint8Array(x.memory.buffer, pc, CONFIG_BYTES).set(encoderConfig({ ...cfg, rope: { inv_freq: pc + CONFIG_BYTES } }));
        new Float64Array(x.memory.buffer, pc + CONFIG_BYTES, invFreq.length).set(invFreq);
        const status = x.posenc_encoder_sizes(pc, S, pSizes, pSizes + 4);
        x.free(pc);
        return status;
      });
      return [bytes.readUInt32LE(0), bytes.readUInt32LE(4)];
    };
    const [pl, wl] = sizes(simd);
    expect(sizes(base)).toEqual([pl, wl]);
    const params = noise(pl, 0.4, 10 + positional);
    const [logits, attention] = sameBuffers([params, tokens, mask], [S * V * 4, L * H * S * S * 4, wl * 4, CONFIG_BYTES + invFreq.byteLength], (e, pp, pt, pm, pout, patt, pwork, pc) => {
      new Uint8Array(e.memory.buffer, pc, CONFIG_BYTES).set(encoderConfig({ ...cfg, rope: { inv_freq: pc + CONFIG_BYTES } }));
      new Float64Array(e.memory.buffer, pc + CONFIG_BYTES, invFreq.length).set(invFreq);
      const status = e.posenc_encoder_logits(pout, S * V, pc, pp, pl, pt, S, 0, pm, causal, -1, patt, L * H * S * S, pwork, wl);
      new Uint8Array(e.memory.buffer, pwork, wl * 4).fill(0); // the workspace is scratch: not compared
      return status;
    });
    expect(new Float32Array(logits.buffer, logits.byteOffset, S * V).every(Number.isFinite)).toBe(true);
    expect(attention.length).toBe(L * H * S * S * 4);
  }
});

test.each([
  ['none', 0], ['sinusoidal', 1], ['rope', 2], ['alibi', 3], ['t5', 4], ['learned', 5],
])('the decoder state (%s): a prompt then one token at a time, the logits identical; sampled generation the same tokens from the same seed', (name, positional) => {
  const [V, D, H, FF, L, M] = [18, 24, 3, 40, 2, 26];
  const HD = D / H;
  const invFreq = Float64Array.from({ length: HD / 2 }, (_, k) => Math.pow(10000, (-2 * k) / HD));
  const cfg = {
    vocab_size: V, d_model: D, heads: H, d_ff: FF, layers: L, positional, norm: positional % 2, activation: positional % 3, final_norm: 1, lm_head: 1,
    learned: { max_length: M }, query_scale: { type: 1 + (positional % 2), floor_scale: 3, attn_scale: 0.5, beta: 0.4, original_max_position: 5 },
  };
  const tokens = Int32Array.from({ length: M }, (_, i) => (i * 5 + 1) % V);
  const [pl] = [L * (4 * (D * D + D) + 4 * D + 2 * FF * D + FF + D) + V * D + 2 * D + V * D + (positional === 5 ? M * D : 0) + (positional === 4 ? 32 * H : 0)];
  const params = noise(pl, 0.4, 20 + positional);
  const GEN = 12;
  // the prompt of 8, then one token at a time: every step's logits; then a
  // sampled generation of GEN tokens after a reset, and the generator's state after
  const [steps, generated] = sameBuffers([params, tokens], [(M - 7) * V * 4, GEN * 4 + 16, CONFIG_BYTES + invFreq.byteLength + SAMPLING.bytes + 16], (e, pp, pt, pout, pgen, pc) => {
    new Uint8Array(e.memory.buffer, pc, CONFIG_BYTES).set(encoderConfig({ ...cfg, rope: { inv_freq: pc + CONFIG_BYTES } }));
    new Float64Array(e.memory.buffer, pc + CONFIG_BYTES, invFreq.length).set(invFreq);
    const ps = pc + CONFIG_BYTES + invFreq.byteLength;
    const pword = ps + SAMPLING.bytes;
    let status = e.posenc_decoder_create(pword, pc, pp, pl, M, -1);
    if (status !== 0) return status;
    const d = new Uint32Array(e.memory.buffer, pword, 1)[0];
    status = e.posenc_decoder_feed(d, pt, 0, 8, pout, V);
    for (let p = 8; p < M && status === 0; p++) status = e.posenc_decoder_feed(d, pt + 4 * p, 0, 1, pout + (p - 7) * V * 4, V);
    writeStruct(e.memory, ps, SAMPLING, { temperature: 0.9, top_k: 7, top_p: 0.95 });
    const prng = pgen + GEN * 4;
    new DataView(e.memory.buffer).setBigUint64(prng, 0x9e3779b97f4a7c15n, true);
    if (status === 0) status = e.posenc_decoder_reset(d);
    if (status === 0) status = e.posenc_decoder_generate(d, pt, 5, ps, prng, 0, 0, pgen, GEN, prng + 8);
    e.posenc_decoder_free(d);
    return status;
  });
  expect(new Float32Array(steps.buffer, steps.byteOffset, (M - 7) * V).every(Number.isFinite)).toBe(true);
  const out = new DataView(generated.buffer, generated.byteOffset);
  expect(out.getUint32(GEN * 4 + 8, true)).toBe(GEN); // written
  const ids = Array.from({ length: GEN }, (_, i) => out.getInt32(4 * i, true));
  expect(ids.every((t) => t >= 0 && t < V)).toBe(true);
  expect(new Set(ids).size).toBeGreaterThan(1); // sampled, not one token over and over
});

// wasm32's size_t and the allocator: the decoder state's cache as it grows
// past what wasm memory can hold is POSENC_ERR_OUT_OF_MEMORY (its bytes
// named), past size_t a size overflow; the state stays usable
test.each([['posenc-encoder.wasm'], ['posenc-encoder-baseline.wasm']])('the decoder state in wasm32 (%s): a cache the allocator cannot give is out of memory, the sequence as it was', async (file) => {
  const e = await load(file); // its own instance: this one's memory ends at 4 GiB
  const D = 256;
  const cfg = { vocab_size: 5, d_model: D, heads: 1, d_ff: 1, layers: 1, positional: 0, lm_head: LM_HEAD.indexOf('tied') };
  const pc = e.malloc(CONFIG_BYTES + 16);
  new Uint8Array(e.memory.buffer, pc, CONFIG_BYTES).set(encoderConfig(cfg));
  expect(e.posenc_encoder_sizes(pc, 1, pc + CONFIG_BYTES, pc + CONFIG_BYTES + 4)).toBe(0);
  const pl = new Uint32Array(e.memory.buffer, pc + CONFIG_BYTES, 1)[0];
  const pp = e.malloc(pl * 4);
  new Float32Array(e.memory.buffer, pp, pl).fill(0.01);
  const pword = pc + CONFIG_BYTES;
  expect(e.posenc_decoder_create(pword, pc, pp, pl, 0, -1)).toBe(0);
  const d = new Uint32Array(e.memory.buffer, pword, 1)[0];
  const pt = pword + 8;
  new Int32Array(e.memory.buffer, pt, 1)[0] = 3;
  // hold memory until the first cache (256 rows * 2 * 256 floats = 512 KiB) cannot be had
  const held = [];
  for (let size = 2 ** 30; size >= 2 ** 16; size /= 2) {
    for (let p = e.malloc(size); p !== 0; p = e.malloc(size)) held.push(p);
  }
  expect(e.posenc_decoder_feed(d, pt, 0, 1, 0, 0)).toBe(STATUS.ERR_OUT_OF_MEMORY);
  const err = e.posenc_last_error() >>> 0;
  const view = new DataView(e.memory.buffer);
  expect(view.getInt32(err, true)).toBe(STATUS.ERR_OUT_OF_MEMORY);
  expect(e.posenc_decoder_length(d)).toBe(0);
  for (const p of held) e.free(p);
  expect(e.posenc_decoder_feed(d, pt, 0, 1, 0, 0)).toBe(0);
  expect(e.posenc_decoder_length(d)).toBe(1);
  expect(e.posenc_decoder_memory(d) >>> 0).toBeGreaterThan(256 * 2 * D * 4);
  e.posenc_decoder_free(d);
  e.free(pp);
  e.free(pc);
});

test("init({ simd: false }) loads the baseline build through the public API, same values", async () => {
  await posenc.init({ simd: false });
  expect(posenc.wasmBuild()).toBe('baseline');
  expect(posenc.simdSupported()).toBe(true); // Node 20 runs SIMD: the baseline was forced
  const t = posenc.sinusoidal({ length: 33, dModel: 48, offset: 99 });
  const raw = run(simd, t.byteLength, (e, p) => e.posenc_sinusoidal(p, t.length, 33, 48, 0, 99, 0));
  expect(new Uint8Array(t.buffer)).toEqual(raw);
});
