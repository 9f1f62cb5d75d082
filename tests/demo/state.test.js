// Interaction in Chromium: a control redraws its view and writes the URL; a
// reload of that URL restores the same picture; bad input is refused with a
// message and leaves picture and URL alone; the read-out follows the pointer
// and the keyboard; downloads carry the values posenc computes (checked
// against posenc in Node, value for value).
import { readFileSync } from 'node:fs';
import { posenc, vaswani } from '../helpers.js';
import { launch, openPage, frames, setControls } from './chromium.js';

let env;
let page;
let context;
let problems;
beforeAll(async () => {
  await posenc.init();
  env = await launch();
  ({ page, context, problems } = await openPage(env.browser, env.url));
});
afterAll(() => env?.close());
// each problem fails the test it happened in, once: the list is emptied after each test
afterEach(() => expect(problems.splice(0)).toEqual([]));

const query = () => new URL(page.url()).searchParams;
const draws = (view) => page.$eval(`[data-view="${view}"]`, (e) => Number(e.dataset.draws));
const geometry = (view) => page.$eval(`[data-view="${view}"] canvas.plot`, (c) => ({ ...c.dataset }));
// a digest of a canvas's pixels, to compare two pictures
const digest = (view) =>
  page.$eval(`[data-view="${view}"] canvas.plot`, (c) => {
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let h = 0;
    for (let i = 0; i < d.length; i += 4) h = (Math.imul(h, 31) + d[i] * 65536 + d[i + 1] * 256 + d[i + 2]) | 0;
    return `${c.width}x${c.height}:${h}`;
  });

describe('controls, URL and reload', () => {
  test('typing a value redraws the view and writes it into the URL; defaults stay out of it', async () => {
    expect(page.url()).toBe(env.url);
    const before = await draws('table');
    await page.fill('[data-view="table"] input[name="d"]', '128');
    await frames(page);
    expect(await draws('table')).toBeGreaterThan(before);
    expect(query().get('table.d')).toBe('128');
    expect((await geometry('table')).cols).toBe('128');
    expect([...query().keys()]).toEqual(['table.d']);
  });

  test('a select, a slider (keyboard) and a checkbox do the same', async () => {
    await page.selectOption('[data-view="table"] select[name="layout"]', 'concatenated');
    await page.focus('[data-view="table"] input[data-for="len"]');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.setChecked('[data-view="alibi"] input[name="causal"]', false);
    await frames(page);
    expect(query().get('table.layout')).toBe('concatenated');
    const len = Number(query().get('table.len'));
    expect(len).toBeGreaterThan(50); // two log-scale steps up from 50
    expect(await page.inputValue('[data-view="table"] input[name="len"]')).toBe(String(len));
    expect((await geometry('table')).rows).toBe(String(len));
    expect(query().get('alibi.causal')).toBe('false');
  });

  test('reloading that URL restores the same inputs and the same pixels', async () => {
    await setControls(page, 'curves', { dims: '0,3,10-11', len: 60 });
    await setControls(page, 'relative', { shift: -7 });
    const views = ['table', 'curves', 'relative', 'alibi'];
    const pictures = await Promise.all(views.map(digest));
    const url = page.url();
    await page.reload();
    await page.waitForFunction(() => document.documentElement.dataset.ready === 'true');
    expect(page.url()).toBe(url);
    expect(await page.inputValue('[data-view="table"] input[name="d"]')).toBe('128');
    expect(await page.inputValue('[data-view="table"] select[name="layout"]')).toBe('concatenated');
    expect(await page.inputValue('[data-view="curves"] input[name="dims"]')).toBe('0,3,10,11');
    expect(await page.isChecked('[data-view="alibi"] input[name="causal"]')).toBe(false);
    expect(await Promise.all(views.map(digest))).toEqual(pictures);
  });

  test('a shared link opens the view it names, bad values fall back to defaults', async () => {
    await page.goto(`${env.url}?similarity.d=16&similarity.len=40&table.d=banana&table.layout=%3Cscript%3E&curves.dims=9999`);
    await page.waitForFunction(() => document.documentElement.dataset.ready === 'true');
    expect(await geometry('similarity')).toMatchObject({ rows: '40', cols: '40' });
    expect(await geometry('table')).toMatchObject({ cols: '64', rows: '50' });
    expect(await page.inputValue('[data-view="table"] select[name="layout"]')).toBe('interleaved');
    expect(await page.inputValue('[data-view="curves"] input[name="dims"]')).toBe('4-7');
  });

  test('bad input is refused with a message; picture and URL stay', async () => {
    const before = await draws('table');
    const url = page.url();
    const picture = await digest('table');
    await page.fill('[data-view="table"] input[name="d"]', '5000');
    await frames(page);
    expect(await page.getAttribute('[data-view="table"] input[name="d"]', 'aria-invalid')).toBe('true');
    expect(await page.$eval('[data-view="table"] .error', (e) => !e.hidden && e.textContent)).toBe('dModel must be an integer from 2 to 2048');
    expect(page.url()).toBe(url);
    expect(await draws('table')).toBe(before);
    expect(await digest('table')).toBe(picture);
    // a combination the library rejects: its message is shown
    await page.fill('[data-view="table"] input[name="d"]', '3');
    await page.selectOption('[data-view="table"] select[name="layout"]', 'fairseq');
    await frames(page);
    expect(await page.$eval('[data-view="table"] .error', (e) => !e.hidden && e.textContent)).toMatch(/fairseq layout needs dModel >= 4/);
    await page.selectOption('[data-view="table"] select[name="layout"]', 'interleaved');
    await frames(page);
    expect(await page.$eval('[data-view="table"] .error', (e) => e.hidden)).toBe(true);
    await page.fill('[data-view="curves"] input[name="dims"]', '4-7,40');
    await frames(page);
    expect(await page.$eval('[data-view="curves"] .error', (e) => e.textContent)).toBe('dimension 40 does not exist: dModel is 20 (dimensions 0 to 19)');
    await setControls(page, 'curves', { dims: '4-7' });
  });
});

