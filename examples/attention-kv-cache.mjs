// A plain-JS attention step with RoPE and a KV cache: the prompt is rotated at
// positions 0..n-1 once, then each new token's query and key at its own
// position, `offset: cache length`. The cached keys are never rotated again.
//
//   node examples/attention-kv-cache.mjs
import { init, applyRope } from 'posenc';

await init();
const heads = 2;
const headDim = 8;
const rowSize = heads * headDim; // one token: [heads][headDim]

// Deterministic stand-ins for the q/k/v projections of each token.
const vector = (token, which) =>
  Float32Array.from({ length: rowSize }, (_, i) => Math.sin(12.9898 * token + 78.233 * i + 37.719 * which));
const rows = (tokens, which) => {
  const out = new Float32Array(tokens.length * rowSize);
  tokens.forEach((t, r) => out.set(vector(t, which), r * rowSize));
  return out;
};

// softmax(q . k / sqrt(headDim)) v for one query row over `keys` cached rows, per head.
function attend(q, keys, values, count) {
  const out = new Float32Array(rowSize);
  for (let h = 0; h < heads; h++) {
    const scores = [];
    for (let j = 0; j < count; j++) {
      let s = 0;
      for (let d = 0; d < headDim; d++) s += q[h * headDim + d] * keys[j * rowSize + h * headDim + d];
      scores.push(s / Math.sqrt(headDim));
    }
    const max = Math.max(...scores);
    const e = scores.map((s) => Math.exp(s - max));
    const sum = e.reduce((a, b) => a + b, 0);
    for (let j = 0; j < count; j++) {
      for (let d = 0; d < headDim; d++) out[h * headDim + d] += (e[j] / sum) * values[j * rowSize + h * headDim + d];
    }
  }
  return out;
}

const prompt = [3, 1, 4, 1, 5];
const next = 9;
const capacity = 16;
const kCache = new Float32Array(capacity * rowSize);
const vCache = new Float32Array(capacity * rowSize);

// prefill: the prompt's keys rotated at positions 0..4, all at once ([seq][heads][headDim])
kCache.set(applyRope(rows(prompt, 1), { heads, headDim }));
vCache.set(rows(prompt, 2));
let cached = prompt.length;

// decode one token at position `cached`: rotate its query and key with the offset
const q = applyRope(vector(next, 0), { heads, headDim, offset: cached });
kCache.set(applyRope(vector(next, 1), { heads, headDim, offset: cached }), cached * rowSize);
vCache.set(vector(next, 2), cached * rowSize);
cached += 1;
const out = attend(q, kCache, vCache, cached);

// the same step without a cache: all six tokens rotated from position 0, last row kept
const all = [...prompt, next];
const qAll = applyRope(rows(all, 0), { heads, headDim });
const kAll = applyRope(rows(all, 1), { heads, headDim });
const full = attend(qAll.subarray((all.length - 1) * rowSize), kAll, rows(all, 2), all.length);
const diff = Math.max(...out.map((v, i) => Math.abs(v - full[i])));

console.log('output:', JSON.stringify(Array.from(out)));
console.log(`cached decode vs full recompute: max |diff| = ${diff.toExponential(2)}`);
