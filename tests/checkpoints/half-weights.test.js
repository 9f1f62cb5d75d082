// half-weights.test.js: a checkpoint whose matrices are all F16, or all BF16,
// keeps them so in wasm memory (weightFormat; include/posenc_encoder.h,
// posenc_weight_format), and computes what the same values give as an F32
// checkpoint, bit for bit: the prompt's logits and every decoder feed's. The
// two wasm builds (SIMD and baseline) agree bit for bit on them, fresh
// processes each. Mixed dtypes are widened; a non-finite half is refused.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { posencEncoder as posenc } from '../helpers.js';

const ROOT = path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'fixtures', 'checkpoints');
const read = (name, file) => fs.readFileSync(path.join(ROOT, name, file));
const json = (name, file) => JSON.parse(read(name, file).toString('utf8'));
const HALF_FILES = fs.readdirSync(ROOT).sort().flatMap((name) =>
  Object.entries(json(name, 'expected.json').files).filter(([, f]) => f.dtype !== 'F32').map(([file, f]) => [name, file, f.dtype]));

beforeAll(() => posenc.init());

const bits = (a) => new Uint32Array(Float32Array.from(a).buffer);

/** The same tensors' values as an F32 file (readSafetensors widens them exactly). */
function asF32(bytes) {
  const { tensors } = posenc.readSafetensors(bytes);
  return posenc.writeSafetensors(Object.fromEntries(Object.entries(tensors).map(([n, t]) => [n, { shape: t.shape, data: t.data }])));
}

/** Logits of the prompt, then a decoder's after the prompt and after each of `steps` greedy tokens. */
function run(model, prompt, steps = 6) {
  const out = [...model.logits(prompt)];
  const d = model.decoder();
  let logits = d.feed(prompt);
  for (let i = 0; i < steps; i++) {
    out.push(...logits);
    logits = d.feed(logits.indexOf(Math.max(...logits)));
  }
  d.dispose();
  return out;
}

test('the fixtures have F16 and BF16 files', () => {
  expect(new Set(HALF_FILES.map(([, , dtype]) => dtype))).toEqual(new Set(['F16', 'BF16']));
});

describe.each(HALF_FILES)('%s %s', (name, file, dtype) => {
  const config = json(name, 'config.json');
  const { prompt } = json(name, 'expected.json');

  test(`kept as ${dtype}: 2 bytes a matrix value, the logits and feeds of the F32 copy bit for bit`, () => {
    const bytes = read(name, file);
    const half = posenc.createModel({ config, weights: bytes });
    const wide = posenc.createModel({ config, weights: asF32(bytes) });
    expect(half.weightFormat).toBe(dtype);
    expect(wide.weightFormat).toBe('F32');
    expect(half.parameterCount).toBe(wide.parameterCount);
    expect(wide.weightBytes).toBe(4 * wide.parameterCount);
    // every 2-D tensor of these checkpoints is a matrix: ceil(count / 2) floats each; the rest 4 bytes a value
    const { tensors } = posenc.readSafetensors(bytes);
    const want = Object.values(tensors).reduce((sum, t) => sum + (t.shape.length === 2 ? 4 * Math.ceil(t.data.length / 2) : 4 * t.data.length), 0);
    expect(half.weightBytes).toBe(want);
    expect(bits(run(half, prompt))).toEqual(bits(run(wide, prompt)));
    half.dispose();
    wide.dispose();
  });
});