describe('read-out', () => {
  const readout = (view) => page.$eval(`[data-view="${view}"] .readout`, (e) => e.textContent);

  test('hovering a cell of the table names its position, dimension, frequency, angle and value', async () => {
    await page.goto(env.url);
    await page.waitForFunction(() => document.documentElement.dataset.ready === 'true');
    const { plot } = await geometry('table');
    const [x, y, w, h] = plot.split(',').map(Number);
    const canvas = await page.$('[data-view="table"] canvas.plot');
    await canvas.scrollIntoViewIfNeeded();
    const box = await canvas.boundingBox();
    // the centre of cell (position 7, dimension 5): cells are w / 64 by h / 50 pixels
    await page.mouse.move(box.x + x + (5.5 * w) / 64, box.y + y + (7.5 * h) / 50);
    const text = await readout('table');
    const value = posenc.sinusoidal({ length: 1, offset: 7, dModel: 64 })[5];
    const omega = 10000 ** (-4 / 64);
    expect(text).toContain('position 7 · dimension 5 = cos(p·ω₂)');
    expect(text).toContain(`ω₂ = ${omega.toPrecision(5)}`);
    expect(text).toContain(`angle ${(7 * omega).toPrecision(6)} rad`);
    expect(text).toContain(`value ${value.toFixed(6)}`);
    expect(Math.abs(value - vaswani(7, 5, 64))).toBeLessThan(2 ** -23);
  });

  test('the keyboard moves a cursor over the focused picture', async () => {
    await page.focus('[data-view="relative"] canvas.plot');
    for (const key of ['ArrowRight', 'ArrowRight', 'ArrowRight', 'ArrowDown']) await page.keyboard.press(key);
    expect(await readout('relative')).toBe('query i = 1 · key j = 3 · j − i = 2 · value j − i + 50 = 52');
    await page.keyboard.press('Shift+ArrowDown');
    expect(await readout('relative')).toContain('query i = 11 · key j = 3');
    await page.focus('[data-view="alibi"] canvas.plot');
    await page.keyboard.press('PageDown');
    await page.keyboard.press('ArrowDown');
    expect(await readout('alibi')).toMatch(/^head 1 \(m = 0\.25\) · query i = 1 · key j = 0 · bias -0\.250000/);
    await page.focus('[data-view="curves"] canvas.plot');
    await page.keyboard.press('End');
    expect(await readout('curves')).toMatch(/^position 99 · dim 4: /);
  });
});

