// "Train short, test long" in Chromium. The curves are scored live by the
// page's workers; here the same model files are scored again by posenc in
// Node on the same seeded sequences (models/tasks.js scoreTask), and each
// plotted point must sit where those numbers put it, on the log2 axis, in
// its model's colour; the JSON download must carry the same figures exactly.
// The bands are the manifest's lowest to highest seed, and the legend shows
// them; chance is a line for token scores only. RoPE scaling redraws RoPE's
// curve; the task control switches every view of the section to the
// reversal models. The views drawn from the manifest are read back against
// it: the per-position heatmap through the colour map, the loss against n
// and the greedy-against-teacher-forced points by their pixels. The
// attention panels invert through the colour map to encoder.attention(layer)
// (the view asks for them with keepAttention: true), SEP is ticked on every
// panel, and the right/wrong strip is teacherForced; under them the model
// generates its answer token by token, each token Node's encoder.generate.
// Bad input in any control is refused with a named message and changes nothing.
// Screenshots go to build/screenshots/train-*.png.
import { readFileSync } from 'node:fs';
import { invert, SIZE } from '../../web/draw/colormap.js';
import { PALETTE, PALETTE_DARK } from '../../web/draw/lines.js';
import { EVAL_NS, evalPositions, evalSymbols, scoreTask, taskPrompt, taskSequence, targetOf, teacherForced } from '../../web/models/tasks.js';
import { generateWith } from '../../web/train/models.js';
import { posencEncoder as posenc } from '../helpers.js';
import { launch, openPage, cellSpan, readPixels, setControls, draws, redrawn, frames, SCREENSHOTS } from './chromium.js';

const MODELS = ['none', 'learned', 'sinusoidal', 'rope', 'alibi', 't5', 'learned-randomized', 'rope-randomized'];
const LABELS = { none: 'NoPE', learned: 'learned', sinusoidal: 'sinusoidal', rope: 'RoPE', alibi: 'ALiBi', t5: 'T5 bias', 'learned-randomized': 'learned, randomized', 'rope-randomized': 'RoPE, randomized' };
const COLOR = { none: 0, learned: 1, sinusoidal: 2, rope: 3, alibi: 4, t5: 5, 'learned-randomized': 6, 'rope-randomized': 9 };
// every model has four layers of 4 heads: only the positional scheme differs (tools/train/recipes.py)
const LAYERS = 4;
const PER_N = 16; // the default sequences per n
// sequences per n as the page's note states it: the chosen count at every n
const countsFor = (perN) => EVAL_NS.map(() => perN);
const LETTERS = 'abcdefghijklmnop';
const DEFAULT_SYMBOLS = evalSymbols(40, 0).map((t) => LETTERS[t - 2]).join('');

const manifest = JSON.parse(readFileSync(new URL('../../web/models/manifest.json', import.meta.url)));
const entry = (task, key) => manifest.models.find((m) => m.id === `${task}-${key}`);
/** A model's band, from the manifest's per-seed records: the lowest and highest of a measure per n. */
function seedRange(task, key, field) {
  const at = (n) => entry(task, key).seeds.map((r) => r.scores[n][field]);
  return { lo: EVAL_NS.map((n) => Math.min(...at(n))), hi: EVAL_NS.map((n) => Math.max(...at(n))) };
}
/** The mean over the seeds of a measure per n (what the manifest-drawn views draw by default). */
const seedMean = (task, key, field) => EVAL_NS.map((n) => entry(task, key).overSeeds[n][field].mean);

const bytes = {};
const fileOf = (task, key) => (bytes[`${task}-${key}`] ??= readFileSync(new URL(`../../web/models/${task}-${key}.safetensors`, import.meta.url)));
const ownConfig = (task, key) => JSON.parse(posenc.readSafetensors(fileOf(task, key)).metadata['posenc.config']);

/** Every measure per n, scored in Node as the workers do; scaling merged into the file's positional options. */
function scores(task, key, perN, scaling) {
  const options = { weights: fileOf(task, key), keepAttention: false };
  if (scaling) options.positional = { ...ownConfig(task, key).positional, scaling };
  const enc = posenc.createEncoder(options);
  const randomized = key.endsWith('-randomized');
  const generate = (prompt, n, positions) => generateWith(enc, prompt, n, positions);
  const counts = countsFor(perN);
  const out = EVAL_NS.map((n, i) => scoreTask(task, n, counts[i], {
    logitsOf: (tokens, positions) => enc.logits(tokens, positions ? { causal: true, positions } : { causal: true }),
    generate,
    positionsOf: randomized ? (k, b) => evalPositions(k, b) : () => null,
  }));
  enc.dispose();
  return out;
}

/** The answer a model generates greedily from a typed sequence, in Node, and which tokens are right. */
function generated(task, scheme, symbols) {
  const source = [...symbols].map((c) => LETTERS.indexOf(c) + 2);
  const target = targetOf(task, source);
  const enc = posenc.createEncoder({ weights: fileOf(task, scheme), keepAttention: false });
  const tokens = Array.from(enc.generate(taskPrompt(source), { maxNewTokens: source.length }));
  enc.dispose();
  return { tokens, correct: tokens.map((t, i) => t === target[i]) };
}

/** Attention of every layer and the right/wrong list of a typed sequence, in Node. */
function attention(task, scheme, symbols) {
  const tokens = taskSequence(task, [...symbols].map((c) => LETTERS.indexOf(c) + 2));
  const enc = posenc.createEncoder({ weights: fileOf(task, scheme), keepAttention: true });
  const logits = enc.logits(tokens, { causal: true });
  const probs = Array.from({ length: enc.config.layers }, (_, l) => enc.attention(l));
  const out = { L: tokens.length, heads: enc.config.heads, layers: enc.config.layers, probs, correct: teacherForced(tokens, logits).right };
  enc.dispose();
  return out;
}

let env;
let page;
let problems;
const reference = {};
beforeAll(async () => {
  await posenc.init();
  for (const k of MODELS) reference[k] = scores('copy', k, PER_N); // first: Node must not compete with the page for the cores
  env = await launch();
  ({ page, problems } = await openPage(env.browser, env.url));
});
afterAll(() => env?.close());
// each problem fails the test it happened in, once: the list is emptied after each test
afterEach(() => expect(problems.splice(0)).toEqual([]));

const evaluated = (p = page) => p.waitForFunction(() => document.querySelector('[data-view="train"]').dataset.evalDone === 'true', null, { timeout: 120000 });
const query = (p = page) => new URL(p.url()).searchParams;
const hex = (c) => [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16));
const dist = (a, b) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);

/**
 * A length plot's geometry as the page records it on the canvas (draw/length-plot.js): its
 * series and legend, the device pixel of n (xAt, on the log2 axis) and of a value (yAt).
 */
