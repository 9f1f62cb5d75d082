// checkpoints.test.js: createModel on tiny random Hugging Face checkpoints
// (tests/fixtures/checkpoints, written by tools/reference/checkpoints/make_checkpoints.py)
// against what transformers' own classes computed on them: the prompt's
// logits within 1e-5 of the largest (F32 files; the F16 and BF16 files against
// the same class on their rounded weights) and the greedy tokens identical,
// by generate(), by a decoder fed token by token, and by stream(). Then sharded
// weights, a nested text_config, and every refusal (named, nothing loaded).
import fs from 'node:fs';
import path from 'node:path';
import { posencEncoder as posenc } from '../helpers.js';

const ROOT = path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'fixtures', 'checkpoints');
const CASES = fs.readdirSync(ROOT).sort();
const read = (name, file) => fs.readFileSync(path.join(ROOT, name, file));
const json = (name, file) => JSON.parse(read(name, file).toString('utf8'));

beforeAll(() => posenc.init());

/** max |got - want| over max |want|: the error relative to the logits' scale */
function relError(got, want) {
  let err = 0;
  let scale = 0;
  want.flat().forEach((w, i) => {
    err = Math.max(err, Math.abs(got[i] - w));
    scale = Math.max(scale, Math.abs(w));
  });
  return err / scale;
}

const runs = CASES.flatMap((name) => Object.keys(json(name, 'expected.json').files).map((file) => [name, file]));

test('every served model type has a checkpoint, and some have F16 and BF16 copies', () => {
  const types = new Set(CASES.map((n) => json(n, 'config.json').model_type));
  expect([...types].sort()).toEqual(['llama', 'mistral', 'qwen2', 'qwen3']);
  const dtypes = new Set(runs.map(([n, f]) => json(n, 'expected.json').files[f].dtype));
  expect([...dtypes].sort()).toEqual(['BF16', 'F16', 'F32']);
});

describe.each(runs)('%s %s against transformers', (name, file) => {
  const expected = json(name, 'expected.json');
  const want = expected.files[file];
  let model;
  beforeAll(() => {
    model = posenc.createModel({ config: json(name, 'config.json'), weights: read(name, file) });
  });
  afterAll(() => model?.dispose());

  test('logits of the prompt within 1e-5 relative', () => {
    const got = model.logits(expected.prompt);
    expect(got.length).toBe(want.logits.length * want.logits[0].length);
    const e = relError(got, want.logits);
    expect(e).toBeLessThan(1e-5);
  });

  test('greedy tokens identical: generate, decoder feeds, stream', () => {
    const n = want.greedy.length;
    expect([...model.generate(expected.prompt, { maxNewTokens: n })]).toEqual(want.greedy);
    const d = model.decoder();
    let logits = d.feed(expected.prompt);
    const tokens = [];
    for (let i = 0; i < n; i++) {
      let best = 0;
      for (let v = 1; v < logits.length; v++) if (logits[v] > logits[best]) best = v;
      tokens.push(best);
      if (i + 1 < n) logits = d.feed(best);
    }
    d.dispose();
    expect(tokens).toEqual(want.greedy);
    expect([...model.stream(expected.prompt, { maxNewTokens: n })]).toEqual(want.greedy);
  });
});

test('the rope read from config.json is ropeFromConfig\'s, scaling included', () => {
  for (const name of CASES) {
    const config = json(name, 'config.json');
    const model = posenc.createModel({ config, weights: read(name, 'model.safetensors') });
    expect(model.rope).toEqual(posenc.ropeFromConfig(config));
    expect(model.options.positional.type).toBe('rope');
    model.dispose();
  }
  const llama = posenc.createModel({ config: json('llama', 'config.json'), weights: read('llama', 'model.safetensors') });
  expect(llama.rope.scaling.type).toBe('llama3');
  expect(llama.weightBytes).toBe(4 * llama.parameterCount);
  llama.dispose();
});

test('shards (with and without the index) and a nested text_config give the same logits', () => {
  const config = json('llama', 'config.json');
  const expected = json('llama', 'expected.json');
  const whole = posenc.readSafetensors(read('llama', 'model.safetensors')).tensors;
  const names = Object.keys(whole);
  const half = Math.floor(names.length / 2);
  const pick = (list) => Object.fromEntries(list.map((n) => [n, whole[n]]));
  const shards = [posenc.writeSafetensors(pick(names.slice(0, half))), posenc.writeSafetensors(pick(names.slice(half)))];
  const index = { weight_map: Object.fromEntries(names.map((n, i) => [n, i < half ? 'a' : 'b'])) };
  for (const args of [{ config, weights: shards }, { config, weights: shards, index }, { config: { model_type: 'llava', text_config: config }, weights: read('llama', 'model.safetensors') }]) {
    const model = posenc.createModel(args);
    expect(relError(model.logits(expected.prompt), expected.files['model.safetensors'].logits)).toBeLessThan(1e-5);
    model.dispose();
  }
  expect(() => posenc.createModel({ config, weights: [shards[0], shards[0]] })).toThrow(/'[^']+' is in two shards \(weights\[0\] and weights\[1\]\)/);
  expect(() => posenc.createModel({ config, weights: shards, index: { weight_map: { ...index.weight_map, 'model.extra.weight': 'c' } } })).toThrow(/index\.weight_map lists 'model\.extra\.weight'/);
});

