// main.js: boots the page: loads posenc (the package's ESM entry, its wasm
// inline), mounts every view found in the page, keeps the URL in step with
// the controls and redraws what changed at most once per animation frame.
// What a view module exports (the view contract) is written at the top of mount.js.
import * as posenc from './dist/posenc.mjs';
import { readState, queryOf } from './state.js';
import { theme, onThemeChange } from './draw/theme.js';
import { mountView } from './mount.js';
import table from './views/table.js';
import curves from './views/curves.js';
import notebook from './views/notebook.js';
import relative from './views/relative.js';
import similarity from './views/similarity.js';
import t5 from './views/t5.js';
import deberta from './views/deberta.js';
import rope from './views/rope.js';
import grid2d from './views/grid2d.js';
import mrope from './views/mrope.js';
import alibi from './views/alibi.js';
import encoder from './views/encoder.js';
import train from './views/train.js';
import breaks from './views/breaks.js';
import lengthloss from './views/lengthloss.js';
import compound from './views/compound.js';
import copyattn from './views/copyattn.js';

// train first: the views after it draw the task it chooses (train/client.js)
const VIEWS = [table, curves, notebook, relative, t5, deberta, similarity, rope, grid2d, mrope, alibi, encoder, train, breaks, lengthloss, compound, copyattn];

const status = document.getElementById('status');

// The views that run the tiny encoder get 'posenc/encoder' (its own wasm): it
// loads after the other views are drawn, so they never wait for it.
const ENCODER_VIEWS = new Set([encoder.id, copyattn.id]);

async function boot() {
  const t0 = performance.now();
  await posenc.init();
  const loadMs = performance.now() - t0;
  const problems = []; // what the address asked for and the page could not take: said in the page
  const state = readState(VIEWS, location.search, problems);
  const pageNotice = document.getElementById('url-notice');
  const unplaced = problems.filter((p) => p.view === null || !document.querySelector(`[data-view="${p.view}"]`));
  pageNotice.textContent = unplaced.map((p) => p.message).join(' ');
  pageNotice.hidden = unplaced.length === 0;
  const dirty = new Set();
  let frame = 0;

  const writeURL = () => history.replaceState(null, '', `${location.pathname}${queryOf(VIEWS, state)}${location.hash}`);
  const drawDirty = () => {
    frame = 0;
    const t = theme();
    for (const m of dirty) m.measure(); // all reads, then all writes: one layout
    for (const m of dirty) m.draw(t);
    dirty.clear();
  };
  const request = (m) => {
    dirty.add(m);
    if (!frame) frame = requestAnimationFrame(drawDirty);
  };

  const mounted = [];
  const mountAll = (api, views) => {
    const now = [];
    for (const view of views) {
      const el = document.querySelector(`[data-view="${view.id}"]`);
      if (!el) continue;
      el.hidden = false;
      const notices = problems.filter((p) => p.view === view.id).map((p) => p.message);
      now.push(mountView(el, view, state[view.id], api, { request, changed: writeURL, notices }));
    }
    // the first picture is drawn now, not a frame later, so the page never shows empty canvases
    const t = theme();
    for (const m of now) m.measure();
    for (const m of now) m.draw(t);
    mounted.push(...now);
    return now;
  };
  onThemeChange(() => mounted.forEach(request));
  const t1 = performance.now();
  mountAll(posenc, VIEWS.filter((v) => !ENCODER_VIEWS.has(v.id)));
  dirty.clear();
  const drawnMs = performance.now() - t1;
  document.documentElement.dataset.firstDrawnMs = performance.now().toFixed(0);
  const encoderEntry = await import('./dist/encoder.mjs');
  await encoderEntry.init();
  mountAll(encoderEntry, VIEWS.filter((v) => ENCODER_VIEWS.has(v.id)));
  status.textContent = `Computed by posenc's WebAssembly: loaded in ${loadMs.toFixed(0)} ms, every view drawn in ${drawnMs.toFixed(0)} ms.`;
  document.documentElement.dataset.readyMs = performance.now().toFixed(0); // views that finish later time themselves from here
  document.documentElement.dataset.ready = 'true';
}

boot().catch((error) => {
  status.textContent = `posenc could not start: ${error.message}`;
  document.documentElement.dataset.ready = 'error';
});