async function plotGeometry(p, view = 'train') {
  const geo = await p.$eval(`[data-view="${view}"] canvas.plot`, (c) => ({
    plot: c.dataset.plot.split(',').map(Number), pad: Number(c.dataset.xPad), yMax: Number(c.dataset.yMax), scale: c.dataset.xScale,
    ns: JSON.parse(c.dataset.ns), series: JSON.parse(c.dataset.series), reference: JSON.parse(c.dataset.reference), legend: JSON.parse(c.dataset.legend),
  }));
  const [px, py, pw, ph] = geo.plot;
  const [lo, hi] = [Math.log2(geo.ns[0]), Math.log2(geo.ns[geo.ns.length - 1])];
  return {
    ...geo,
    xAt: (n) => px + geo.pad + ((Math.log2(n) - lo) / (hi - lo)) * (pw - 2 * geo.pad),
    yAt: (v) => py + (1 - v / geo.yMax) * ph,
  };
}

/**
 * Every computed point of the curves, where `expected` (per series, in the
 * page's drawing order: [{ label, values }]) puts it: its centre pixel has the
 * series' colour, and the disk of that colour in its pixel column is centred
 * on the value to a pixel. Points a later disk covers are skipped. Returns the count checked.
 */
async function checkPoints(p, expected, view = 'train') {
  const geo = await plotGeometry(p, view);
  expect(geo.scale).toBe('log2');
  expect(geo.ns).toEqual([...EVAL_NS]);
  expect(geo.series.map((s) => s.label)).toEqual(expected.map((e) => e.label));
  const disks = [];
  expected.forEach((e, k) => {
    if (!geo.series[k].markers) return;
    e.values.forEach((v, i) => disks.push({ k, i, v, x: geo.xAt(EVAL_NS[i]), y: geo.yAt(v), color: hex(geo.series[k].color) }));
  });
  const shown = disks.filter((d) => !disks.some((o) => o.k > d.k && Math.hypot(o.x - d.x, o.y - d.y) < 11));
  const R = 12;
  const pts = shown.flatMap((d) => Array.from({ length: 2 * R + 1 }, (_, j) => [Math.floor(d.x), Math.floor(d.y) - R + j]));
  const { pixels } = await readPixels(p, view, pts, { relative: false });
  shown.forEach((d, n) => {
    const col = pixels.slice(n * (2 * R + 1), (n + 1) * (2 * R + 1));
    expect([d.k, d.i, dist(col[R], d.color) < 8]).toEqual([d.k, d.i, true]);
    let a = R;
    let b = R;
    while (a > 0 && dist(col[a - 1], d.color) < 40) a--;
    while (b < 2 * R && dist(col[b + 1], d.color) < 40) b++;
    const mid = Math.floor(d.y) - R + (a + b + 1) / 2;
    expect([d.k, d.i, Math.abs(mid - d.y) <= 1]).toEqual([d.k, d.i, true]);
  });
  return shown.length;
}

const defaultSeries = (palette, ref = reference, field = 'tokenAccuracy') => MODELS.map((k) => ({ label: LABELS[k], values: ref[k].map((r) => r[field]), color: palette[COLOR[k]] }));

