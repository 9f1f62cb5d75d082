// views/encoder.js: "What positions do to attention". A tiny encoder
// (posenc.createEncoder: 1 layer, 4 heads, dModel 32, seeded weights) reads
// the visitor's text one character per token; each head's layer-0 attention
// (encoder.attention(0), [heads][seq][seq]) is a small heatmap. Beside it, a
// head built by hand from RoPE alone (../previous-token-head.js) that looks at
// the previous character whatever the text.
//
// Colours: probabilities use the warm half of the page's coolwarm map, 0 =
// the neutral grey, so they are painted on the scale [-M, M] (as ALiBi's
// biases use the cool half). The random heads' M is their largest
// probability rounded up to 0.01 (they rarely pass 0.3: on 0..1 they would
// all be grey); the built head's M is 1. canvas.dataset.panels records each
// panel's rectangle (device px) and scale, the built head last.
import { int, choice } from '../state.js';
import { paintPanel, panelCellAt, snapPanel } from '../draw/heatmap.js';
import { drawColorBar } from '../draw/axes.js';
import { previousTokenHead } from '../previous-token-head.js';

export const SCHEMES = ['none', 'sinusoidal', 'rope', 'alibi', 't5'];
const NAMES = { none: 'no positions', sinusoidal: 'sinusoidal', rope: 'RoPE', alibi: 'ALiBi', t5: 'T5 buckets' };
export const MAX_CHARS = 64;
const HEADS = 4;

/** Free text of 1 to `most` characters (code points: one token each). */
const text = (most, def) => ({
  def,
  parse(value) {
    const n = [...String(value)].length;
    return n >= 1 && n <= most ? { ok: true, value: String(value) } : { ok: false, message: `must have 1 to ${most} characters, got ${n}` };
  },
  format: (v) => v,
});

/** The encoder's options for a text (the README's character tokenizer). */
export function encoderConfig(textValue, type) {
  const chars = [...textValue];
  const vocab = [...new Set(chars)];
  return {
    chars,
    tokens: chars.map((c) => vocab.indexOf(c)),
    config: { vocabSize: vocab.length, dModel: 32, heads: HEADS, dFF: 64, layers: 1, positional: { type } },
  };
}

// The last computation, reused by draw, the read-out and the downloads (the encoders are disposed at once).
let cache = { key: null };

function compute(s, posenc) {
  const key = JSON.stringify([s.text, s.scheme, s.seed]);
  if (cache.key === key) return cache;
  const { chars, tokens, config } = encoderConfig(s.text, s.scheme);
  const L = chars.length;
  const run = (options) => {
    const enc = posenc.createEncoder({ ...options, keepAttention: true });
    try {
      enc.forward(tokens);
      return enc.attention(0);
    } finally {
      enc.dispose();
    }
  };
  const probs = run({ ...config, weights: { seed: s.seed } });
  // the previous-token head: a seeded RoPE encoder whose head 0 is rebuilt by previousTokenHead
  const rope = { ...config, positional: { type: 'rope' } };
  const seeded = posenc.createEncoder({ ...rope, weights: { seed: s.seed } });
  let tensors;
  try {
    tensors = previousTokenHead(posenc, seeded.tensors(), { heads: HEADS, head: 0 });
  } finally {
    seeded.dispose();
  }
  const prev = run({ ...rope, weights: tensors }).slice(0, L * L); // head 0
  let top = 0;
  for (const v of probs) top = Math.max(top, v);
  let onPrevious = Infinity;
  for (let i = 1; i < L; i++) onPrevious = Math.min(onPrevious, prev[i * L + i - 1]);
  cache = { key, chars, L, probs, prev, M: Math.min(1, Math.ceil(top * 100 - 1e-9) / 100 || 0.01), onPrevious };
  return cache;
}

/** A character as an axis label: blanks become visible. */
const glyph = (c) => (c === ' ' ? '␣' : /^\s$/u.test(c) ? '⏎' : c);
const quoted = (c) => `'${glyph(c)}'`;

