// screenshot-train.mjs: docs/train-view.png, the README's picture of the
// "Train short, test long" view, made with the browser tests' Chromium
// harness once the page's worker has scored every point (YaRN x4 on RoPE, so
// the picture shows the scaling too). Run after `make wasm js`:
//
//   node tools/screenshot-train.mjs [out.png]
import { launch, openPage } from '../tests/demo/chromium.js';

const out = process.argv[2] ?? new URL('../docs/train-view.png', import.meta.url).pathname;
const env = await launch();
try {
  const { page, problems } = await openPage(env.browser, env.url, { width: 760, height: 900, query: '?train.scaling=yarn' });
  await page.waitForFunction(() => document.querySelector('[data-view="train"]').dataset.evalDone === 'true', null, { timeout: 30000 });
  if (problems.length) throw new Error(problems.join('\n'));
  // the heading, controls and curves only (the paragraph is in the README beside the picture): under 100 KB
  await page.$eval('[data-view="train"] > p', (p) => (p.hidden = true));
  // the curves with their heading and controls: from the section's top to the end of the figure
  const top = await (await page.$('[data-view="train"]')).boundingBox();
  const fig = await (await page.$('[data-view="train"] .figure')).boundingBox();
  await page.screenshot({ path: out, clip: { x: top.x, y: top.y, width: top.width, height: fig.y + fig.height - top.y }, fullPage: true });
  console.log(`screenshot-train: wrote ${out}`);
} finally {
  await env.close();
}
