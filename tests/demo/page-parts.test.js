// How the page is put together, in Chromium: every view's figure, read-out,
// error line, notice and downloads are written by web/mount.js (fillParts)
// where a section of web/index.html holds its placeholders (.figure and
// .view-foot), in one order, with a section's own extras where it puts them
// between the two; and a value
// of the address the page cannot take is not dropped silently: the view (or,
// for a key naming no view, the page) says what was ignored and why, until
// the reader changes a control.
import { readFileSync } from 'node:fs';
import { launch, openPage, setControls } from './chromium.js';

const html = readFileSync(new URL('../../web/index.html', import.meta.url), 'utf8');

let env;
beforeAll(async () => {
  env = await launch();
});
afterAll(() => env?.close());

test('index.html writes no shared part itself: every section holds the placeholders mount.js fills', () => {
  for (const part of ['class="readout"', 'class="error"', 'class="notice" role="status"', 'class="downloads"', 'canvas class="plot"', '<template', '<slot']) {
    expect([part, html.split(part).length - 1]).toEqual([part, 0]);
  }
  // one foot per view (in a section or a subview); a figure placeholder, empty, in every view but the notebook's text
  const views = html.split(/data-view="/).slice(1).map((chunk) => chunk.slice(0, chunk.indexOf('"')));
  expect(html.split('<div class="view-foot"></div>').length - 1).toBe(views.length);
  expect(html.split('<div class="figure"></div>').length - 1).toBe(views.length - 1);
});

test('every view gets the parts in one order, its extras where its section puts them, ids tied to its own', async () => {
  const { page, context, problems } = await openPage(env.browser, env.url);
  try {
    const views = await page.$$eval('[data-view]', (els) => els.map((el) => {
      const own = [...el.children].filter((c) => !c.matches('[data-view]') && !c.querySelector('[data-view]')); // not the nested views, nor their wrappers
      const names = own.map((c) => c.className || c.tagName.toLowerCase());
      const canvas = el.querySelector(':scope > .figure canvas.plot');
      const readout = el.querySelector(':scope > .readout');
      return {
        id: el.dataset.view, names,
        described: canvas ? canvas.getAttribute('aria-describedby') === readout?.id && readout.id === `${el.dataset.view}-readout` : null,
        downloads: [...el.querySelectorAll(':scope > .downloads button')].map((b) => b.dataset.download),
      };
    }));
    expect(views.map((v) => v.id)).toEqual(['table', 'curves', 'notebook', 'relative', 't5', 'deberta', 'similarity', 'rope', 'grid2d', 'mrope', 'alibi', 'encoder', 'train', 'breaks', 'lengthloss', 'compound', 'copyattn']);
    const byId = Object.fromEntries(views.map((v) => [v.id, v]));
    const standard = ['figure', 'readout', 'error', 'notice', 'downloads'];
    // after the heading, the text and the form (a view's own), the parts
    const tail = (v) => v.names.slice(v.names.indexOf('controls') + 1);
    for (const id of ['table', 'curves', 'relative', 't5', 'deberta', 'similarity', 'rope', 'grid2d', 'mrope', 'breaks', 'lengthloss', 'compound']) {
      expect([id, tail(byId[id])]).toEqual([id, standard]);
    }
    expect(tail(byId.notebook)).toEqual(['cells', 'error', 'notice', 'downloads']);
    expect(byId.notebook.downloads).toEqual(['csv', 'json']);
    expect(tail(byId.alibi)).toEqual(['figure', 'slopes', 'readout', 'error', 'notice', 'downloads']);
    expect(tail(byId.encoder)).toEqual(['figure', 'note', 'note measured', 'readout', 'error', 'notice', 'downloads']);
    expect(tail(byId.train)).toEqual(['progress-line', 'figure', 'note', 'readout', 'error', 'notice', 'downloads']);
    expect(tail(byId.copyattn)).toEqual(['figure', 'generation', 'readout', 'error', 'notice', 'downloads']);
    for (const v of views) {
      expect([v.id, v.described]).toEqual([v.id, v.id === 'notebook' ? null : true]);
      if (v.id !== 'notebook') expect([v.id, v.downloads]).toEqual([v.id, ['png', 'csv', 'json']]);
    }
    expect(await page.$$eval('slot', (s) => s.length)).toBe(0);
    expect(problems).toEqual([]);
  } finally {
    await context.close();
  }
});

test('a bad value in the address is explained in its view, the default drawn; a key of no view, at the top of the page', async () => {
  const query = '?train.seqs=0&table.d=banana&breaks.n=100&train.colour=red&nosuch.view=1&curves.d=64';
  const { page, context, problems } = await openPage(env.browser, env.url, { query });
  try {
    const notice = (view) => page.$eval(`[data-view="${view}"] .notice`, (e) => (e.hidden ? null : e.textContent));
    expect(await notice('train')).toBe(
      'The address gives train.seqs=0, but sequences per n must be an integer from 1 to 64: the default, 16, is shown. '
      + 'The address gives train.colour, which is not a setting of this view (task, seqs, scaling, factor, score): ignored.',
    );
    expect(await notice('table')).toBe('The address gives table.d=banana, but dModel must be an integer from 2 to 2048: the default, 64, is shown.');
    expect(await notice('breaks')).toBe('The address gives breaks.n=100, but n must be one of 8, 16, 32, 48, 64, 96, 128, 192, 256: the default, 128, is shown.');
    expect(await page.$eval('#url-notice', (e) => (e.hidden ? null : e.textContent))).toBe('The address gives nosuch.view, which names no view of this page: ignored.');
    // a good value is taken silently; the views without a problem show no notice
    expect(await page.inputValue('[data-view="curves"] input[name="d"]')).toBe('64');
    expect(await notice('curves')).toBe(null);
    expect(await page.inputValue('[data-view="train"] input[name="seqs"]')).toBe('16');
    expect(await page.$eval('[data-view="table"] canvas.plot', (c) => c.dataset.cols)).toBe('64');
    // the reader takes over: the view's notice goes, the others stay
    await setControls(page, 'table', { d: 32 });
    expect(await notice('table')).toBe(null);
    expect(await notice('breaks')).not.toBe(null);
    expect(problems).toEqual([]);
  } finally {
    await context.close();
  }
});