describe('bad checkpoints: an error naming the tensor or key, nothing loaded', () => {
  const config = json('qwen2', 'config.json');
  const whole = posenc.readSafetensors(read('qwen2', 'model.safetensors')).tensors;
  const file = (edit) => {
    const t = { ...whole };
    edit(t);
    return posenc.writeSafetensors(t);
  };
  const refused = (args, type, pattern) => {
    const before = posenc.memoryStats();
    expect(() => posenc.createModel(args)).toThrow(type);
    expect(() => posenc.createModel(args)).toThrow(pattern);
    expect(posenc.memoryStats()).toEqual(before);
  };

  test('a missing tensor, a wrong shape, a tensor with no place, a disallowed dtype', () => {
    refused({ config, weights: file((t) => delete t['model.layers.1.mlp.up_proj.weight']) }, RangeError, /missing the tensor 'model\.layers\.1\.mlp\.up_proj\.weight' \[64, 64\]/);
    refused({ config, weights: file((t) => delete t['model.layers.0.self_attn.k_proj.bias']) }, RangeError, /'model\.layers\.0\.self_attn\.k_proj\.bias'/);
    refused({ config, weights: file((t) => { t['model.norm.weight'] = { shape: [32, 2], data: whole['model.norm.weight'].data }; }) }, RangeError, /'model\.norm\.weight' must have shape \[64\] for this config, got \[32, 2\]/);
    refused({ config, weights: file((t) => { t['model.layers.0.mlp.gate_bias'] = { shape: [2], data: new Float32Array(2) }; }) }, RangeError, /'model\.layers\.0\.mlp\.gate_bias', which this config has no place for/);
    const f64 = posenc.writeSafetensors(whole);
    // the same file with one tensor declared F64: written by hand (writeSafetensors writes F32, F16, BF16)
    const t = { 'model.norm.weight': whole['model.norm.weight'] };
    const bytes = posenc.writeSafetensors(t);
    const n = Number(new DataView(bytes.buffer).getBigUint64(0, true));
    const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n)));
    header['model.norm.weight'] = { dtype: 'F64', shape: [32], data_offsets: [0, 256] };
    const text = new TextEncoder().encode(JSON.stringify(header).padEnd(Math.ceil(JSON.stringify(header).length / 8) * 8));
    const fileF64 = new Uint8Array(8 + text.length + 256);
    new DataView(fileF64.buffer).setBigUint64(0, BigInt(text.length), true);
    fileF64.set(text, 8);
    refused({ config, weights: [f64, fileF64] }, RangeError, /'model\.norm\.weight' is in two shards|dtype F64/);
    const rest = { ...whole };
    delete rest['model.norm.weight'];
    refused({ config, weights: [posenc.writeSafetensors(rest), fileF64] }, RangeError, /weights\[1\]'s tensor 'model\.norm\.weight' has dtype F64; a checkpoint's tensors are F32, F16, BF16/);
  });

  test('a config this engine does not serve names its key', () => {
    const w = read('qwen2', 'model.safetensors');
    refused({ config: { ...config, model_type: 'gpt2' }, weights: w }, TypeError, /config\.model_type 'gpt2' is not served: createModel runs 'llama', 'mistral', 'qwen2', 'qwen3'/);
    refused({ config: { ...config, hidden_act: 'tanh' }, weights: w }, RangeError, /config\.hidden_act/);
    refused({ config: { ...config, use_sliding_window: true }, weights: w }, RangeError, /config\.use_sliding_window: true is not served/);
    refused({ config: { ...config, model_type: 'llama', mlp_bias: true }, weights: w }, RangeError, /config\.mlp_bias: true is not served/);
    refused({ config: { ...config, num_key_value_heads: 3 }, weights: w }, RangeError, /num_attention_heads \(4\) must be a multiple of num_key_value_heads \(3\)/);
    refused({ config: { ...config, hidden_size: undefined }, weights: w }, TypeError, /config\.hidden_size is required/);
    refused({ config: { ...config, rope_scaling: { rope_type: 'nonsense' } }, weights: w }, Error, /rope_type|nonsense/);
    refused({ config, weights: 'model.safetensors' }, TypeError, /weights must be the bytes of model\.safetensors/);
  });

  test('a model past the 4 GiB heap is a RangeError saying how much it needs, before any tensor is read', () => {
    const big = { ...config, vocab_size: 152064, hidden_size: 8192, intermediate_size: 29568, num_hidden_layers: 80, num_attention_heads: 64, num_key_value_heads: 8 };
    refused({ config: big, weights: new Uint8Array(8) }, RangeError, /the model needs \d+ bytes \(\d+\.\d+ GiB\) of wasm memory for its weights as float32, more than the 4 GiB wasm32 heap/);
  });
});