// Sizes in CSS px: a panel's title above, character labels left and below, gaps, colour bar room.
const T = 18;
const LL = 14;
const LB = 14;
const G = 12;
const HT = 22;

/** Panel side p (the random heads) and q (the built head), and the arrangement, for a canvas W x H. */
function arrange(W, H) {
  const wide = W >= 480; // style.css gives narrower canvases (phones) a taller box for the stacked layout
  const BAR = 70; // the colour bar, its ticks and its rotated label
  const SEP = wide ? 28 : 20;
  if (wide) {
    // the built head's box is as tall as the 2 x 2 grid: q = 2p + T + LB + G
    const pw = (W - 8 - (3 * LL + 2 * G + 2 * BAR + SEP + T + LB)) / 4;
    const ph = (H - 8 - HT - 2 * (T + LB) - G) / 2;
    const p = Math.max(8, Math.floor(Math.min(pw, ph)));
    return { wide, BAR, SEP, p, q: 2 * p + T + LB + G };
  }
  let p = Math.max(8, Math.floor((W - 8 - (2 * LL + G + BAR)) / 2));
  const qOf = (pp) => Math.max(8, Math.min(2 * pp + T + LB + G, W - 8 - LL - BAR));
  while (p > 8 && 2 * HT + 2 * (T + p + LB) + G + SEP + T + qOf(p) + LB > H - 8) p--;
  return { wide, BAR, SEP, p, q: qOf(p) };
}

export default {
  id: 'encoder',
  labels: { text: 'text', scheme: 'positions', seed: 'seed' },
  params: { text: text(MAX_CHARS, 'the cat sat on the mat'), scheme: choice(SCHEMES, 'rope'), seed: int(0, 4294967295, 42) },

  /** Rows per (head, query): heads 0-3 of the chosen scheme, then the built head ("prev:i"). */
  data(s, posenc) {
    const { L, probs, prev } = compute(s, posenc);
    const all = new Float32Array((HEADS + 1) * L * L);
    all.set(probs);
    all.set(prev, HEADS * L * L);
    return {
      rows: (HEADS + 1) * L, cols: L,
      read: (r0, n, out) => out.set(all.subarray(r0 * L, (r0 + n) * L)),
      header: ['head:query', ...Array.from({ length: L }, (_, j) => `key${j}`)],
      rowLabel: (r) => `${r < HEADS * L ? Math.floor(r / L) : 'prev'}:${r % L}`,
    };
  },

  draw(ctx, t, size, s, posenc) {
    const { width, height, dpr } = size;
    const { chars, L, probs, prev, M, onPrevious } = compute(s, posenc);
    const a = arrange(width, height);
    const { p, q, BAR, SEP } = a;
    const gridW = 2 * (LL + p) + G;
    const total = a.wide ? gridW + BAR + SEP + LL + q + BAR : Math.max(gridW, LL + q) + BAR;
    const left = Math.max(4, Math.floor((width - total) / 2));
    const top = 4;
    const panel = (x, y, side, min, max) => ({ ...snapPanel(x, y, side, L, dpr), min, max });
    const panels = [];
    for (let h = 0; h < HEADS; h++) {
      const x = left + (h % 2) * (LL + p + G) + LL;
      const y = top + HT + Math.floor(h / 2) * (T + p + LB + G) + T;
      panels.push(panel(x, y, p, -M, M));
    }
    const px = a.wide ? left + gridW + BAR + SEP + LL : left + LL;
    const py = a.wide ? top + HT + T : top + HT + 2 * (T + p + LB) + G + SEP + HT + T;
    panels.push(panel(px, py, q, -1, 1));

    const matrices = [0, 1, 2, 3].map((h) => probs.subarray(h * L * L, (h + 1) * L * L)).concat([prev]);
    ctx.save();
    panels.forEach((plot, h) => {
      paintPanel(ctx, t, plot, dpr, matrices[h], L);
      ctx.fillText(fit(ctx, h < HEADS ? `head ${h}` : 'head 0 rebuilt: constant q and k', plot.w / dpr + 2 * LL), (plot.x + plot.w / 2) / dpr, plot.y / dpr - 4);
      labels(ctx, t, plot, dpr, chars);
    });
    // the blocks' headings, and a rule between them
    ctx.font = `600 12px ${t.font}`;
    ctx.textAlign = 'left';
    ctx.textBaseline = 'top';
    ctx.fillStyle = t.fg;
    ctx.fillText(fit(ctx, `${NAMES[s.scheme]}, seed ${s.seed}: layer 0, 4 heads`, gridW + BAR - 4), left, top);
    ctx.fillText(fit(ctx, 'RoPE alone: a previous-token head', LL + q + BAR - 4), px - LL, py - T - HT);
    if (a.wide) {
      ctx.strokeStyle = t.grid;
      const x = Math.round(left + gridW + BAR + SEP / 2) + 0.5;
      ctx.beginPath();
      ctx.moveTo(x, top);
      ctx.lineTo(x, top + HT + 2 * (T + p + LB) + G);
      ctx.stroke();
    }
    ctx.restore();
    const last = panels[HEADS - 1];
    const barOf = (x, y0, y1) => ({ x: Math.round((x + 10) * dpr), y: y0, w: Math.round(12 * dpr), h: y1 - y0 });
    drawColorBar(ctx, t, dpr, barOf(left + gridW, panels[0].y, last.y + last.h), -M, M, 'attention', false, [0.5, 1]);
    const pp = panels[HEADS];
    drawColorBar(ctx, t, dpr, barOf((pp.x + pp.w) / dpr, pp.y, pp.y + pp.h), -1, 1, 'attention', false, [0.5, 1]);

    ctx.canvas.dataset.panels = JSON.stringify(panels);
    const note = ctx.canvas.closest('[data-view]').querySelector('.measured');
    if (note) {
      note.textContent = L > 1
        ? `Here: at least ${floor4(onPrevious)} on the previous character, for every character from the second on. The random heads' scale tops at ${M}; a uniform row would be 1/${L} = ${(1 / L).toFixed(3)}.`
        : 'Type two characters or more to see the previous-token head at work.';
    }
    return {
      plot: panels[0], panels, rows: L, cols: L, min: -M, max: M,
      cellAt: (dx, dy) => panelCellAt(panels, L, L, dx, dy),
      describe: (i, j, c) => {
        const h = c?.head ?? 0;
        const v = matrices[h][i * L + j];
        const who = h < HEADS ? `${NAMES[s.scheme]} head ${h}` : 'previous-token head (RoPE)';
        return `${who} · query ${i} ${quoted(chars[i])} · key ${j} ${quoted(chars[j])} · attention ${+v.toPrecision(5)}`;
      },
    };
  },
};

