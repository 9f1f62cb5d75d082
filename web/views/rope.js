// views/rope.js: RoPE's attention score of one query/key pair against their
// distance, for each scaling variant of Hugging Face's modeling_rope_utils
// (default, linear, dynamic NTK, YaRN, llama3), past the trained context.
//
// The pair is q = k = (1, ..., 1), RoFormer's long-term-decay setting. Rotated
// (rotate_half pairs (a, b)) at distance D, q becomes a*(c - s, c + s) and k at
// position 0 becomes a*(1, 1), with c, s = cos, sin(D * invFreq_i) and a the
// attention factor; so q.k / d = (2a / d) * sum_i C[D][i], where
// C = a*cos is exactly posenc.ropeCache's cos table (the factor folded in).
// One ropeCache call of N rows per variant (dynamic NTK sees the length N),
// ten times cheaper than rotating N copies of q with applyRope.
//
// The exact scores are drawn thin and faint; over them, their mean over a
// sliding window (smooth(): centred, half-width max(1, round(N / 100)),
// truncated at the ends) shows the trend through RoPE's fast oscillation.
import { int, num } from '../state.js';
import { drawLines, PALETTE, PALETTE_DARK } from '../draw/lines.js';

/** The variants drawn, with Hugging Face's rope_scaling for a trained context and factor. */
export const VARIANTS = [
  { id: 'default', label: 'default (no scaling)', scaling: () => null },
  { id: 'linear', label: 'linear (position interpolation)', scaling: (c, f) => ({ type: 'linear', factor: f }) },
  { id: 'dynamic', label: 'dynamic NTK', scaling: (c, f) => ({ type: 'dynamic', factor: f, maxPositionEmbeddings: c }) },
  { id: 'yarn', label: 'YaRN', scaling: (c, f) => ({ type: 'yarn', factor: f, originalMaxPositionEmbeddings: c }) },
  { id: 'llama3', label: 'llama3 (Llama 3.1)', scaling: (c, f) => ({ type: 'llama3', factor: f, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPositionEmbeddings: c }) },
];

/** Distances plotted: 0 .. N - 1 with N = reach * context. */
export const distances = (s) => Math.min(65536, Math.round(s.reach * s.context));

/** The centred moving mean drawn over the exact scores (half-width max(1, round(N / 100))). */
export function smoothed(y) {
  const n = y.length;
  const h = Math.max(1, Math.round(n / 100));
  const prefix = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) prefix[i + 1] = prefix[i] + y[i];
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const a = Math.max(0, i - h);
    const b = Math.min(n, i + h + 1);
    out[i] = (prefix[b] - prefix[a]) / (b - a);
  }
  return out;
}

export default {
  id: 'rope',
  labels: { d: 'headDim', base: 'base', context: 'trained context', factor: 'factor', reach: 'distances shown' },
  params: { d: int(2, 512, 128, 2), base: num(1, 1e12, 10000), context: int(16, 32768, 2048), factor: num(1, 64, 4), reach: num(0.01, 16, 4) },

  check(s) {
    if (s.d < 4) return 'headDim must be at least 4 for dynamic NTK (its base exponent is d / (d − 2))';
    return null;
  },

  // score[v][D] for each variant v, D = 0 .. N-1; kept while the parameters
  // stay (a theme switch or a resize redraws without recomputing).
  scores(s, posenc) {
    const key = JSON.stringify(s);
    if (this.cached?.key === key) return this.cached.scores;
    const N = distances(s);
    const half = s.d / 2;
    const out = { cos: new Float32Array(N * half), sin: new Float32Array(N * half) }; // reused by every variant
    const scores = VARIANTS.map((v) => {
      const scaling = v.scaling(s.context, s.factor);
      const { attentionFactor } = posenc.ropeFrequencies({ rotaryDim: s.d, base: s.base, scaling: scaling && { ...scaling, ...(v.id === 'dynamic' ? { seqLength: N } : {}) } });
      const { cos } = posenc.ropeCache({ rotaryDim: s.d, base: s.base, length: N, scaling, out });
      const score = new Float32Array(N);
      const k = (2 * attentionFactor) / s.d;
      for (let p = 0; p < N; p++) {
        let sum = 0;
        for (let i = 0, o = p * half; i < half; i++) sum += cos[o + i];
        score[p] = k * sum;
      }
      return score;
    });
    this.cached = { key, scores, smooth: scores.map(smoothed) };
    return scores;
  },

  data(s, posenc) {
    const scores = this.scores(s, posenc);
    return {
      rows: distances(s), cols: VARIANTS.length,
      read: (r0, n, out) => {
        for (let r = 0; r < n; r++) scores.forEach((c, j) => (out[r * scores.length + j] = c[r0 + r]));
      },
      header: ['distance', ...VARIANTS.map((v) => v.id)],
    };
  },

  draw(ctx, t, size, s, posenc) {
    const palette = t.dark ? PALETTE_DARK : PALETTE;
    const scores = this.scores(s, posenc);
    const N = distances(s);
    let lo = 0;
    let hi = 1;
    for (const c of scores) for (const v of c) (lo = Math.min(lo, v)), (hi = Math.max(hi, v));
    const pad = 0.05 * (hi - lo);
    const yMin = Math.floor((lo - pad) * 10) / 10;
    const yMax = Math.ceil((hi + pad) * 10) / 10;
    const { smooth } = this.cached;
    const narrow = size.width < 560; // short legend labels, so the legend leaves the curves visible
    const faint = scores.map((y, j) => ({ label: VARIANTS[j].label, color: palette[j], y, alpha: 0.18, width: 1, legend: false }));
    const series = smooth.map((y, j) => ({ label: narrow ? VARIANTS[j].id : VARIANTS[j].label, color: palette[j], y, width: 2 }));
    const fig = drawLines(ctx, t, size, [...faint, ...series], {
      xMin: 0, xMax: N - 1, yMin, yMax, title: `q · k against distance${size.width < 560 ? '' : ` (headDim ${s.d}, base ${s.base}, factor ${s.factor})`}`,
      xLabel: 'Distance between query and key (positions)', yLabel: 'Score / headDim',
      marks: [{ x: s.context, label: `trained context ${s.context}` }, ...(s.context * s.factor < N - 1 ? [{ x: s.context * s.factor, label: `context × ${s.factor}` }] : [])],
    });
    Object.assign(ctx.canvas.dataset, { xMin: 0, xMax: N - 1, yMin, yMax, colors: JSON.stringify(series.map((x) => x.color)) });
    return {
      ...fig,
      describe: (p) => `distance ${p} · ${VARIANTS.map((v, j) => `${v.id} ${scores[j][p].toFixed(4)} (mean ${smooth[j][p].toFixed(3)})`).join(' · ')}`,
    };
  },
};