test('special halves (signed zero, subnormals, the smallest normal) give the F32 copy bit for bit, in every lane and tail', () => {
  const [name, file] = HALF_FILES.find(([, , dtype]) => dtype === 'F16');
  const config = json(name, 'config.json');
  const { tensors } = posenc.readSafetensors(read(name, file));
  const q = tensors['model.layers.0.self_attn.q_proj.weight'].data;
  const specials = [-0, 2 ** -24, -(2 ** -24), 1023 * 2 ** -24, 2 ** -14, 0.5, -(2 ** -14), 3 * 2 ** -20, 1, -1, 2 ** -24];
  specials.forEach((v, i) => {
    q[i] = v;
    q[q.length - 1 - i] = -v;
  });
  const f16 = posenc.writeSafetensors(Object.fromEntries(Object.entries(tensors).map(([n, t]) => [n, { shape: t.shape, data: t.data, dtype: 'F16' }])));
  const half = posenc.createModel({ config, weights: f16 });
  const wide = posenc.createModel({ config, weights: asF32(f16) });
  expect(half.weightFormat).toBe('F16');
  const { prompt } = json(name, 'expected.json');
  expect(bits(run(half, prompt))).toEqual(bits(run(wide, prompt)));
  half.dispose();
  wide.dispose();
});

/**
 * A Llama checkpoint whose products reach every tail of the kernels: rows of
 * 10 (eight, then two one by one), 12 (eight, then four) and 13 values; 6 key
 * and value outputs, 30 logits (four at a time, then two). Random weights,
 * U(-0.5, 0.5) from a fixed seed, as `dtype`.
 */
function oddCheckpoint(dtype) {
  const config = {
    model_type: 'llama', vocab_size: 30, hidden_size: 10, intermediate_size: 13, num_hidden_layers: 2, num_attention_heads: 2,
    num_key_value_heads: 1, head_dim: 6, rms_norm_eps: 1e-6, rope_theta: 10000, tie_word_embeddings: false, max_position_embeddings: 64,
  };
  const shapes = { 'model.embed_tokens.weight': [30, 10], 'model.norm.weight': [10], 'lm_head.weight': [30, 10] };
  for (let l = 0; l < 2; l++) {
    const p = `model.layers.${l}.`;
    Object.assign(shapes, {
      [`${p}input_layernorm.weight`]: [10], [`${p}post_attention_layernorm.weight`]: [10],
      [`${p}self_attn.q_proj.weight`]: [12, 10], [`${p}self_attn.k_proj.weight`]: [6, 10], [`${p}self_attn.v_proj.weight`]: [6, 10],
      [`${p}self_attn.o_proj.weight`]: [10, 12], [`${p}mlp.gate_proj.weight`]: [13, 10], [`${p}mlp.up_proj.weight`]: [13, 10],
      [`${p}mlp.down_proj.weight`]: [10, 13],
    });
  }
  let seed = 12345;
  const next = () => {
    seed = (seed * 1664525 + 1013904223) >>> 0;
    return seed / 2 ** 32 - 0.5;
  };
  const tensors = Object.fromEntries(Object.entries(shapes).map(([n, shape]) => {
    const data = Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, () => (shape.length === 1 ? 1 + 0.2 * next() : next()));
    return [n, { shape, data, dtype }];
  }));
  return { config, bytes: posenc.writeSafetensors(tensors) };
}

test.each(['F16', 'BF16'])('%s: odd shapes (every tail of the kernels) give the F32 copy bit for bit', (dtype) => {
  const { config, bytes } = oddCheckpoint(dtype);
  const half = posenc.createModel({ config, weights: bytes });
  const wide = posenc.createModel({ config, weights: asF32(bytes) });
  expect(half.weightFormat).toBe(dtype);
  const prompt = [3, 17, 4, 29, 8, 0, 11];
  expect(bits(run(half, prompt))).toEqual(bits(run(wide, prompt)));
  half.dispose();
  wide.dispose();
});

