// mount.js: one view on the page: its controls, its drawing (canvas or text),
// its read-out (readout.js), the error line and the downloads.
import { bindControls, own } from './controls.js';
import { fitCanvas, measureCanvas } from './canvas.js';
import { recordGeometry } from './heatmap.js';
import { csvBlob, jsonBlob, saveBlob, savePng } from './download.js';
import { attachReadout } from './readout.js';

/** Mounts `view` on element `el` with its state object; returns { measure(), draw(theme) }. */
export function mountView(el, view, s, posenc, { request, changed }) {
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
