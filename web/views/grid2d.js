// views/grid2d.js: the positions of image patches. For the patch p the pointer
// is on, every patch q of the grid shows how alike their positions are: the
// dot product PE(p) . PE(q) of the 2-D sine-cosine table (MAE, DiT), or 2-D
// RoPE's relative score sum_k cos(theta_k(p) - theta_k(q)) (Pixtral, the
// Qwen2-VL vision encoder), the score of a query and key of ones. Both peak at
// q = p, with the value d / 2. Hovering (or the arrow keys) moves p.
import { choice, int, num } from '../state.js';
import { drawHeatmapFigure, matrixSource } from '../draw/heatmap.js';

export const SCHEMES = ['sincos', 'pixtral', 'axial'];
const TITLES = {
  sincos: 'PE(p) · PE(q), 2-D sin-cos (MAE, DiT)',
  pixtral: 'Σ cos(θ(p) − θ(q)), 2-D RoPE (Pixtral)',
  axial: 'Σ cos(θ(p) − θ(q)), 2-D RoPE (Qwen2-VL ViT)',
};

// The last table or cache, so that moving p (every pointer move) recomputes no position.
let memo = { key: '', rows: null };

/** Per patch, the vector whose dot products are the scores: the table row, or [cos | sin] of the angles. */
function vectors(s, posenc) {
  const key = JSON.stringify([s.scheme, s.h, s.w, s.d, s.base]);
  if (memo.key !== key) {
    let rows;
    if (s.scheme === 'sincos') {
      rows = posenc.sinusoidal2d({ height: s.h, width: s.w, dModel: s.d, base: s.base });
    } else {
      // cos_p cos_q + sin_p sin_q = cos(theta_p - theta_q): the rows [cos | sin] of the cache
      const { cos, sin } = posenc.ropeCache({ rotaryDim: s.d, base: s.base, rope2d: s.scheme, grid: { height: s.h, width: s.w } });
      const half = s.d / 2;
      rows = new Float32Array(s.h * s.w * s.d);
      for (let q = 0; q < s.h * s.w; q++) {
        rows.set(cos.subarray(q * half, (q + 1) * half), q * s.d);
        rows.set(sin.subarray(q * half, (q + 1) * half), q * s.d + half);
      }
    }
    memo = { key, rows };
  }
  return memo.rows;
}

/** The patch p, within the grid. */
const anchorOf = (s) => ({ y: Math.min(s.y, s.h - 1), x: Math.min(s.x, s.w - 1) });

export default {
  id: 'grid2d',
  labels: { scheme: 'scheme', h: 'height', w: 'width', d: 'dModel', base: 'base', y: 'row', x: 'column' },
  params: {
    scheme: choice(SCHEMES, 'sincos'), h: int(1, 64, 14), w: int(1, 64, 14), d: int(4, 512, 64, 4), base: num(1, 1e12, 10000),
    y: int(0, 63, 4), x: int(0, 63, 9),
  },

  /** score[q] for every patch q against the patch p. */
  scores(s, posenc) {
    const v = vectors(s, posenc);
    const { y, x } = anchorOf(s);
    const p = (y * s.w + x) * s.d;
    const out = new Float32Array(s.h * s.w);
    for (let q = 0; q < s.h * s.w; q++) {
      let sum = 0;
      for (let k = 0, b = q * s.d; k < s.d; k++) sum += v[p + k] * v[b + k];
      out[q] = sum;
    }
    return out;
  },

  data(s, posenc) {
    return { ...matrixSource(this.scores(s, posenc), s.h, s.w), header: ['row', ...Array.from({ length: s.w }, (_, x) => `col${x}`)] };
  },

  draw(ctx, t, size, s, posenc) {
    const g = this.scores(s, posenc);
    const m = s.d / 2; // the score of p with itself: d / 2 for every scheme
    const fig = drawHeatmapFigure(ctx, t, size, {
      ...matrixSource(g, s.h, s.w), min: -m, max: m, square: true,
      title: TITLES[s.scheme], xLabel: 'Column x', yLabel: 'Row y', barLabel: 'score with p',
    });
    const p = anchorOf(s);
    return {
      ...fig, rows: s.h, cols: s.w, min: -m, max: m,
      // the cell under the pointer becomes p (mount.js redraws when this returns true)
      follow: ({ row, col }) => {
        if (row === p.y && col === p.x) return false;
        s.y = row;
        s.x = col;
        return true;
      },
      describe: (row, col) =>
        `p = (row ${p.y}, column ${p.x}) · q = (row ${row}, column ${col}) · score ${g[row * s.w + col].toFixed(4)} (at most ${m} at q = p)`,
    };
  },
};
