// views/copyattn.js: what a trained copy-task model attends to, on a sequence
// the reader types (symbols a..p are tokens 2..17) or draws at random, of any
// length up to 256 symbols, past the training range (n <= 32) included. The
// model reads [BOS, s_1..s_n, SEP, s_1..s_n] causally; one panel per layer and
// head shows encoder.attention(layer) (rows = queries, columns = keys), and a
// strip under them marks each copied symbol the model predicts right or wrong
// (copyCorrect of models/copy-task.js, argmax teacher-forced). Below the
// figure the same model generates the copy greedily, token by token, each
// token right or wrong (train/greedy.js, with the KV cache).
//
// Colours: probabilities on the warm half of the page's coolwarm map (0 = the
// neutral grey, 1 = full red), as the attention view above. canvas.dataset.panels
// records each panel's rectangle (device px), layer and head, dataset.scheme whose
// model they show; dataset.strip the
// strip's rectangle and, per copied symbol, right (1) or wrong (0).
import { int, choice } from '../state.js';
import { BOS, SEP, copySequence, copyCorrect } from '../models/copy-task.js';
import { SCHEMES, NAMES, TRAIN_MAX_N, loadModel } from '../train/copy-models.js';
import { createGreedy } from '../train/greedy.js';
import { paintPanel, panelCellAt, snapPanel } from '../draw/heatmap.js';
import { drawColorBar } from '../draw/axes.js';

export const MAX_N = 256;
const LETTERS = 'abcdefghijklmnop'; // a = token 2 ... p = token 17

/** A typed sequence: 1 to `most` symbols a..p (case and blanks ignored). */
const symbolsParam = (most, def) => ({
  def,
  parse(value) {
    const text = String(value).toLowerCase().replace(/\s+/g, '');
    const bad = [...text].find((c) => !LETTERS.includes(c));
    if (bad !== undefined) return { ok: false, message: `may hold only the symbols a to p, got '${bad}'` };
    if (text.length < 1 || text.length > most) return { ok: false, message: `must have 1 to ${most} symbols, got ${text.length}` };
    return { ok: true, value: text };
  },
  format: (v) => v,
});

/** The symbol of a token: letters for 2..17, ^ for BOS, | for SEP. */
const glyph = (tok) => (tok === BOS ? '^' : tok === SEP ? '|' : LETTERS[tok - 2]);

let redrawLater = () => {};
let greedy = null; // the greedy copy under the figure (train/greedy.js)
const models = new Map(); // scheme -> bytes, once loaded
const pending = new Set(); // schemes being fetched: one fetch, one redraw when it ends
const failures = new Map(); // scheme -> why its last load failed, shown once
function bytesOf(scheme) {
  if (models.has(scheme)) return models.get(scheme);
  if (pending.has(scheme)) return null;
  pending.add(scheme);
  loadModel(scheme)
    .then((b) => models.set(scheme, b), (e) => failures.set(scheme, e.message))
    .finally(() => {
      pending.delete(scheme);
      redrawLater();
    });
  return null;
}

// The last computation, reused by draw, the read-out and the downloads (the encoder is disposed at once).
let cache = { key: null };
function compute(s, posenc, bytes) {
  const key = JSON.stringify([s.scheme, s.symbols]);
  if (cache.key === key) return cache;
  const tokens = copySequence([...s.symbols].map((c) => LETTERS.indexOf(c) + 2));
  const enc = posenc.createEncoder({ weights: bytes, keepAttention: true });
  try {
    const logits = enc.logits(tokens, { causal: true });
    const { layers, heads } = enc.config;
    const probs = Array.from({ length: layers }, (_, l) => enc.attention(l));
    cache = { key, tokens, L: tokens.length, layers, heads, probs, correct: copyCorrect(tokens, logits) };
  } finally {
    enc.dispose();
  }
  return cache;
}