test('mixed dtypes among the matrices are widened (weightFormat F32); F32 norms beside F16 matrices keep F16', () => {
  const [name, file] = HALF_FILES.find(([, , dtype]) => dtype === 'F16');
  const config = json(name, 'config.json');
  const { tensors } = posenc.readSafetensors(read(name, file));
  const write = (dtypeOf) => posenc.writeSafetensors(Object.fromEntries(Object.entries(tensors).map(([n, t]) => [n, { shape: t.shape, data: t.data, dtype: dtypeOf(n, t) }])));
  const mixed = write((n) => (n === 'model.layers.1.mlp.up_proj.weight' ? 'BF16' : 'F16'));
  const model = posenc.createModel({ config, weights: mixed });
  expect(model.weightFormat).toBe('F32');
  const wide = posenc.createModel({ config, weights: asF32(mixed) });
  const { prompt } = json(name, 'expected.json');
  expect(bits(model.logits(prompt))).toEqual(bits(wide.logits(prompt)));
  model.dispose();
  wide.dispose();
  const normsF32 = posenc.createModel({ config, weights: write((n, t) => (t.shape.length === 1 ? 'F32' : 'F16')) });
  expect(normsF32.weightFormat).toBe('F16');
  normsF32.dispose();
});

test('a non-finite half in a kept matrix is refused, naming the tensor and the value, nothing left allocated', () => {
  for (const [name, file, dtype] of HALF_FILES) {
    const config = json(name, 'config.json');
    const { tensors } = posenc.readSafetensors(read(name, file));
    tensors['model.layers.1.self_attn.k_proj.weight'].data[5] = -Infinity;
    const bytes = posenc.writeSafetensors(Object.fromEntries(Object.entries(tensors).map(([n, t]) => [n, { shape: t.shape, data: t.data, dtype }])));
    const before = posenc.memoryStats();
    expect(() => posenc.createModel({ config, weights: bytes })).toThrow(
      /^posenc\.createModel: weights\['layers\.1\.self_attn\.k_proj\.weight'\]\.data\[5\] must be a finite number within float32 range, got -Infinity/,
    );
    expect(posenc.memoryStats()).toEqual(before);
  }
});

test('the SIMD and baseline builds give the same bits on every F16 and BF16 file (fresh processes)', () => {
  const dist = new URL('../../dist/encoder.mjs', import.meta.url).href;
  const cases = HALF_FILES.map(([name, file]) => ({ dir: path.join(ROOT, name), file }));
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'posenc-half-'));
  for (const dtype of ['F16', 'BF16']) { // and the odd shapes, with their own prompt
    const { config, bytes } = oddCheckpoint(dtype);
    const dir = path.join(tmp, dtype);
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(config));
    fs.writeFileSync(path.join(dir, 'expected.json'), JSON.stringify({ prompt: [3, 17, 4, 29, 8, 0, 11] }));
    fs.writeFileSync(path.join(dir, 'model.safetensors'), bytes);
    cases.push({ dir, file: 'model.safetensors' });
  }
  const script = (simd) => `
    import fs from 'node:fs';
    const p = await import(${JSON.stringify(dist)});
    await p.init({ simd: ${simd} });
    const out = [];
    for (const { dir, file } of ${JSON.stringify(cases)}) {
      const config = JSON.parse(fs.readFileSync(dir + '/config.json'));
      const { prompt } = JSON.parse(fs.readFileSync(dir + '/expected.json'));
      const m = p.createModel({ config, weights: fs.readFileSync(dir + '/' + file) });
      if (m.weightFormat === 'F32') throw new Error(file + ' was widened');
      out.push(...m.logits(prompt));
      const d = m.decoder();
      let l = d.feed(prompt);
      for (let i = 0; i < 4; i++) { out.push(...l); l = d.feed(l.indexOf(Math.max(...l))); }
      m.dispose();
    }
    console.log(JSON.stringify({ build: p.wasmBuild(), bits: Array.from(new Uint32Array(Float32Array.from(out).buffer)) }));`;
  const runBuild = (simd) => JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script(simd)], { maxBuffer: 64 << 20 }).toString());
  const [a, b] = [runBuild(true), runBuild(false)];
  fs.rmSync(tmp, { recursive: true });
  expect([a.build, b.build]).toEqual(['simd', 'baseline']);
  expect(a.bits.length).toBeGreaterThan(1000);
  expect(b.bits).toEqual(a.bits);
});
