// The attention view in Chromium: each head's heatmap, read back through the
// colour map, is encoder.attention(0) of the same encoder built here in Node
// (the character tokenizer of docs/encoder.md, written out again); the scheme control
// writes the URL and redraws; the previous-token head built from RoPE shows
// its sub-diagonal whatever the text; the JSON download carries the
// probabilities. Screenshots go to build/screenshots/encoder-*.png.
import { readFileSync } from 'node:fs';
import { invert, SIZE } from '../../web/draw/colormap.js';
import { posencEncoder as posenc } from '../helpers.js';
import { previousTokenHead } from '../../web/previous-token-head.js';
import { launch, openPage, cellSpan, readPixels, setControls, draws, redrawn, frames, SCREENSHOTS } from './chromium.js';

const DEFAULT_TEXT = 'the cat sat on the mat';

let env;
let page;
let problems;
beforeAll(async () => {
  await posenc.init();
  env = await launch();
  ({ page, problems } = await openPage(env.browser, env.url));
});
afterAll(() => env?.close());
// each problem fails the test it happened in, once: the list is emptied after each test
afterEach(() => expect(problems.splice(0)).toEqual([]));

/** The view's encoder, built in Node: layer-0 attention [4][L][L] and the RoPE previous-token head [L][L]. */
function reference(text, type, seed) {
  const vocab = [...new Set(text)];
  const tokens = [...text].map((c) => vocab.indexOf(c));
  const config = { vocabSize: vocab.length, dModel: 32, heads: 4, dFF: 64, layers: 1, positional: { type } };
  const run = (options) => {
    const enc = posenc.createEncoder({ ...options, keepAttention: true });
    enc.forward(tokens);
    const a = enc.attention(0);
    enc.dispose();
    return a;
  };
  const rope = { ...config, positional: { type: 'rope' } };
  const seeded = posenc.createEncoder({ ...rope, weights: { seed } });
  const tensors = previousTokenHead(posenc, seeded.tensors(), { heads: 4, head: 0 });
  seeded.dispose();
  const L = tokens.length;
  return { L, probs: run({ ...config, weights: { seed } }), prev: run({ ...rope, weights: tensors }).slice(0, L * L) };
}

const panelsOf = () => page.$eval('[data-view="encoder"] canvas.plot', (c) => JSON.parse(c.dataset.panels));
const query = () => new URL(page.url()).searchParams;

/** Samples n x n pixels of each random head's panel; the worst error in colour-map steps against probs. */
async function worstHeadError({ L, probs }, n = 8) {
  const panels = (await panelsOf()).slice(0, 4);
  const pts = [];
  for (const { x, y, w } of panels) {
    for (let a = 0; a < n; a++) for (let b = 0; b < n; b++) pts.push([x + Math.floor(((a + 0.5) * w) / n), y + Math.floor(((b + 0.5) * w) / n)]);
  }
  const { pixels: all } = await readPixels(page, 'encoder', pts, { relative: false }); // one read for the four panels
  let worst = 0;
  for (let h = 0; h < 4; h++) {
    const { x, y, w, min, max } = panels[h];
    const pixels = all.slice(h * n * n, (h + 1) * n * n);
    const step = (max - min) / (SIZE - 1);
    pts.slice(h * n * n, (h + 1) * n * n).forEach(([px, py], k) => {
      const inv = invert(...pixels[k].slice(0, 3), min, max);
      expect(inv.distance).toBe(0);
      const [r0, r1] = cellSpan(py - y, L, w);
      const [c0, c1] = cellSpan(px - x, L, w);
      let e = 0;
      for (let i = r0; i < r1; i++) for (let j = c0; j < c1; j++) e += probs[(h * L + i) * L + j];
      e /= (r1 - r0) * (c1 - c0);
      worst = Math.max(worst, Math.abs(inv.value - e) / step);
    });
  }
  return worst;
}

