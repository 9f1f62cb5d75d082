// The interop examples of docs/api.md (examples/*.mjs) run as they are, and what
// they print is checked against formulas computed here. They import 'posenc'
// by name: in the repository that resolves to dist/ through package.json's
// exports (a package may import itself by name); the dependency-free ones run
// again inside the scratch project, against the installed tarball.
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, mustRun, workspace } from './scratch.js';

const example = (name, cwd = ROOT) => mustRun(process.execPath, [join(cwd === ROOT ? join(ROOT, 'examples') : cwd, name)], { cwd }).stdout;
const line = (out, prefix) => out.split('\n').find((l) => l.startsWith(prefix))?.slice(prefix.length).trim();
const fixed = (values) => values.map((v) => v.toFixed(4)).join(' ');
const vaswani = (p, k, d) => {
  const w = 10000 ** (-(k - (k % 2)) / d);
  return k % 2 ? Math.cos(p * w) : Math.sin(p * w);
};

function checkOnnx(out) {
  for (const dims of ['position_embeddings float32 [1, 8, 16]', 'attention_bias float32 [1, 4, 8, 8]', 'rope_cos float32 [8, 4]', 'rope_sin float32 [8, 4]', 'position_ids int64 [1, 8]']) {
    expect(out).toContain(`${dims}\n`);
  }
  expect(line(out, 'position 1:')).toBe(fixed([0, 1, 2, 3].map((k) => vaswani(1, k, 16))));
  // 4 heads: m_0 = 2^-2; causal row i = 2: -m (2 - j), then the mask
  expect(line(out, 'bias head 0, query 2:')).toBe('-0.5 -0.25 0 -Infinity');
}

// The example's token vectors (float32), RoPE 'half' by its formula and attention, in double.
function expectedAttention() {
  const heads = 2;
  const headDim = 8;
  const vec = (token, which) => Array.from({ length: heads * headDim }, (_, i) => Math.fround(Math.sin(12.9898 * token + 78.233 * i + 37.719 * which)));
  const rope = (x, p) => {
    const y = x.slice();
    for (let h = 0; h < heads; h++) {
      for (let k = 0; k < headDim / 2; k++) {
        const a = p * 10000 ** (-(2 * k) / headDim);
        const [u, v] = [x[h * headDim + k], x[h * headDim + k + headDim / 2]];
        y[h * headDim + k] = u * Math.cos(a) - v * Math.sin(a);
        y[h * headDim + k + headDim / 2] = v * Math.cos(a) + u * Math.sin(a);
      }
    }
    return y;
  };
  const tokens = [3, 1, 4, 1, 5, 9];
  const q = rope(vec(9, 0), 5);
  const keys = tokens.map((t, p) => rope(vec(t, 1), p));
  const values = tokens.map((t) => vec(t, 2));
  const out = [];
  for (let h = 0; h < heads; h++) {
    const s = keys.map((k) => k.slice(h * headDim, (h + 1) * headDim).reduce((acc, kd, d) => acc + kd * q[h * headDim + d], 0) / Math.sqrt(headDim));
    const e = s.map((x) => Math.exp(x - Math.max(...s)));
    const sum = e.reduce((a, b) => a + b, 0);
    for (let d = 0; d < headDim; d++) out.push(values.reduce((acc, v, j) => acc + (e[j] / sum) * v[h * headDim + d], 0));
  }
  return out;
}

function checkAttention(out) {
  const got = JSON.parse(line(out, 'output:'));
  const want = expectedAttention();
  expect(got).toHaveLength(want.length);
  expect(Math.max(...got.map((v, i) => Math.abs(v - want[i])))).toBeLessThan(1e-5);
  expect(Number(line(out, 'cached decode vs full recompute: max |diff| ='))).toBeLessThan(1e-6);
}

test('onnx-feeds.mjs: { type, data, dims } tensors of the right element types and sizes', () => {
  checkOnnx(example('onnx-feeds.mjs'));
});

test('tfjs.mjs: tf.tensor(values, shape), tf.add broadcasting the table, tf.reshape, ALiBi through tf.softmax', () => {
  const out = example('tfjs.mjs');
  expect(line(out, 'rows')).toBe('[20,6]');
  expect(line(out, 'row 1:')).toBe(fixed([0, 1, 2, 3, 4, 5].map((k) => 0.5 * Math.sqrt(6) + vaswani(1, k, 6))));
  // 2 heads: m_0 = 2^-4; query 2 sees keys 0..2 with logits -m (2 - j), key 3 masked
  const e = [0, 1, 2].map((j) => Math.exp(-(2 - j) / 16));
  const sum = e.reduce((a, b) => a + b, 0);
  expect(line(out, 'head 0, query 2 weights:')).toBe(fixed([...e.map((x) => x / sum), 0]));
});

test('attention-kv-cache.mjs: a cached decode step with applyRope({ offset }) equals the formula and a full recompute', () => {
  checkAttention(example('attention-kv-cache.mjs'));
});

test('the dependency-free examples run unchanged against the installed tarball', () => {
  const dir = workspace('examples');
  for (const name of ['onnx-feeds.mjs', 'attention-kv-cache.mjs']) copyFileSync(join(ROOT, 'examples', name), join(dir, name));
  checkOnnx(example('onnx-feeds.mjs', dir));
  checkAttention(example('attention-kv-cache.mjs', dir));
});