/** Rounds down to 4 decimals, so "at least" stays true. */
const floor4 = (v) => (Math.floor(v * 1e4) / 1e4).toFixed(4);

/** Shortens a heading to `room` CSS px. */
function fit(ctx, s, room) {
  while (s.length > 8 && ctx.measureText(s).width > room) s = `${s.slice(0, -2).trimEnd()}…`;
  return s;
}

/** The characters along the left (queries) and under (keys) a panel, every one when they fit. */
function labels(ctx, t, plot, dpr, chars) {
  const L = chars.length;
  const cell = plot.w / dpr / L;
  const size = Math.max(8, Math.min(11, Math.floor(cell + 1)));
  const step = cell >= size - 1 ? 1 : Math.ceil((size - 1) / cell);
  ctx.font = `${size}px ${t.mono}`;
  ctx.fillStyle = t.muted;
  const x0 = plot.x / dpr;
  const y0 = plot.y / dpr;
  for (let i = 0; i < L; i += step) {
    const c = glyph(chars[i]);
    const at = (i + 0.5) * cell;
    ctx.textAlign = 'right';
    ctx.textBaseline = 'middle';
    ctx.fillText(c, x0 - 3, y0 + at);
    ctx.textAlign = 'center';
    ctx.textBaseline = 'top';
    ctx.fillText(c, x0 + at, y0 + plot.h / dpr + 2);
  }
}