/** The built head's panel read at the centre of every cell: { at(i, j) -> inverted value, step }. */
async function prevPanel(L) {
  const p = (await panelsOf())[4];
  expect([p.min, p.max]).toEqual([-1, 1]);
  const centre = (k) => Math.floor(((k + 0.5) * p.w) / L);
  const pts = [];
  for (let i = 0; i < L; i++) for (let j = 0; j < L; j++) pts.push([p.x + centre(j), p.y + centre(i)]);
  const { pixels } = await readPixels(page, 'encoder', pts, { relative: false });
  return { at: (i, j) => invert(...pixels[i * L + j].slice(0, 3), -1, 1).value, step: 2 / (SIZE - 1) };
}

test('renders with the default text, no console error, every control labelled', async () => {
  expect(await page.$eval('[data-view="encoder"]', (e) => !e.hidden && Number(e.dataset.draws) >= 1)).toBe(true);
  expect(await page.$eval('[data-view="encoder"] .error', (e) => e.hidden)).toBe(true);
  expect(await page.inputValue('[data-view="encoder"] input[name="text"]')).toBe(DEFAULT_TEXT);
  const unlabelled = await page.$$eval('[data-view="encoder"] input, [data-view="encoder"] select', (els) => els.filter((e) => !e.labels?.length).map((e) => e.name));
  expect(unlabelled).toEqual([]);
  expect((await panelsOf()).length).toBe(5);
  await page.$eval('[data-view="encoder"]', (e) => e.scrollIntoView());
  await (await page.$('[data-view="encoder"]')).screenshot({ path: `${SCREENSHOTS}/encoder-light-1100.png` });
  // the keyboard reads a cell: PageDown steps through the panels, the built head last
  await page.focus('[data-view="encoder"] canvas.plot');
  for (const key of ['PageDown', 'PageDown', 'PageDown', 'PageDown', 'ArrowDown']) await page.keyboard.press(key);
  expect(await page.$eval('[data-view="encoder"] .readout', (e) => e.textContent)).toMatch(/^previous-token head \(RoPE\) · query 1 'h' · key 0 't' · attention 0\.999\d+$/);
});

test("each head's pixels invert to enc.attention(0) computed in Node (RoPE, seed 42)", async () => {
  const ref = reference(DEFAULT_TEXT, 'rope', 42);
  expect(await worstHeadError(ref)).toBeLessThanOrEqual(0.5 + 1e-4);
});

test('changing the scheme writes the URL and redraws: ALiBi, then none (equal characters, identical rows)', async () => {
  const before = await draws(page, 'encoder');
  await setControls(page, 'encoder', { scheme: 'alibi' });
  expect(query().get('encoder.scheme')).toBe('alibi');
  expect(await draws(page, 'encoder')).toBeGreaterThan(before);
  expect(await worstHeadError(reference(DEFAULT_TEXT, 'alibi', 42))).toBeLessThanOrEqual(0.5 + 1e-4);

  await setControls(page, 'encoder', { scheme: 'none', seed: 7 });
  expect([query().get('encoder.scheme'), query().get('encoder.seed')]).toEqual(['none', '7']);
  const ref = reference(DEFAULT_TEXT, 'none', 7);
  expect(await worstHeadError(ref)).toBeLessThanOrEqual(0.5 + 1e-4);
  // the 't's of "the cat sat on the mat" (positions 0, 6, 10, 15, 21): their pixel rows are the same in every head
  const panels = (await panelsOf()).slice(0, 4);
  const L = ref.L;
  const row = ({ x, y, w }, i) => Array.from({ length: w }, (_, k) => [x + k, y + Math.floor(((i + 0.5) * w) / L)]);
  const { pixels } = await readPixels(page, 'encoder', panels.flatMap((p) => [0, 6, 10, 15, 21].flatMap((i) => row(p, i))), { relative: false });
  const w = panels[0].w;
  for (let h = 0; h < 4; h++) {
    const rows = [0, 1, 2, 3, 4].map((n) => pixels.slice((5 * h + n) * w, (5 * h + n + 1) * w));
    for (let n = 1; n < 5; n++) expect(rows[n]).toEqual(rows[0]);
  }
  await setControls(page, 'encoder', { scheme: 'rope', seed: 42 });
  expect(query().has('encoder.scheme')).toBe(false); // back to the defaults: out of the URL
});