// Sizes in CSS px: panel titles, gaps, the colour bar, the strip and its caption.
const T = 16;
const G = 8;
const BAR = 64;
const STRIP = 18;
const CAP = 20;

export default {
  id: 'copyattn',
  labels: { scheme: 'model', symbols: 'sequence', n: 'random n' },
  params: { scheme: choice(SCHEMES, 'rope'), symbols: symbolsParam(MAX_N, 'deadbeefcafebabe'), n: int(1, MAX_N, 48) },

  attach(el, redraw) {
    redrawLater = redraw;
    greedy = createGreedy({ caption: el.querySelector('.generation-caption'), tokens: el.querySelector('.generation-tokens') }, glyph);
    // "Draw at random": n symbols into the sequence box, as if typed (so the URL and undo follow)
    el.querySelector('[data-action="random"]').addEventListener('click', () => {
      const input = el.querySelector('input[name="symbols"]');
      const n = Number(el.querySelector('input[name="n"]').value);
      if (!(Number.isInteger(n) && n >= 1 && n <= MAX_N)) return; // the n box shows its own error
      const r = crypto.getRandomValues(new Uint8Array(n));
      input.value = Array.from(r, (v) => LETTERS[v & 15]).join('');
      input.dispatchEvent(new Event('input', { bubbles: true }));
    });
  },

  /** Rows per (layer, head, query), columns per key. */
  data(s, posenc) {
    const bytes = models.get(s.scheme);
    if (!bytes) throw new Error('the model is still loading');
    const { L, layers, heads, probs } = compute(s, posenc, bytes);
    return {
      rows: layers * heads * L, cols: L,
      read: (r0, n, out) => {
        for (let r = 0; r < n; r++) {
          const row = r0 + r;
          const l = Math.floor(row / (heads * L));
          out.set(probs[l].subarray((row % (heads * L)) * L, (row % (heads * L) + 1) * L), r * L);
        }
      },
      header: ['layer:head:query', ...Array.from({ length: L }, (_, j) => `key${j}`)],
      rowLabel: (r) => `${Math.floor(r / (heads * L))}:${Math.floor(r / L) % heads}:${r % L}`,
    };
  },

  draw(ctx, t, size, s, posenc) {
    const { width, height, dpr } = size;
    const failure = failures.get(s.scheme);
    if (failure) {
      failures.delete(s.scheme); // shown once: the next draw the reader asks for fetches again
      throw new Error(failure);
    }
    const bytes = bytesOf(s.scheme);
    if (!bytes) {
      ctx.fillStyle = t.muted;
      ctx.font = `13px ${t.font}`;
      ctx.fillText(`Loading the ${NAMES[s.scheme]} model…`, 12, 24);
      ctx.canvas.dataset.panels = '[]';
      ctx.canvas.dataset.scheme = '';
      const plot = { x: 0, y: 0, w: 1, h: 1 };
      return { plot, rows: 1, cols: 1, min: 0, max: 1, cellAt: () => null, describe: () => '' };
    }
    const { tokens, L, layers, heads, probs, correct } = compute(s, posenc, bytes);
    const symbols = [...s.symbols].map((c) => LETTERS.indexOf(c) + 2);
    greedy.show(JSON.stringify([s.scheme, s.symbols]), NAMES[s.scheme], symbols, () => posenc.createEncoder({ weights: bytes, keepAttention: false }));
    const n = correct.length;
    // panel side p: heads across, layers down, the colour bar right, the strip and its caption below
    const pw = (width - 8 - BAR - (heads - 1) * G) / heads;
    const ph = (height - 8 - layers * T - (layers - 1) * G - G - STRIP - CAP - 14) / layers;
    const p = Math.max(8, Math.floor(Math.min(pw, ph)));
    const gridW = heads * p + (heads - 1) * G;
    const left = Math.max(4, Math.floor((width - gridW - BAR) / 2));
    const top = 4;
    const panels = [];
    ctx.save();
    for (let l = 0; l < layers; l++) {
      for (let h = 0; h < heads; h++) {
        const x = left + h * (p + G);
        const y = top + l * (T + p + G) + T;
        const plot = { ...snapPanel(x, y, p, L, dpr), layer: l, head: h, min: -1, max: 1 };
        paintPanel(ctx, t, plot, dpr, probs[l].subarray(h * L * L, (h + 1) * L * L), L);
        ctx.fillText(p >= 100 ? `layer ${l} · head ${h}` : `L${l} H${h}`, x + p / 2, y - 2);
        panels.push(plot);
      }
    }
    ctx.restore();
    const first = panels[0];
    const lastPanel = panels[panels.length - 1];
    drawColorBar(ctx, t, dpr, { x: Math.round((left + gridW + 10) * dpr), y: first.y, w: Math.round(12 * dpr), h: lastPanel.y + lastPanel.h - first.y }, -1, 1, 'attention', false, [0.5, 1]);

    // the strip: copied symbol i right (green) or wrong (red), in whole device pixels by the heatmap rule
    const sy = top + layers * (T + p + G) + 4;
    const strip = { x: Math.round(left * dpr), y: Math.round(sy * dpr), w: Math.round(gridW * dpr), h: Math.round(STRIP * dpr) };
    const colors = t.dark ? { right: '#5fd35f', wrong: '#ff6b6b' } : { right: '#2ca02c', wrong: '#d62728' };
    ctx.save();
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    for (let i = 0; i < n; i++) {
      const x0 = Math.floor((i * strip.w) / n);
      const x1 = Math.floor(((i + 1) * strip.w) / n);
      ctx.fillStyle = correct[i] ? colors.right : colors.wrong;
      ctx.fillRect(strip.x + x0, strip.y, Math.max(1, x1 - x0), strip.h);
    }
    ctx.restore();
    const cellW = gridW / n;
    if (cellW >= 8) {
      ctx.save();
      ctx.font = `${Math.min(12, Math.floor(cellW))}px ${t.mono}`;
      ctx.fillStyle = t.dark ? '#0f1218' : '#ffffff'; // the dark theme's lighter greens and reds take dark letters
      ctx.textAlign = 'center';
      ctx.textBaseline = 'middle';
      for (let i = 0; i < n; i++) ctx.fillText(glyph(tokens[n + 2 + i]), strip.x / dpr + (i + 0.5) * cellW, strip.y / dpr + STRIP / 2 + 1);
      ctx.restore();
    }
    const right = correct.filter(Boolean).length;
    ctx.save();
    ctx.fillStyle = t.fg;
    ctx.font = `12px ${t.font}`;
    ctx.textBaseline = 'top';
    ctx.textAlign = 'left';
    const beyond = n > TRAIN_MAX_N ? `, past the training range (n ≤ ${TRAIN_MAX_N})` : '';
    ctx.fillText(`${NAMES[s.scheme]} copies ${right} of ${n} symbols right (green; red: wrong)${beyond}`, left, sy + STRIP + 4, width - left - 4);
    ctx.restore();

    ctx.canvas.dataset.panels = JSON.stringify(panels);
    ctx.canvas.dataset.scheme = s.scheme;
    ctx.canvas.dataset.strip = JSON.stringify({ ...strip, n, correct: correct.map(Number), colors });
    return {
      plot: first, panels, rows: L, cols: L, min: -1, max: 1,
      cellAt: (dx, dy) => panelCellAt(panels, L, L, dx, dy),
      describe: (i, j, c) => {
        const { layer, head } = panels[c?.head ?? 0];
        const v = probs[layer][(head * L + i) * L + j];
        return `${NAMES[s.scheme]} layer ${layer} head ${head} · query ${i} '${glyph(tokens[i])}' · key ${j} '${glyph(tokens[j])}' · attention ${+v.toPrecision(5)}`;
      },
    };
  },
};
