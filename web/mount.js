// mount.js: one view on the page: its controls, its drawing (canvas or text),
// its read-out (draw/readout.js), the error line and the downloads.
//
// THE VIEW CONTRACT. A view is a module under views/ whose default export is
// a plain object; main.js lists the views and mounts each on the
// <section data-view="ID"> of index.html (a view with no section is skipped).
//   id         the section's data-view, and the prefix of its URL keys (?table.d=128).
//   params     { name: kind } from state.js (int, num, choice, bool, intList,
//              optInt): the default, parse(text) -> { ok, value | message },
//              format(value). The state `s` is { name: value }, read from the URL,
//              bound to the section's [name=...] inputs (and a range input
//              data-for="name" as its slider) by controls.js.
//   labels     { name: 'text' }: how a message names the parameter.
//   check(s)   optional: a message when values that are each valid do not go
//              together (the last good picture stays, the message shows).
//   draw(ctx, t, size, s, posenc)   for a section with canvas.plot: paint in CSS
//              pixels (ctx is scaled; size = { ctx, width, height, dpr };
//              t = draw/theme.js's theme()) and return the figure: { plot:
//              {x, y, w, h} in device px, describe(...) -> the read-out text;
//              a grid adds rows, cols, min, max and may add cellAt(dx, dy),
//              panels and follow(cursor) -> true to redraw around the cursor;
//              a line plot adds xAt(i), xOf(px) }.
//   render(container, s, posenc)    instead of draw, for a text view: fill
//              the section's .cells.
//   data(s, posenc)   the values behind the downloads: { rows, cols,
//              read(r0, n, out), header, rowLabel?(r), text?(v) }
//              (download.js writes them row by row).
//   attach(el, redraw)   optional: called once with the section; redraw() asks
//              for a redraw when results arrive later (a worker's).
// `posenc` is the package entry that main.js loaded: 'posenc' for the
// positional views, 'posenc/encoder' for ENCODER_VIEWS. A draw or render that
// throws shows the error's message (posenc's name the parameter); mountView
// returns { measure(), draw(theme) }, and main.js redraws at most once a frame.
import { bindControls, own } from './controls.js';
import { fitCanvas, measureCanvas } from './draw/canvas.js';
import { recordGeometry } from './draw/heatmap.js';
import { csvBlob, jsonBlob, saveBlob, savePng } from './download.js';
import { attachReadout } from './draw/readout.js';

/**
 * The parts every view shares, written here once: a section of index.html
 * holds placeholders, <div class="figure"></div> where its canvas goes and
 * <div class="view-foot"></div> where its read-out (for a canvas), error
 * line and downloads go (PNG for a canvas; CSV and JSON always).
 */
function fillParts(el, view) {
  const figure = own(el, '.figure')[0];
  if (figure && !figure.firstElementChild) {
    figure.innerHTML = `<canvas class="plot" tabindex="0" aria-describedby="${view.id}-readout"></canvas><canvas class="overlay" aria-hidden="true"></canvas>`;
  }
  const foot = own(el, '.view-foot')[0];
  if (!foot) return;
  const kinds = figure ? ['png', 'csv', 'json'] : ['csv', 'json'];
  foot.outerHTML = [
    figure ? `<p class="readout" id="${view.id}-readout" aria-live="polite"></p>` : '',
    '<p class="error" role="alert" hidden></p>',
    `<div class="downloads">${kinds.map((k) => `<button type="button" data-download="${k}">${k.toUpperCase()}</button>`).join('')}</div>`,
  ].join('');
}

/** Mounts `view` on element `el` with its state object; returns { measure(), draw(theme) }. */
export function mountView(el, view, s, posenc, { request, changed }) {
  fillParts(el, view);
  const canvas = own(el, 'canvas.plot')[0];
  const overlay = own(el, 'canvas.overlay')[0];
  const readout = own(el, '.readout')[0];
  const errorBox = own(el, '.error')[0];
  let invalid = null;
  let figure = null;
  let size = null;
  let refreshReadout = () => {};
  let draws = 0;
  let syncControls = () => {};

  const showError = (message) => {
    errorBox.hidden = !message;
    errorBox.textContent = message ?? '';
  };
  let measured = null;
  const m = {
    /** Reads the canvas's size (main.js measures every view before drawing any). */
    measure() {
      if (canvas) measured = measureCanvas(canvas);
    },
    draw(t) {
      const problem = invalid ?? view.check?.(s) ?? null;
      if (problem) return showError(problem); // keep the last good picture
      const t0 = performance.now();
      try {
        if (view.render) view.render(own(el, '.cells')[0], s, posenc);
        else paint(t);
      } catch (error) {
        // posenc's RangeError messages name the parameter and the allowed range: show them.
        return showError(error.message);
      }
      showError(null);
      el.dataset.drawMs = (performance.now() - t0).toFixed(1);
      el.dataset.draws = String(++draws);
    },
  };

  function paint(t) {
    size = fitCanvas(canvas, null, measured ?? undefined); // the overlay is sized on first use
    measured = null;
    const { ctx } = size;
    ctx.fillStyle = t.bg; // opaque, so the PNG download looks like the page
    ctx.fillRect(0, 0, size.width, size.height);
    figure = view.draw(ctx, t, size, s, posenc);
    canvas.dataset.plot = [figure.plot.x, figure.plot.y, figure.plot.w, figure.plot.h].join(',');
    if (figure.rows !== undefined) recordGeometry(canvas, figure.plot, figure);
    refreshReadout();
  }

  if (canvas) {
    // a name for screen readers: the view's heading; the read-out line describes the cell
    canvas.setAttribute('role', 'img');
    canvas.setAttribute('aria-label', `${own(el, 'h2, h3')[0]?.textContent.replace(/^\d+\s*/, '').trim() ?? view.id}: picture`);
    // a figure with follow(cursor) redraws around the cell under the cursor (views/grid2d.js)
    refreshReadout = attachReadout(canvas, overlay, readout, () => ({ figure, size }), (cursor) => {
      if (figure?.follow?.(cursor)) {
        syncControls();
        changed();
        request(m);
      }
    });
    // Redraw when the canvas's displayed width changes (rotation, window resize).
    let lastWidth = canvas.clientWidth;
    new ResizeObserver(() => {
      if (canvas.clientWidth !== lastWidth) {
        lastWidth = canvas.clientWidth;
        request(m);
      }
    }).observe(canvas);
  }

  // ---- downloads
  const slug = () => Object.entries(s).map(([k, v]) => `${k}${view.params[k].format(v)}`).join('-').replace(/[^A-Za-z0-9.,_-]+/g, '');
  for (const button of own(el, '[data-download]')) {
    button.addEventListener('click', () => {
      const kind = button.dataset.download;
      const name = `posenc-${view.id}-${slug()}.${kind}`;
      if (kind === 'png') return savePng(canvas, name);
      const data = view.data(s, posenc);
      saveBlob(kind === 'csv' ? csvBlob(data) : jsonBlob(data, { view: view.id, params: { ...s }, source: 'posenc demo (values computed by posenc)' }), name);
    });
  }

  syncControls = bindControls(el, view, s, {
    onChange: () => {
      changed();
      request(m);
    },
    onInvalid: (message) => {
      invalid = message;
      if (message) showError(message);
      else request(m);
    },
  });
  // a view whose results arrive later (a worker's) asks for its redraws through attach
  view.attach?.(el, () => request(m));
  return m;
}