test("the previous-token head's pixels show the sub-diagonal, whatever the text", async () => {
  for (const text of [DEFAULT_TEXT, 'aaaaaaaa bbbbbbbb, positions are all it has!']) {
    if (text !== DEFAULT_TEXT) await setControls(page, 'encoder', { text });
    const { L, prev } = reference(text, 'rope', 42);
    for (let i = 1; i < L; i++) expect(prev[i * L + i - 1]).toBeGreaterThanOrEqual(0.99);
    const { at, step } = await prevPanel(L);
    for (let i = 1; i < L; i++) {
      expect(at(i, i - 1)).toBeGreaterThanOrEqual(0.99 - step);
      for (let j = 0; j < L; j++) if (j !== i - 1) expect(at(i, j)).toBeLessThanOrEqual(0.01 + step);
    }
    expect(await page.$eval('[data-view="encoder"] .measured', (e) => e.textContent)).toMatch(/^Here: at least 0\.99\d\d on the previous character/);
  }
  expect(query().get('encoder.text')).toBe('aaaaaaaa bbbbbbbb, positions are all it has!');
});

test('empty text is refused with a message (the box takes 64 at most); the JSON download is the probabilities', async () => {
  const draws0 = await draws(page, 'encoder');
  await page.fill('[data-view="encoder"] input[name="text"]', '');
  await frames(page);
  expect(await page.$eval('[data-view="encoder"] .error', (e) => !e.hidden && e.textContent)).toBe('text must have 1 to 64 characters, got 0');
  expect(await draws(page, 'encoder')).toBe(draws0);
  await page.fill('[data-view="encoder"] input[name="text"]', 'x'.repeat(80));
  expect(await page.inputValue('[data-view="encoder"] input[name="text"]')).toBe('x'.repeat(64));
  await setControls(page, 'encoder', { text: 'hello, positions', scheme: 't5' });
  const [d] = await Promise.all([page.waitForEvent('download'), page.click('[data-view="encoder"] [data-download="json"]')]);
  const j = JSON.parse(readFileSync(await d.path()));
  const { L, probs, prev } = reference('hello, positions', 't5', 42);
  expect(j.params).toEqual({ text: 'hello, positions', scheme: 't5', seed: 42 });
  expect(j.shape).toEqual([5 * L, L]);
  expect(j.rowLabels.slice(4 * L - 1, 4 * L + 1)).toEqual([`3:${L - 1}`, 'prev:0']);
  expect(j.values.flat().map(Math.fround)).toEqual([...probs, ...prev]);
});

test('at 360 px: fits the width, no error, and a screenshot', async () => {
  const narrow = await openPage(env.browser, env.url, { width: 360, height: 800, query: '?encoder.scheme=alibi' });
  try {
    expect(narrow.problems).toEqual([]);
    expect(await narrow.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    const el = await narrow.page.$('[data-view="encoder"]');
    const box = await el.boundingBox();
    expect(box.x + box.width).toBeLessThanOrEqual(360);
    const panels = await narrow.page.$eval('[data-view="encoder"] canvas.plot', (c) => ({ panels: JSON.parse(c.dataset.panels), w: c.width, h: c.height }));
    for (const p of panels.panels) expect([p.x + p.w <= panels.w, p.y + p.h <= panels.h]).toEqual([true, true]);
    await el.screenshot({ path: `${SCREENSHOTS}/encoder-light-360.png` });
  } finally {
    await narrow.context.close();
  }
});

test('the dark theme redraws it (screenshot)', async () => {
  const before = await draws(page, 'encoder');
  await page.emulateMedia({ colorScheme: 'dark' });
  await redrawn(page, 'encoder', before);
  await (await page.$('[data-view="encoder"]')).screenshot({ path: `${SCREENSHOTS}/encoder-dark-1100.png` });
});
