// chromium.js: starts the demo server on an ephemeral port and launches
// Debian's Chromium through playwright-core, for the browser tests (one
// browser per test file, pages reused). Also the colour read-back helpers
// every view test needs.
import { chromium } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { listen } from '../../tools/serve.mjs';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const SCREENSHOTS = `${ROOT}build/screenshots`;

export const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/**
 * Starts the server and the browser. Returns { url, browser, server, close() }.
 * Every request the browser makes to another origin is recorded in
 * `foreignRequests` (the page must make none).
 */
export async function launch() {
  const { server, url } = await listen({ port: 0 });
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: ARGS });
  mkdirSync(SCREENSHOTS, { recursive: true });
  return {
    url,
    browser,
    server,
    async close() {
      await browser.close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * Opens a page (in a context of its own) that collects console errors and
 * warnings (CSP violations among them), page errors, failed or 4xx/5xx
 * requests and requests leaving the origin. setup(page) runs before loading.
 * Returns { page, context, problems }.
 */
export async function openPage(browser, url, { width = 1100, height = 900, colorScheme = 'light', query = '', setup } = {}) {
  const context = await browser.newContext({ viewport: { width, height }, colorScheme, acceptDownloads: true, deviceScaleFactor: 1 });
  const page = await context.newPage();
  const problems = [];
  const origin = new URL(url).origin;
  page.on('console', (m) => {
    // Chromium's hint about repeated getImageData is about the tests' own read-backs, not the page
    if (m.type() === 'warning' && m.text().includes('willReadFrequently')) return;
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  // which document of the page made each request: a test that navigates (a
  // reload, a shared link) cancels the requests of the document it leaves
  let documents = 0;
  const madeBy = new WeakMap();
  page.on('request', (r) => {
    if (r.isNavigationRequest() && r.frame() === page.mainFrame()) documents++;
    madeBy.set(r, documents);
    const u = r.url();
    if (!u.startsWith(origin) && !u.startsWith('blob:') && !u.startsWith('data:')) problems.push(`foreign request: ${u}`);
  });
  page.on('requestfailed', (r) => {
    // cancelled by a navigation: not the page's failure. The browser fetches the
    // favicon on its own, and navigating before it arrives cancels it too (a
    // missing favicon is still an HTTP 404)
    const left = madeBy.get(r) < documents && !r.isNavigationRequest();
    if (r.failure()?.errorText === 'net::ERR_ABORTED' && (left || new URL(r.url()).pathname === '/favicon.svg')) return;
    problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`);
  });
  page.on('response', (r) => {
    if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`);
  });
  if (setup) await setup(page);
  await page.goto(url + query);
  await page.waitForFunction(() => document.documentElement.dataset.ready);
  return { page, context, problems };
}

/** The number of draws a view has made (its section's data-draws). */
export const draws = (page, view) => page.$eval(`[data-view="${view}"]`, (el) => Number(el.dataset.draws ?? 0));

/** Waits until a view has drawn more than `before` times. */
export const redrawn = (page, view, before) =>
  page.waitForFunction(([v, n]) => Number(document.querySelector(`[data-view="${v}"]`).dataset.draws ?? 0) > n, [view, before]);

/**
 * Reads a view's canvas: its recorded geometry and the RGBA of the given
 * device pixels [[x, y], ...] (plot-relative when `relative`).
 */
export async function readPixels(page, view, points, { relative = true } = {}) {
  return page.$eval(
    `[data-view="${view}"] canvas.plot`,
    (canvas, [pts, rel]) => {
      const d = canvas.dataset;
      const [px, py, pw, ph] = d.plot.split(',').map(Number);
      // one read of the whole canvas, then the requested pixels picked from it
      const all = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
      const pixels = pts.map(([x, y]) => {
        const i = 4 * (((rel ? py : 0) + y) * canvas.width + (rel ? px : 0) + x);
        return [all[i], all[i + 1], all[i + 2], all[i + 3]];
      });
      return {
        plot: { x: px, y: py, w: pw, h: ph },
        rows: Number(d.rows), cols: Number(d.cols), min: Number(d.min), max: Number(d.max),
        xMin: Number(d.xMin), xMax: Number(d.xMax), yMin: Number(d.yMin), yMax: Number(d.yMax),
        colors: d.colors ? JSON.parse(d.colors) : null,
        width: canvas.width, height: canvas.height,
        pixels,
      };
    },
    [points, relative],
  );
}

/** The cells [start, end) a plot pixel covers (the rule documented in web/draw/heatmap.js). */
export function cellSpan(pixel, cells, pixels) {
  const a = Math.floor((pixel * cells) / pixels);
  return [a, Math.max(a + 1, Math.floor(((pixel + 1) * cells) / pixels))];
}

/** Resolves after the page's next two animation frames (redraws run in one). */
export const frames = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

/**
 * Sets a view's controls as a user would ({ name: value }; booleans tick
 * checkboxes, strings choose select options or fill inputs), then waits for
 * the redraw. Fails if the view reports an error.
 */
export async function setControls(page, view, values) {
  const scope = `[data-view="${view}"]`;
  for (const [name, value] of Object.entries(values)) {
    const sel = `${scope} [name="${name}"]`;
    const tag = await page.$eval(sel, (e) => (e.type === 'checkbox' ? 'checkbox' : e.tagName));
    if (tag === 'checkbox') await page.setChecked(sel, value);
    else if (tag === 'SELECT') await page.selectOption(sel, String(value));
    else await page.fill(sel, String(value));
  }
  await frames(page);
  const error = await page.$eval(`${scope} .error`, (e) => (e.hidden ? null : e.textContent));
  if (error) throw new Error(`${view}: ${error}`);
}