describe('downloads', () => {
  async function download(view, kind) {
    const [d] = await Promise.all([page.waitForEvent('download'), page.click(`[data-view="${view}"] [data-download="${kind}"]`)]);
    return { name: d.suggestedFilename(), bytes: readFileSync(await d.path()) };
  }

  test('PNG: the canvas as it is drawn, same size', async () => {
    await page.goto(`${env.url}?table.d=32&table.len=20`);
    await page.waitForFunction(() => document.documentElement.dataset.ready === 'true');
    const { name, bytes } = await download('table', 'png');
    expect(name).toBe('posenc-table-d32-len20-base10000-layoutinterleaved.png');
    expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    const size = await page.$eval('[data-view="table"] canvas.plot', (c) => [c.width, c.height]);
    expect([bytes.readUInt32BE(16), bytes.readUInt32BE(20)]).toEqual(size); // IHDR width, height
  });

  test('CSV: a header and one line per position, every value the float32 posenc gives', async () => {
    const { name, bytes } = await download('table', 'csv');
    expect(name).toBe('posenc-table-d32-len20-base10000-layoutinterleaved.csv');
    const lines = bytes.toString().trim().split('\n');
    expect(lines[0]).toBe(['position', ...Array.from({ length: 32 }, (_, k) => `dim${k}`)].join(','));
    expect(lines.length).toBe(21);
    const t = posenc.sinusoidal({ length: 20, dModel: 32 });
    lines.slice(1).forEach((line, p) => {
      const cells = line.split(',');
      expect(cells[0]).toBe(String(p));
      cells.slice(1).forEach((c, k) => expect(Math.fround(Number(c))).toBe(t[p * 32 + k]));
    });
  });

  test('JSON: view, parameters, shape and the values', async () => {
    const { bytes } = await download('table', 'json');
    const j = JSON.parse(bytes.toString());
    expect(j.view).toBe('table');
    expect(j.params).toEqual({ d: 32, len: 20, base: 10000, layout: 'interleaved' });
    expect(j.shape).toEqual([20, 32]);
    const t = posenc.sinusoidal({ length: 20, dModel: 32 });
    expect(j.values.flat().map(Math.fround)).toEqual(Array.from(t));
  });

  test('ALiBi JSON: rows per (head, query), masked entries as null', async () => {
    const { bytes } = await download('alibi', 'json');
    const j = JSON.parse(bytes.toString());
    const bias = posenc.alibiBias({ heads: 8, queryLength: 32 });
    expect(j.shape).toEqual([8 * 32, 32]);
    expect(j.rowLabels.slice(31, 33)).toEqual(['0:31', '1:0']);
    expect(j.values.flat()).toEqual(Array.from(bias, (v) => (Number.isFinite(v) ? v : null)));
  });

  test("the notebook's CSV is its PE table; T5's is integer buckets", async () => {
    const nb = (await download('notebook', 'csv')).bytes.toString().trim().split('\n');
    expect(nb.length).toBe(11);
    expect(nb[0]).toBe('position,dim0,dim1,dim2,dim3,dim4,dim5');
    expect(nb[2].split(',').slice(1).map(Number).map(Math.fround)).toEqual(Array.from(posenc.sinusoidal({ length: 1, offset: 1, dModel: 6 })));
    const t5 = (await download('t5', 'csv')).bytes.toString().trim().split('\n');
    const b = posenc.t5Buckets({ queryLength: 256 });
    expect(t5[1 + 200]).toBe(`200,${Array.from(b.subarray(200 * 256, 201 * 256)).join(',')}`);
  });
});