describe('a measure against n, scored live', () => {
  test('the default settings (copy, 16 sequences at every n) are scored in workers, with a progress bar and the count in the title', async () => {
    // ready -> every point scored, as the page records both: logged here; bench/page-timings.mjs
    // holds it to its budget, where a loaded machine cannot fail a test
    await evaluated(page);
    const ms = await page.$eval('[data-view="train"]', (e) => Number(e.dataset.evalDoneAt) - Number(document.documentElement.dataset.readyMs));
    console.log(`train view: 72 points scored ${ms} ms after the page was ready`);
    expect(await page.$eval('[data-view="train"] progress', (e) => [e.value, e.max])).toEqual([72, 72]);
    expect(await page.$eval('[data-view="train"] .progress-text', (e) => e.textContent)).toMatch(/^72 points scored by posenc in (a worker|2 workers) in \d+\.\d s\.$/);
    expect(await page.$eval('[data-view="train"] canvas.plot', (c) => c.dataset.title)).toBe('Copy task, token accuracy, teacher-forced: 16 sequences per n');
    await (await page.$('[data-view="train"]')).screenshot({ path: `${SCREENSHOTS}/train-light-1100.png` });
  });

  test("every point sits at Node's score for its model and n, on a log2 axis, in the model's colour", async () => {
    const { series, xAt } = await plotGeometry(page);
    expect(series.map((s) => s.color)).toEqual(MODELS.map((k) => PALETTE[COLOR[k]]));
    // the axis is log2: 16 sits halfway between 8 and 32, 48 at log2(48) between 32 and 64, not halfway
    expect(Math.abs(xAt(16) - (xAt(8) + xAt(32)) / 2)).toBeLessThan(0.01);
    expect((xAt(48) - xAt(32)) / (xAt(64) - xAt(32))).toBeCloseTo(Math.log2(1.5), 6);
    // past the training range the schemes differ: what is checked here could not be one shared curve
    expect(reference.t5[4].tokenAccuracy - reference.sinusoidal[4].tokenAccuracy).toBeGreaterThan(0.5);
    expect(await checkPoints(page, defaultSeries(PALETTE))).toBeGreaterThanOrEqual(24);
  });

  test("under each curve the band of its model over the three training seeds, drawn and named in the legend", async () => {
    await page.waitForFunction(() => JSON.parse(document.querySelector('[data-view="train"] canvas.plot').dataset.series).every((x) => x.band));
    const { series, legend, xAt, yAt } = await plotGeometry(page);
    expect(manifest.models.every((m) => m.seeds.length === 3)).toBe(true);
    expect(series.map((x) => x.band)).toEqual(MODELS.map((k) => seedRange('copy', k, 'tokenAccuracy')));
    // drawn: midway between two n past the training range, in the middle of the widest band
    // there that no curve crosses, the pixel is tinted against the empty plot above 100%
    const mid = (a, i) => (a[i] + a[i + 1]) / 2;
    const xMid = (i) => (xAt(EVAL_NS[i]) + xAt(EVAL_NS[i + 1])) / 2;
    const curves = MODELS.map((k) => reference[k].map((r) => r.tokenAccuracy));
    const spots = series.flatMap((x, k) => EVAL_NS.slice(2, -1).map((_, j) => {
      const i = j + 2;
      const v = (mid(x.band.lo, i) + mid(x.band.hi, i)) / 2;
      return { k, i, v, height: mid(x.band.hi, i) - mid(x.band.lo, i), clear: curves.every((c) => Math.abs(yAt(mid(c, i)) - yAt(v)) > 6) };
    })).filter((t) => t.clear && yAt(t.v - t.height / 2) - yAt(t.v + t.height / 2) > 8).sort((a, b) => b.height - a.height);
    expect(spots.length).toBeGreaterThan(0);
    const { k, i, v } = spots[0];
    const x = Math.floor(xMid(i));
    const { pixels } = await readPixels(page, 'train', [[x, Math.floor(yAt(v))], [x, Math.floor(yAt(1.035))]], { relative: false });
    expect([MODELS[k], EVAL_NS[i], dist(pixels[0], pixels[1]) > 10]).toEqual([MODELS[k], EVAL_NS[i], true]);
    // the legend: each model's swatch tinted with its band (its top-left corner, clear of the line and
    // the disk), and an entry for the bands themselves
    expect(legend.map((e) => e.label)).toEqual([...MODELS.map((m) => LABELS[m]), 'band: seeds 1–3, lowest to highest (torch, every sequence)']);
    expect(legend.every((e) => e.band)).toBe(true);
    const corners = legend.map((e) => [e.x + 1, e.y + 1]);
    const empty = [legend[0].x - 6, legend[0].y + 1];
    const read = await readPixels(page, 'train', [...corners, empty], { relative: false });
    const bg = read.pixels[corners.length];
    read.pixels.slice(0, MODELS.length).forEach((px, m) => expect([MODELS[m], dist(px, bg) > 10]).toEqual([MODELS[m], true]));
  });

  test('chance 1/16 is a line on the token scores only: exact match has none (chance there is 16^-n)', async () => {
    const token = await plotGeometry(page);
    expect(token.reference).toEqual({ value: 1 / 16, label: 'chance 1/16' });
    await setControls(page, 'train', { score: 'exact' });
    await evaluated();
    const exact = await plotGeometry(page);
    expect(exact.reference).toBe(null);
    // no dashed line at 1/16 on the exact-match plot: at the right of the plot, between the curves at 256, the
    // row of the token plot's chance line is background there
    const y = Math.round(token.yAt(1 / 16));
    const [px, , pw] = exact.plot;
    const xs = Array.from({ length: 12 }, (_, j) => px + pw - 60 + 4 * j);
    const { pixels } = await readPixels(page, 'train', xs.map((x) => [x, y]), { relative: false });
    const bg = (await readPixels(page, 'train', [[px + pw - 30, Math.round(exact.yAt(0.5))]], { relative: false })).pixels[0];
    const exactValues = Object.fromEntries(MODELS.map((k) => [k, reference[k].map((r) => r.exactMatch)]));
    if (MODELS.every((k) => Math.abs(exact.yAt(exactValues[k][8]) - y) > 8)) expect(pixels.filter((p) => dist(p, bg) > 10)).toEqual([]);
    expect(await checkPoints(page, MODELS.map((k) => ({ label: LABELS[k], values: exactValues[k] })))).toBeGreaterThanOrEqual(EVAL_NS.length);
    await setControls(page, 'train', { score: 'token' });
    expect(query().has('train.score')).toBe(false);
  });

  test('the JSON download is the same figures, exactly; the read-out names every model at an n', async () => {
    const [d] = await Promise.all([page.waitForEvent('download'), page.click('[data-view="train"] [data-download="json"]')]);
    const j = JSON.parse(readFileSync(await d.path()));
    expect(j.params).toEqual({ task: 'copy', seqs: PER_N, scaling: 'none', factor: 4, score: 'token' });
    expect(j.columns).toEqual(EVAL_NS.map((n) => `n=${n}`));
    // downloads carry float32, as every view's: the figures rounded once
    const f32 = (values) => values.map(Math.fround);
    const measures = ['tokenAccuracy', 'exactMatch', 'greedyTokenAccuracy', 'correctPrefix', 'loss'];
    MODELS.forEach((k, m) => {
      measures.forEach((key, q) => {
        const row = 6 * m + q;
        expect([j.rowLabels[row], f32(j.values[row])]).toEqual([`${k}:${key}`, f32(reference[k].map((r) => r[key]))]);
      });
      expect([j.rowLabels[6 * m + 5], j.values[6 * m + 5]]).toEqual([`${k}:sequences`, countsFor(PER_N)]);
    });
    // then per model each measure's band: the lowest and highest seed
    MODELS.forEach((k, m) => measures.forEach((key, q) => {
      const at = 6 * MODELS.length + 10 * m + 2 * q;
      const band = seedRange('copy', k, key);
      expect(j.rowLabels.slice(at, at + 2)).toEqual([`${k}:${key}:seeds min`, `${k}:${key}:seeds max`]);
      expect(j.values.slice(at, at + 2).map(f32)).toEqual([f32(band.lo), f32(band.hi)]);
    }));
    await page.focus('[data-view="train"] canvas.plot');
    for (const key of ['ArrowRight', 'ArrowRight', 'ArrowRight']) await page.keyboard.press(key);
    const pct = (k) => `${(100 * reference[k][3].tokenAccuracy).toFixed(1)}%`;
    expect(await page.$eval('[data-view="train"] .readout', (e) => e.textContent)).toBe(`n = 48 (16 sequences) · ${MODELS.map((k) => `${LABELS[k]} ${pct(k)}`).join(' · ')}`);
  });

  test("RoPE scaling (YaRN x4, then linear x2) redraws RoPE's curve from the scaled model; the unscaled one stays dashed", async () => {
    const yarn = scores('copy', 'rope', PER_N, { type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 66 });
    // a real change to draw: YaRN moves RoPE at n = 128 by far more than a pixel
    expect(Math.abs(yarn[6].tokenAccuracy - reference.rope[6].tokenAccuracy)).toBeGreaterThan(0.2);
    await setControls(page, 'train', { scaling: 'yarn' });
    expect(query().get('train.scaling')).toBe('yarn');
    await evaluated();
    const expected = [...defaultSeries(PALETTE), { label: 'RoPE, YaRN ×4', values: yarn.map((r) => r.tokenAccuracy) }];
    expected[3].label = 'RoPE, unscaled';
    const series = await page.$eval('[data-view="train"] canvas.plot', (c) => JSON.parse(c.dataset.series));
    // a band is the trained models' spread: the scaled curve has none
    expect(series[8]).toEqual({ label: 'RoPE, YaRN ×4', color: PALETTE[3], markers: true, band: null });
    expect(series[3].markers).toBe(false);
    expect(await checkPoints(page, expected)).toBeGreaterThanOrEqual(24);
    // only RoPE's scaled curve was asked for: 9 new points of 81
    expect(await page.$eval('[data-view="train"] progress', (e) => [e.value, e.max])).toEqual([81, 81]);
    expect(await page.$eval('[data-view="train"] .progress-text', (e) => e.textContent)).toMatch(/^81 points, the 9 new ones scored by posenc in /);

    const linear = scores('copy', 'rope', PER_N, { type: 'linear', factor: 2 });
    await setControls(page, 'train', { scaling: 'linear', factor: 2 });
    expect([query().get('train.scaling'), query().get('train.factor')]).toEqual(['linear', '2']);
    await evaluated();
    expected[8] = { label: 'RoPE, linear ×2', values: linear.map((r) => r.tokenAccuracy) };
    expect(await checkPoints(page, expected)).toBeGreaterThanOrEqual(24);
    await page.$eval('[data-view="train"]', (e) => e.scrollIntoView());
    await (await page.$('[data-view="train"] .figure')).screenshot({ path: `${SCREENSHOTS}/train-scaled-light-1100.png` });
    await setControls(page, 'train', { scaling: 'none', factor: 4 });
    expect(query().has('train.scaling')).toBe(false);
    await evaluated();
  });

  test("docs/models.md's RoPE scaling figures are posenc's, on the view's default sequences", () => {
    const doc = readFileSync(new URL('../../docs/models.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
    const pct = (r) => `${Math.round(100 * r.tokenAccuracy)}%`;
    const yarn = scores('copy', 'rope', PER_N, { type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 66 });
    const dynamic = scores('copy', 'rope', PER_N, { type: 'dynamic', factor: 4, maxPositionEmbeddings: 66 });
    const linear = scores('copy', 'rope', PER_N, { type: 'linear', factor: 4 });
    expect(doc).toContain(
      `YaRN lifts RoPE at n = 128 from ${pct(reference.rope[6])} of symbols to ${pct(yarn[6])}, and dynamic NTK to ${pct(dynamic[6])}; linear interpolation costs accuracy even inside the training range (${pct(linear[0])} at n = 8)`,
    );
  });

  test("greedy token accuracy: each model's points where Node's greedy decoding puts them; both scores side by side", async () => {
    await setControls(page, 'train', { score: 'greedy' });
    expect(query().get('train.score')).toBe('greedy');
    await evaluated();
    // every measure came with the first scoring: nothing is scored again
    expect(await page.$eval('[data-view="train"] .progress-text', (e) => e.textContent)).toMatch(/^72 points scored by posenc in /);
    expect(await checkPoints(page, defaultSeries(PALETTE, reference, 'greedyTokenAccuracy'))).toBeGreaterThanOrEqual(EVAL_NS.length);
    const bands = await page.$eval('[data-view="train"] canvas.plot', (c) => JSON.parse(c.dataset.series).map((x) => x.band));
    expect(bands).toEqual(MODELS.map((k) => seedRange('copy', k, 'greedyTokenAccuracy')));
    await setControls(page, 'train', { score: 'both' });
    await evaluated();
    const series = await page.$eval('[data-view="train"] canvas.plot', (c) => JSON.parse(c.dataset.series));
    expect(series.map((x) => [x.label, x.markers])).toEqual([...MODELS.map((k) => [LABELS[k], true]), ...MODELS.map((k) => [`${LABELS[k]}, greedy`, false])]);
    const greedy = defaultSeries(PALETTE, reference, 'greedyTokenAccuracy').map((e) => ({ ...e, label: `${e.label}, greedy` }));
    expect(await checkPoints(page, [...defaultSeries(PALETTE), ...greedy])).toBeGreaterThanOrEqual(24);
    await page.$eval('[data-view="train"]', (e) => e.scrollIntoView());
    await (await page.$('[data-view="train"] .figure')).screenshot({ path: `${SCREENSHOTS}/train-greedy-light-1100.png` });
    await setControls(page, 'train', { score: 'token' });
  });

  test('the sequence count is a control: 2 per n scores 2 sequences, as Node does, and the title says so', async () => {
    await setControls(page, 'train', { seqs: 2 });
    await evaluated();
    expect(await page.$eval('[data-view="train"] canvas.plot', (c) => c.dataset.title)).toBe('Copy task, token accuracy, teacher-forced: 2 sequences per n');
    const two = Object.fromEntries(MODELS.map((k) => [k, scores('copy', k, 2)]));
    expect(await checkPoints(page, defaultSeries(PALETTE, two))).toBeGreaterThanOrEqual(20);
    expect(await page.$eval('[data-view="train"] canvas.plot', (c) => c.getAttribute('aria-label'))).toMatch(/Train short, test long/);
    await setControls(page, 'train', { seqs: PER_N });
    await evaluated();
  });

  test('bad input (0 sequences, an empty factor) is refused with a named message; nothing is recomputed or redrawn', async () => {
    const url = page.url();
    for (const [name, value, message] of [
      ['seqs', '0', 'sequences per n must be an integer from 1 to 64'],
      ['seqs', '2.5', 'sequences per n must be an integer from 1 to 64'],
      ['factor', '', 'factor must be a number above 0 and at most 64'],
      ['factor', '0', 'factor must be a number above 0 and at most 64'],
    ]) {
      const before = await draws(page, 'train');
      await page.fill(`[data-view="train"] [name="${name}"]`, value);
      await frames(page);
      expect(await page.$eval('[data-view="train"] .error', (e) => !e.hidden && e.textContent)).toBe(message);
      expect(await draws(page, 'train')).toBe(before); // the last good picture stays
      expect(await page.$eval(`[data-view="train"] [name="${name}"]`, (e) => e.getAttribute('aria-invalid'))).toBe('true');
      await page.fill(`[data-view="train"] [name="${name}"]`, name === 'seqs' ? String(PER_N) : '4');
      await frames(page);
    }
    expect(page.url()).toBe(url);
    expect(await page.$eval('[data-view="train"]', (e) => e.dataset.evalDone)).toBe('true');
    expect(await page.$eval('[data-view="train"] .error', (e) => e.hidden)).toBe(true);
  });
});

describe("the views drawn from the manifest: torch's figures over the three seeds", () => {
  test('where it breaks: each cell of the heatmap inverts to the mean per-position share; the training length is dashed', async () => {
    const geo = await page.$eval('[data-view="breaks"] canvas.plot', (c) => ({ ...c.dataset }));
    expect([geo.task, JSON.parse(geo.models), geo.rows, geo.cols]).toEqual(['copy', MODELS, String(MODELS.length), '128']);
    const [px, py, pw, ph] = geo.plot.split(',').map(Number);
    const rows = MODELS.map((k) => entry('copy', k).overSeeds[128].perPosition);
    // one pixel per cell centre of every row, at every 8th position
    const cells = MODELS.flatMap((_, r) => Array.from({ length: 16 }, (__, q) => [r, 8 * q + 3]));
    const pts = cells.map(([r, c]) => [px + Math.floor(((c + 0.5) * pw) / 128), py + Math.floor(((r + 0.5) * ph) / MODELS.length)]);
    const { pixels } = await readPixels(page, 'breaks', pts, { relative: false });
    const step = 1 / (SIZE - 1);
    cells.forEach(([r, c], q) => {
      const [x, y] = [pts[q][0] - px, pts[q][1] - py];
      const [r0, r1] = cellSpan(y, MODELS.length, ph);
      const [c0, c1] = cellSpan(x, 128, pw);
      let e = 0;
      for (let i = r0; i < r1; i++) for (let j = c0; j < c1; j++) e += rows[i][j];
      const inv = invert(...pixels[q].slice(0, 3), 0, 1);
      expect([MODELS[r], c, inv.distance, Math.abs(inv.value - e / ((r1 - r0) * (c1 - c0))) <= step / 2 + 1e-9]).toEqual([MODELS[r], c, 0, true]);
    });
    // ALiBi's seed 1 keeps the first 32 targets and is near chance after them; seed 3 loses
    // them (docs/models.md): the mean drawn here lies between
    const alibiSeed = (seed) => entry('copy', 'alibi').seeds.find((r) => r.seed === seed).scores[128].perPosition;
    expect(Math.min(...alibiSeed(1).slice(0, 32))).toBeGreaterThan(0.9);
    expect(Math.max(...alibiSeed(1).slice(40))).toBeLessThan(0.4);
    expect(alibiSeed(3).slice(0, 32).reduce((a, b) => a + b, 0) / 32).toBeLessThan(0.25);
    // n = 256 and one seed: the columns follow
    await setControls(page, 'breaks', { n: 256, seed: 3 });
    expect(await page.$eval('[data-view="breaks"] canvas.plot', (c) => c.dataset.cols)).toBe('256');
    expect([query().get('breaks.n'), query().get('breaks.seed')]).toEqual(['256', '3']);
    await page.focus('[data-view="breaks"] canvas.plot');
    for (const key of ['ArrowDown', 'ArrowDown', 'ArrowDown', 'ArrowDown', 'ArrowRight']) await page.keyboard.press(key);
    const v = entry('copy', 'alibi').seeds.find((r) => r.seed === 3).scores[256].perPosition[1];
    expect(await page.$eval('[data-view="breaks"] .readout', (e) => e.textContent)).toBe(`ALiBi · target 2 of 256 · ${(100 * v).toFixed(1)}% of sequences right (seed 3, torch)`);
    await page.$eval('[data-view="breaks"]', (e) => e.scrollIntoView());
    await (await page.$('[data-view="breaks"]')).screenshot({ path: `${SCREENSHOTS}/train-breaks-light-1100.png` });
    await setControls(page, 'breaks', { n: 128, seed: 'mean' });
  });

  test('loss against n: each point at the mean loss over the seeds, its band the seeds\' range; ln 16 marked', async () => {
    const geo = await plotGeometry(page, 'lengthloss');
    expect(geo.reference).toEqual({ value: Math.log(16), label: 'uniform guess: ln 16 = 2.77' });
    expect(geo.series.map((s) => s.band)).toEqual(MODELS.map((k) => seedRange('copy', k, 'loss')));
    expect(await checkPoints(page, MODELS.map((k) => ({ label: LABELS[k], values: seedMean('copy', k, 'loss') })), 'lengthloss')).toBeGreaterThanOrEqual(24);
    // the y axis holds every band
    expect(geo.yMax).toBeGreaterThanOrEqual(Math.max(...MODELS.flatMap((k) => seedRange('copy', k, 'loss').hi)));
  });

  test('greedy against teacher-forced: each point at (mean teacher-forced, mean greedy token accuracy), in its colour', async () => {
    const c = await page.$eval('[data-view="compound"] canvas.plot', (e) => ({ ...e.dataset }));
    expect(JSON.parse(c.models).map((m) => m.key)).toEqual(MODELS);
    const [px, py, pw, ph] = c.plot.split(',').map(Number);
    const pad = Number(c.pad);
    const xAt = (v) => px + pad + v * (pw - 2 * pad);
    const yAt = (v) => py + ph - pad - v * (ph - 2 * pad);
    const points = MODELS.flatMap((k, m) => {
      const tf = seedMean('copy', k, 'tokenAccuracy');
      const g = seedMean('copy', k, 'greedyTokenAccuracy');
      return EVAL_NS.map((n, i) => ({ m, i, x: xAt(tf[i]), y: yAt(g[i]), r: 2 + (3 * (Math.log2(n) - 3)) / 5, color: hex(PALETTE[COLOR[k]]) }));
    });
    // a point no later point covers: its centre pixel is its model's colour
    const shown = points.filter((p, q) => !points.slice(q + 1).some((o) => Math.hypot(o.x - p.x, o.y - p.y) < o.r + p.r + 2));
    expect(shown.length).toBeGreaterThanOrEqual(20);
    const { pixels } = await readPixels(page, 'compound', shown.map((p) => [Math.floor(p.x), Math.floor(p.y)]), { relative: false });
    shown.forEach((p, q) => expect([MODELS[p.m], EVAL_NS[p.i], dist(pixels[q], p.color) < 8]).toEqual([MODELS[p.m], EVAL_NS[p.i], true]));
    // compounding: T5's greedy accuracy at n = 64 is far below its teacher-forced one
    const t5 = (field) => seedMean('copy', 't5', field)[4];
    expect(t5('tokenAccuracy') - t5('greedyTokenAccuracy')).toBeGreaterThan(0.3);
    // the read-out: the point under the pointer
    const t = shown.find((p) => MODELS[p.m] === 't5' && EVAL_NS[p.i] === 64) ?? shown[0];
    await page.mouse.move(0, 0);
    await page.$eval('[data-view="compound"]', (e) => e.scrollIntoView()); // the pointer reaches the viewport only
    const box = await (await page.$('[data-view="compound"] canvas.plot')).boundingBox();
    await page.mouse.move(box.x + t.x, box.y + t.y);
    const k = MODELS[t.m];
    const expected = `${LABELS[k]}, n = ${EVAL_NS[t.i]} · teacher-forced ${(100 * seedMean('copy', k, 'tokenAccuracy')[t.i]).toFixed(1)}% · greedy ${(100 * seedMean('copy', k, 'greedyTokenAccuracy')[t.i]).toFixed(1)}% of target tokens (mean of seeds 1–3)`;
    expect(await page.$eval('[data-view="compound"] .readout', (e) => e.textContent)).toBe(expected);
    await page.$eval('[data-view="compound"]', (e) => e.scrollIntoView());
    await (await page.$('.pair:has([data-view="compound"])')).screenshot({ path: `${SCREENSHOTS}/train-loss-greedy-light-1100.png` });
  });
});

const panels = (p = page) => p.$eval('[data-view="copyattn"] canvas.plot', (c) => JSON.parse(c.dataset.panels));
const strip = (p = page) => p.$eval('[data-view="copyattn"] canvas.plot', (c) => JSON.parse(c.dataset.strip));
/** Waits until the attention view shows `scheme`'s model of `task`: one panel per layer and head. */
const loaded = (p, scheme, task = 'copy') => p.waitForFunction(([k, t, count]) => {
  const c = document.querySelector('[data-view="copyattn"] canvas.plot');
  return c.dataset.scheme === k && c.dataset.task === t && JSON.parse(c.dataset.panels || '[]').length === count;
}, [scheme, task, LAYERS * 4]);

/** Samples each panel and compares the inverted colours with ref's attention; the worst error in colour steps. */
async function worstPanelError(ref, n = 6) {
  const ps = await panels();
  const pts = ps.flatMap(({ x, y, w }) => Array.from({ length: n * n }, (_, k) => [x + Math.floor(((Math.floor(k / n) + 0.5) * w) / n), y + Math.floor((((k % n) + 0.5) * w) / n)]));
  const { pixels } = await readPixels(page, 'copyattn', pts, { relative: false });
  const { L } = ref;
  let worst = 0;
  ps.forEach(({ x, y, w, layer, head, min, max }, q) => {
    const step = (max - min) / (SIZE - 1);
    for (let k = 0; k < n * n; k++) {
      const [px, py] = pts[q * n * n + k];
      const inv = invert(...pixels[q * n * n + k].slice(0, 3), min, max);
      expect(inv.distance).toBe(0);
      const [r0, r1] = cellSpan(py - y, L, w);
      const [c0, c1] = cellSpan(px - x, L, w);
      let e = 0;
      for (let i = r0; i < r1; i++) for (let j = c0; j < c1; j++) e += ref.probs[layer][(head * L + i) * L + j];
      worst = Math.max(worst, Math.abs(inv.value - e / ((r1 - r0) * (c1 - c0))) / step);
    }
  });
  return worst;
}

/** The strip read back: one colour per target token, equal to ref.correct. */
async function checkStrip(p, ref) {
  const s = await strip(p);
  expect([s.n, s.correct]).toEqual([ref.correct.length, ref.correct.map(Number)]);
  const pts = Array.from({ length: s.n }, (_, i) => [s.x + Math.floor(((i + 0.5) * s.w) / s.n), s.y + 1]);
  const { pixels } = await readPixels(p, 'copyattn', pts, { relative: false });
  const want = ref.correct.map((c) => hex(c ? s.colors.right : s.colors.wrong));
  expect(pixels.map((px) => px.slice(0, 3))).toEqual(want);
}

describe('attention of a trained model on a typed or random sequence', () => {
  test('the default sequence has 40 symbols (past training); 4 x 4 panels, each the attention posenc gives in Node; SEP ticked', async () => {
    await loaded(page, 'rope');
    expect(DEFAULT_SYMBOLS).toHaveLength(40);
    expect(await page.inputValue('[data-view="copyattn"] input[name="symbols"]')).toBe(DEFAULT_SYMBOLS);
    const ref = attention('copy', 'rope', DEFAULT_SYMBOLS);
    const ps = await panels();
    expect(ps.map((p) => `${p.layer}:${p.head}`)).toEqual(Array.from({ length: LAYERS * 4 }, (_, i) => `${Math.floor(i / 4)}:${i % 4}`));
    expect(await worstPanelError(ref)).toBeLessThanOrEqual(0.5 + 1e-4);
    await checkStrip(page, ref);
    // SEP (position n + 1 = 41) is ticked left of every panel (its row) and under it (its column), in the
    // text colour, where the gap is otherwise background
    const ticks = await page.$eval('[data-view="copyattn"] canvas.plot', (c) => JSON.parse(c.dataset.ticks));
    expect(ticks).toMatchObject({ sep: 41, labelled: [0, 41, ref.L - 1] });
    const at = (start, w, i) => Math.round(start + ((i + 0.5) * w) / ref.L);
    const marks = ps.flatMap((q) => [[q.x - 3, at(q.y, q.h, 41)], [at(q.x, q.w, 41), q.y + q.h + 3]]);
    const clear = ps.flatMap((q) => [[q.x - 3, at(q.y, q.h, 20)], [at(q.x, q.w, 20), q.y + q.h + 3]]).filter((_, k) => k % 2 === 1 || ps[Math.floor(k / 2)].head > 0);
    const { pixels } = await readPixels(page, 'copyattn', [...marks, ...clear], { relative: false });
    const bg = pixels[marks.length];
    pixels.slice(0, marks.length).forEach((px, k) => expect([k, dist(px, bg) > 60]).toEqual([k, true]));
    // a previous-token head in the first layer and induction heads in every head of the third
    // (docs/models.md): in posenc's attention, and there to see on the page's pixels, each
    // diagonal standing out from a diagonal beside it (a cell is about 2 px here, so a pixel
    // also takes in its neighbours: the contrast is read, not the value)
    const { L } = ref;
    const n = 40;
    const along = (l, h, back, from) => {
      let sum = 0;
      for (let i = from; i < L; i++) sum += ref.probs[l][(h * L + i) * L + i - back];
      return sum / (L - from);
    };
    const heads = [0, 1, 2, 3];
    const prevHead = heads.reduce((a, h) => (along(0, h, 1, 1) > along(0, a, 1, 1) ? h : a), 0);
    expect(along(0, prevHead, 1, 1)).toBeGreaterThan(0.9);
    // row n + 1 + i holds t_i = s_i and predicts s_{i+1}, at key i + 1: n back
    heads.forEach((h) => expect([h, along(2, h, n, n + 2) > 0.6]).toEqual([h, true]));
    const centre = (p, i, j) => [p.x + Math.floor(((j + 0.5) * p.w) / L), p.y + Math.floor(((i + 0.5) * p.w) / L)];
    const diag = (p, back, from) => Array.from({ length: L - from }, (_, k) => centre(p, from + k, from + k - back));
    const mean = async (p, cells) => {
      const read = await readPixels(page, 'copyattn', cells, { relative: false });
      return read.pixels.reduce((a, px) => a + invert(...px.slice(0, 3), -1, 1).value, 0) / cells.length;
    };
    const panelOf = (l, h) => ps.find((p) => p.layer === l && p.head === h);
    const prevPanel = panelOf(0, prevHead);
    expect((await mean(prevPanel, diag(prevPanel, 1, 8))) - (await mean(prevPanel, diag(prevPanel, 5, 8)))).toBeGreaterThan(0.15);
    for (const h of heads) {
      const p = panelOf(2, h);
      const contrast = (await mean(p, diag(p, n, n + 2))) - (await mean(p, diag(p, n - 4, n + 2)));
      expect([h, contrast > 0.15]).toEqual([h, true]);
    }
    // the keyboard reads a cell: PageDown to layer 1 head 3, two rows down
    await page.focus('[data-view="copyattn"] canvas.plot');
    for (let k = 0; k < 7; k++) await page.keyboard.press('PageDown');
    for (const key of ['ArrowDown', 'ArrowDown']) await page.keyboard.press(key);
    const v = ref.probs[1][(3 * L + 2) * L + 0];
    expect(await page.$eval('[data-view="copyattn"] .readout', (e) => e.textContent)).toBe(`RoPE layer 1 head 3 · query 2 '${DEFAULT_SYMBOLS[1]}' · key 0 '^' · attention ${+v.toPrecision(5)}`);
    await page.$eval('[data-view="copyattn"]', (e) => e.scrollIntoView());
    await (await page.$('[data-view="copyattn"]')).screenshot({ path: `${SCREENSHOTS}/train-attention-light-1100.png` });
  });

  test('the model generates its answer greedily, token by token: every token Node\'s encoder.generate, right and wrong marked', async () => {
    const box = '[data-view="copyattn"] .generation-tokens';
    const done = (p, key) => p.waitForFunction(([sel, k]) => {
      const g = JSON.parse(document.querySelector(sel).dataset.generated || '{}');
      return g.done && g.key === k;
    }, [box, key]);
    for (const [scheme, symbols] of [['rope', 'deadbeefcafebabe'], ['sinusoidal', 'abcdefghijklmnopabcdefghijklmnopabcdefghijklmnop']]) {
      await setControls(page, 'copyattn', { scheme, symbols });
      await done(page, JSON.stringify(['copy', scheme, symbols]));
      const ref = generated('copy', scheme, symbols);
      const g = await page.$eval(box, (e) => JSON.parse(e.dataset.generated));
      expect([g.tokens, g.correct]).toEqual([ref.tokens, ref.correct.map(Number)]);
      const spans = await page.$$eval(`${box} span`, (list) => list.map((e) => [e.textContent, e.className]));
      const glyph = (t) => LETTERS[t - 2] ?? (t === 0 ? '^' : '|');
      expect(spans).toEqual(ref.tokens.map((t, i) => [glyph(t), ref.correct[i] ? 'right' : 'wrong']));
      const right = ref.correct.filter(Boolean).length;
      const caption = await page.$eval('[data-view="copyattn"] .generation-caption', (e) => e.textContent);
      expect(caption.startsWith(`Greedy: ${scheme === 'rope' ? 'RoPE' : 'sinusoidal'} generates ${right} of ${symbols.length} symbols right, `)).toBe(true);
      expect(caption.endsWith(right === symbols.length ? 'exact match.' : 'and it reads its own tokens from there.')).toBe(true);
    }
    // past the training range (n = 48) the sinusoidal model goes wrong: both marks are on the page
    const classes = await page.$$eval(`${box} span`, (list) => new Set(list.map((e) => e.className)).size);
    expect(classes).toBe(2);
    // the colours are the stylesheet's (strict CSP: no inline style)
    const colors = await page.$$eval(`${box} span`, (list) => [...new Set(list.map((e) => getComputedStyle(e).backgroundColor))].sort());
    expect(colors).toEqual(['rgb(214, 39, 40)', 'rgb(44, 160, 44)']);
    await page.$eval('[data-view="copyattn"] .generation', (e) => e.scrollIntoView());
    await (await page.$('[data-view="copyattn"] .generation')).screenshot({ path: `${SCREENSHOTS}/train-greedy-copy-light-1100.png` });
    await setControls(page, 'copyattn', { scheme: 'rope', symbols: DEFAULT_SYMBOLS });
  });

  test('ALiBi has 4 x 4 panels; a random draw of n = 100 (past training) writes the sequence and the URL, and the strip follows', async () => {
    await setControls(page, 'copyattn', { scheme: 'alibi' });
    await loaded(page, 'alibi');
    expect(query().get('copyattn.scheme')).toBe('alibi');
    await setControls(page, 'copyattn', { n: 100 });
    const before = await draws(page, 'copyattn');
    await page.click('[data-view="copyattn"] [data-action="random"]');
    await redrawn(page, 'copyattn', before);
    const symbols = await page.inputValue('[data-view="copyattn"] input[name="symbols"]');
    expect(symbols).toMatch(/^[a-p]{100}$/);
    expect(query().get('copyattn.symbols')).toBe(symbols);
    const ref = attention('copy', 'alibi', symbols);
    expect(ref.layers * ref.heads).toBe(LAYERS * 4);
    await checkStrip(page, ref);
    expect(await worstPanelError(ref, 4)).toBeLessThanOrEqual(0.5 + 1e-3);
    expect(await page.$eval('[data-view="copyattn"] .readout', (e) => e.textContent)).not.toMatch(/NaN|undefined/);
    await setControls(page, 'copyattn', { scheme: 'rope', symbols: DEFAULT_SYMBOLS, n: 48 });
  });

  test("a model that fails to load is a named error for that model only, and is fetched again when asked for again", async () => {
    const own = await openPage(env.browser, env.url);
    const p = own.page;
    try {
      await evaluated(p); // the workers hold their models: from here only the attention view fetches
      await loaded(p, 'rope');
      const file = '**/models/copy-alibi.safetensors';
      await p.route(file, (r) => r.fulfill({ status: 404, body: 'gone' }));
      const error = () => p.$eval('[data-view="copyattn"] .error', (e) => (e.hidden ? null : e.textContent));
      await p.selectOption('[data-view="copyattn"] [name="scheme"]', 'alibi');
      await p.waitForFunction(() => !document.querySelector('[data-view="copyattn"] .error').hidden);
      expect(await error()).toBe('could not load /models/copy-alibi.safetensors: HTTP 404');
      // another model is not blocked by it
      await setControls(p, 'copyattn', { scheme: 'rope' });
      await loaded(p, 'rope');
      expect(await error()).toBe(null);
      // asked for again, the file is fetched again, and now it loads: 4 layers x 4 heads
      await p.unroute(file);
      await p.selectOption('[data-view="copyattn"] [name="scheme"]', 'alibi');
      await loaded(p, 'alibi');
      expect(await error()).toBe(null);
      // the failed fetch (and Chromium's console line about it) is the only problem the page had
      expect(own.problems.filter((m) => !m.includes('copy-alibi.safetensors') && !m.includes('status of 404'))).toEqual([]);
      expect(own.problems.filter((m) => m.includes('HTTP 404') && m.includes('copy-alibi.safetensors'))).toHaveLength(1);
    } finally {
      await own.context.close();
    }
  });

  test('bad sequences (a symbol past p, empty, 257 symbols) and a bad n are refused by name; nothing changes', async () => {
    const before = await draws(page, 'copyattn');
    const url = page.url();
    const ps = JSON.stringify(await panels());
    const box = '[data-view="copyattn"] input[name="symbols"]';
    const good = await page.inputValue(box);
    for (const [value, message] of [
      ['abc xyz', "sequence may hold only the symbols a to p, got 'x'"],
      ['', 'sequence must have 1 to 256 symbols, got 0'],
      ['a'.repeat(257), 'sequence must have 1 to 256 symbols, got 257'],
    ]) {
      await page.fill(box, value);
      await frames(page);
      expect(await page.$eval('[data-view="copyattn"] .error', (e) => !e.hidden && e.textContent)).toBe(message);
    }
    await page.fill('[data-view="copyattn"] input[name="n"]', '0');
    await page.click('[data-view="copyattn"] [data-action="random"]');
    await frames(page);
    expect(await page.inputValue(box)).toBe('a'.repeat(257)); // the button drew nothing
    expect(await page.$eval('[data-view="copyattn"] .error', (e) => !e.hidden && e.textContent)).toMatch(/^(sequence|random n) /);
    expect([page.url(), await draws(page, 'copyattn'), JSON.stringify(await panels())]).toEqual([url, before, ps]);
    await page.fill(box, good);
    await setControls(page, 'copyattn', { n: 48, scheme: 'rope', symbols: DEFAULT_SYMBOLS });
    expect(query().has('copyattn.symbols')).toBe(false);
  });
});

describe('the task switches the whole section', () => {
  test('reversal: the curves are the reversal models\' (Node), the manifest views and the attention follow, the URL says so', async () => {
    const reversal = Object.fromEntries(MODELS.map((k) => [k, scores('reverse', k, PER_N)]));
    await setControls(page, 'train', { task: 'reverse' });
    expect(query().get('train.task')).toBe('reverse');
    await evaluated();
    // past n = 32 the reversal's curves crowd near chance, covering more of each other's disks than the copy's
    expect(await checkPoints(page, defaultSeries(PALETTE, reversal))).toBeGreaterThanOrEqual(16);
    const { series } = await plotGeometry(page);
    expect(series.map((x) => x.band)).toEqual(MODELS.map((k) => seedRange('reverse', k, 'tokenAccuracy')));
    expect(await page.$eval('[data-view="breaks"] canvas.plot', (c) => c.dataset.task)).toBe('reverse');
    expect(await checkPoints(page, MODELS.map((k) => ({ label: LABELS[k], values: seedMean('reverse', k, 'loss') })), 'lengthloss')).toBeGreaterThanOrEqual(20);
    expect(await page.$eval('[data-view="compound"] canvas.plot', (c) => c.dataset.task)).toBe('reverse');
    await loaded(page, 'rope', 'reverse');
    await checkStrip(page, attention('reverse', 'rope', DEFAULT_SYMBOLS));
    const box = '[data-view="copyattn"] .generation-tokens';
    await page.waitForFunction(([sel, k]) => {
      const g = JSON.parse(document.querySelector(sel).dataset.generated || '{}');
      return g.done && g.key === k;
    }, [box, JSON.stringify(['reverse', 'rope', DEFAULT_SYMBOLS])]);
    const g = await page.$eval(box, (e) => JSON.parse(e.dataset.generated));
    expect(g.tokens).toEqual(generated('reverse', 'rope', DEFAULT_SYMBOLS).tokens);
    await page.$eval('[data-view="train"]', (e) => e.scrollIntoView());
    await (await page.$('[data-view="train"]')).screenshot({ path: `${SCREENSHOTS}/train-reverse-light-1100.png` });
    await setControls(page, 'train', { task: 'copy' });
    expect(query().has('train.task')).toBe(false);
    await evaluated();
  }, 180000); // Node scores the eight reversal models first, then the page does: on 2 busy cores, minutes
});

describe('a worker that cannot start', () => {
  test('is a named error that stays through new settings, not a progress bar that hangs', async () => {
    const setup = (p) => p.route('**/train/worker.js', (r) => r.fulfill({ status: 404, body: 'gone' }));
    const own = await openPage(env.browser, env.url, { setup });
    const p = own.page;
    try {
      const error = () => p.$eval('[data-view="train"] .error', (e) => (e.hidden ? null : e.textContent));
      await p.waitForFunction(() => !document.querySelector('[data-view="train"] .error').hidden);
      expect(await error()).toMatch(/^the evaluation worker failed: /);
      await p.fill('[data-view="train"] [name="seqs"]', '2');
      await frames(p);
      expect(await error()).toMatch(/^the evaluation worker failed: /);
      expect(await p.$eval('[data-view="train"]', (e) => e.dataset.evalDone)).not.toBe('true');
    } finally {
      await own.context.close();
    }
  });
});

describe('other widths and themes', () => {
  test('at 360 px, with dynamic scaling and NoPE: fits the width, the points and panels are right (screenshots)', async () => {
    const narrow = await openPage(env.browser, env.url, { width: 360, height: 800, query: '?train.scaling=dynamic&copyattn.scheme=none' });
    try {
      await evaluated(narrow.page);
      expect(await narrow.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      for (const v of ['train', 'breaks', 'lengthloss', 'compound', 'copyattn']) {
        const box = await (await narrow.page.$(`[data-view="${v}"]`)).boundingBox();
        expect([v, box.x + box.width <= 360]).toEqual([v, true]);
      }
      const dynamic = scores('copy', 'rope', PER_N, { type: 'dynamic', factor: 4, maxPositionEmbeddings: 66 });
      const expected = [...defaultSeries(PALETTE), { label: 'RoPE, dynamic NTK ×4', values: dynamic.map((r) => r.tokenAccuracy) }];
      expected[3].label = 'RoPE, unscaled';
      expect(await checkPoints(narrow.page, expected)).toBeGreaterThanOrEqual(18);
      await loaded(narrow.page, 'none');
      const c = await narrow.page.$eval('[data-view="copyattn"] canvas.plot', (e) => ({ panels: JSON.parse(e.dataset.panels), strip: JSON.parse(e.dataset.strip), w: e.width, h: e.height }));
      for (const p of [...c.panels, c.strip]) expect([p.x >= 0, p.x + p.w <= c.w, p.y + p.h <= c.h, p.w >= 16]).toEqual([true, true, true, true]);
      await checkStrip(narrow.page, attention('copy', 'none', DEFAULT_SYMBOLS));
      await (await narrow.page.$('[data-view="train"]')).screenshot({ path: `${SCREENSHOTS}/train-light-360.png` });
      expect(narrow.problems).toEqual([]);
    } finally {
      await narrow.context.close();
    }
  });

  test("the dark theme redraws with the dark palette, the points still at Node's scores (screenshot)", async () => {
    const before = await draws(page, 'train');
    await page.emulateMedia({ colorScheme: 'dark' });
    await redrawn(page, 'train', before);
    await frames(page);
    const series = await page.$eval('[data-view="train"] canvas.plot', (c) => JSON.parse(c.dataset.series));
    expect(series.map((s) => s.color)).toEqual(MODELS.map((k) => PALETTE_DARK[COLOR[k]]));
    expect(await checkPoints(page, defaultSeries(PALETTE_DARK))).toBeGreaterThanOrEqual(24);
    await checkStrip(page, attention('copy', 'rope', DEFAULT_SYMBOLS));
    await (await page.$('[data-view="train"]')).screenshot({ path: `${SCREENSHOTS}/train-dark-1100.png` });
  });
});
