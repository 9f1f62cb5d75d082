// encoder-peers.js: a forward pass of the tiny encoder (2 layers, dModel 128,
// 4 heads, dFF 512, 128 tokens, pre-norm, ReLU) in posenc against the same
// encoder written the straightforward way in plain JS (Float32Array weights,
// loops in doubles), side by side in one run, with the max difference.

const CONFIG = { vocabSize: 1000, dModel: 128, heads: 4, dFF: 512, layers: 2 };
const SEQ = 128;

/** The encoder as a JS developer writes it from the article: nested loops, no tricks. */
function plainEncoder(T, cfg, tokens, positional) {
  const d = cfg.dModel;
  const H = cfg.heads;
  const hd = d / H;
  const S = tokens.length;
  const t = (name) => T[name].data;
  const linear = (x, W, b, inp, out) => {
    const y = new Float32Array(S * out);
    for (let r = 0; r < S; r++) {
      for (let o = 0; o < out; o++) {
        let s = b[o];
        for (let i = 0; i < inp; i++) s += x[r * inp + i] * W[o * inp + i];
        y[r * out + o] = s;
      }
    }
    return y;
  };
  const layerNorm = (x, g, b) => {
    const y = new Float32Array(x.length);
    for (let r = 0; r < S; r++) {
      let mean = 0;
      let variance = 0;
      for (let k = 0; k < d; k++) mean += x[r * d + k];
      mean /= d;
      for (let k = 0; k < d; k++) variance += (x[r * d + k] - mean) * (x[r * d + k] - mean);
      const inv = 1 / Math.sqrt(variance / d + 1e-5);
      for (let k = 0; k < d; k++) y[r * d + k] = (x[r * d + k] - mean) * inv * g[k] + b[k];
    }
    return y;
  };
  const rope = (x) => {
    for (let s = 0; s < S; s++) {
      for (let h = 0; h < H; h++) {
        for (let k = 0; k < hd / 2; k++) {
          const angle = s * 10000 ** ((-2 * k) / hd);
          const c = Math.cos(angle);
          const sn = Math.sin(angle);
          const i = s * d + h * hd + k;
          const a = x[i];
          const b = x[i + hd / 2];
          x[i] = a * c - b * sn;
          x[i + hd / 2] = b * c + a * sn;
        }
      }
    }
  };
  const attend = (q, k, v) => {
    const ctx = new Float32Array(S * d);
    const scores = new Float64Array(S);
    for (let hh = 0; hh < H; hh++) {
      const col = hh * hd;
      for (let i = 0; i < S; i++) {
        let max = -Infinity;
        for (let j = 0; j < S; j++) {
          let dot = 0;
          for (let e = 0; e < hd; e++) dot += q[i * d + col + e] * k[j * d + col + e];
          scores[j] = dot / Math.sqrt(hd);
          if (scores[j] > max) max = scores[j];
        }
        let sum = 0;
        for (let j = 0; j < S; j++) {
          scores[j] = Math.exp(scores[j] - max); // stable softmax
          sum += scores[j];
        }
        for (let e = 0; e < hd; e++) {
          let o = 0;
          for (let j = 0; j < S; j++) o += scores[j] * v[j * d + col + e];
          ctx[i * d + col + e] = o / sum;
        }
      }
    }
    return ctx;
  };
  const x = new Float32Array(S * d);
  for (let s = 0; s < S; s++) {
    for (let k = 0; k < d; k++) {
      let v = t('embed.weight')[tokens[s] * d + k] * Math.sqrt(d);
      if (positional === 'sinusoidal') {
        const w = 10000 ** (-(k - (k % 2)) / d);
        v += k % 2 ? Math.cos(s * w) : Math.sin(s * w);
      }
      x[s * d + k] = v;
    }
  }
  for (let l = 0; l < cfg.layers; l++) {
    const p = `layers.${l}.`;
    const h = layerNorm(x, t(`${p}norm1.weight`), t(`${p}norm1.bias`));
    const q = linear(h, t(`${p}self_attn.q_proj.weight`), t(`${p}self_attn.q_proj.bias`), d, d);
    const k = linear(h, t(`${p}self_attn.k_proj.weight`), t(`${p}self_attn.k_proj.bias`), d, d);
    const v = linear(h, t(`${p}self_attn.v_proj.weight`), t(`${p}self_attn.v_proj.bias`), d, d);
    if (positional === 'rope') {
      rope(q);
      rope(k);
    }
    const ctx = attend(q, k, v);
    const a = linear(ctx, t(`${p}self_attn.out_proj.weight`), t(`${p}self_attn.out_proj.bias`), d, d);
    for (let i = 0; i < x.length; i++) x[i] += a[i];
    const h2 = layerNorm(x, t(`${p}norm2.weight`), t(`${p}norm2.bias`));
    const hidden = linear(h2, t(`${p}linear1.weight`), t(`${p}linear1.bias`), d, cfg.dFF);
    for (let i = 0; i < hidden.length; i++) hidden[i] = Math.max(hidden[i], 0);
    const f = linear(hidden, t(`${p}linear2.weight`), t(`${p}linear2.bias`), cfg.dFF, d);
    for (let i = 0; i < x.length; i++) x[i] += f[i];
  }
  return x;
}

const relDiff = (a, b) => {
  let err = 0;
  let scale = 0;
  for (let i = 0; i < a.length; i++) {
    err = Math.max(err, Math.abs(a[i] - b[i]));
    scale = Math.max(scale, Math.abs(b[i]));
  }
  return err / scale;
};

export async function encoderTasks({ posenc, race }) {
  const tokens = Int32Array.from({ length: SEQ }, (_, i) => (i * 7919) % CONFIG.vocabSize);
  console.log(`\ntiny encoder forward pass: ${CONFIG.layers} layers, dModel ${CONFIG.dModel}, ${CONFIG.heads} heads, dFF ${CONFIG.dFF}, ${SEQ} tokens, pre-norm, ReLU (x posenc: time against posenc's)`);
  console.log('| positional | contender | median ms | x posenc | max difference (relative) |');
  console.log('| --- | --- | ---: | ---: | ---: |');
  for (const positional of ['sinusoidal', 'rope']) {
    const encoder = posenc.createEncoder({ ...CONFIG, positional: { type: positional }, weights: { seed: 1 } });
    const lean = posenc.createEncoder({ ...CONFIG, positional: { type: positional }, keepAttention: false, weights: { seed: 1 } });
    const T = encoder.tensors();
    const out = {};
    const ms = race({
      posenc: () => (out.posenc = encoder.forward(tokens)),
      'posenc (keepAttention: false)': () => (out.lean = lean.forward(tokens)),
      'plain JS': () => (out.js = plainEncoder(T, CONFIG, tokens, positional)),
    });
    const diff = { posenc: 0, 'posenc (keepAttention: false)': relDiff(out.lean, out.posenc), 'plain JS': relDiff(out.js, out.posenc) };
    for (const [name, t] of Object.entries(ms)) {
      console.log(`| ${positional} | ${name} | ${t.toFixed(2)} | ${(t / ms.posenc).toFixed(2)} | ${diff[name].toExponential(1)} |`);
    }
    console.log(`plain JS against posenc (${positional}): ${(ms['plain JS'] / ms.posenc).toFixed(1)}x slower`);
    encoder.dispose();
    lean.dispose();
  }
}
