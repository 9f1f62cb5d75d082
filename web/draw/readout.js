// readout.js: the value under the pointer or the keyboard cursor of a
// picture: a text line (aria-live, for screen readers too) and a highlight
// drawn on the overlay canvas, so the picture itself is never redrawn for it.
// Heatmaps move a { row, col } cursor (small multiples add { head, plot });
// line plots move { row } along x (row = position).
import { cellAt } from './heatmap.js';
import { theme } from './theme.js';

export const HINT = 'Hover the picture, or focus it and use the arrow keys (Shift: ×10), to read a value.';

/**
 * Attaches the read-out to canvas. current() returns { figure, size } of
 * the last drawing (figure: what the view's draw returned); onCursor(cursor)
 * hears every cell the cursor shows. Returns refresh(): call after every redraw.
 */
export function attachReadout(canvas, overlay, readout, current, onCursor = () => {}) {
  let cursor = null;
  const isGrid = (figure) => figure.rows !== undefined;
  const positions = () => Number(canvas.dataset.xMax) + 1;

  function clear() {
    overlay.getContext('2d').clearRect(0, 0, overlay.width, overlay.height);
    readout.textContent = HINT;
  }

  function show() {
    const { figure, size } = current();
    if (!figure || !cursor) return;
    if (overlay.width !== canvas.width || overlay.height !== canvas.height) [overlay.width, overlay.height] = [canvas.width, canvas.height];
    const o = overlay.getContext('2d');
    o.clearRect(0, 0, overlay.width, overlay.height);
    o.strokeStyle = theme().fg;
    o.lineWidth = Math.max(1, size.dpr);
    const plot = cursor.plot ?? figure.plot; // small multiples: the panel under the cursor
    const line = (x0, y0, x1, y1, alpha) => {
      o.globalAlpha = alpha;
      o.beginPath();
      o.moveTo(x0, y0);
      o.lineTo(x1, y1);
      o.stroke();
      o.globalAlpha = 1;
    };
    if (isGrid(figure) && figure.highlight) {
      // a figure that is not a grid of cells (a scatter) marks the cursor its own way
      figure.highlight(o, cursor);
      readout.textContent = figure.describe(cursor.row, cursor.col, cursor);
      onCursor(cursor);
    } else if (isGrid(figure)) {
      // the pixels of cell i of n over len pixels (the mapping of heatmap.js)
      const span = (i, n, len) => (n > len ? [Math.floor((i * len) / n), Math.floor((i * len) / n) + 1] : [Math.ceil((i * len) / n), Math.ceil(((i + 1) * len) / n)]);
      const [x0, x1] = span(cursor.col, figure.cols, plot.w);
      const [y0, y1] = span(cursor.row, figure.rows, plot.h);
      line(plot.x, plot.y + (y0 + y1) / 2, plot.x + plot.w, plot.y + (y0 + y1) / 2, 0.35);
      line(plot.x + (x0 + x1) / 2, plot.y, plot.x + (x0 + x1) / 2, plot.y + plot.h, 0.35);
      o.strokeRect(plot.x + x0 - 1, plot.y + y0 - 1, x1 - x0 + 2, y1 - y0 + 2);
      readout.textContent = figure.describe(cursor.row, cursor.col, cursor);
      onCursor(cursor);
    } else {
      const x = figure.xAt(cursor.row) * size.dpr;
      line(x, plot.y, x, plot.y + plot.h, 0.5);
      readout.textContent = figure.describe(cursor.row);
    }
  }

  const pointAt = (e) => {
    const { figure, size } = current();
    if (!figure) return;
    if (isGrid(figure)) {
      const [dx, dy] = [e.offsetX * size.dpr, e.offsetY * size.dpr];
      const cell = figure.cellAt ? figure.cellAt(dx, dy) : cellAt(figure.plot, figure.rows, figure.cols, dx, dy);
      if (!cell) return;
      cursor = cell;
    } else {
      const p = Math.round(figure.xOf(e.offsetX));
      if (p < 0 || p >= positions()) return;
      cursor = { row: p };
    }
    show();
  };
  canvas.addEventListener('pointermove', pointAt);
  canvas.addEventListener('pointerdown', pointAt); // a tap on a phone reads the cell too
  canvas.addEventListener('pointerleave', () => {
    if (document.activeElement === canvas) return;
    cursor = null;
    clear();
  });
  canvas.addEventListener('keydown', (e) => {
    const { figure } = current();
    if (!figure) return;
    const c = cursor ?? { row: 0, col: 0 };
    if (figure.panels && (e.key === 'PageDown' || e.key === 'PageUp')) {
      // small multiples: PageDown / PageUp step through the panels (heads)
      e.preventDefault();
      const head = Math.min(figure.panels.length - 1, Math.max(0, (c.head ?? 0) + (e.key === 'PageDown' ? 1 : -1)));
      cursor = { ...c, col: c.col ?? 0, head, plot: figure.panels[head] };
      return show();
    }
    const step = e.shiftKey ? 10 : 1;
    const moves = { ArrowUp: [-step, 0], ArrowDown: [step, 0], ArrowLeft: [0, -step], ArrowRight: [0, step], Home: [-Infinity, 0], End: [Infinity, 0] };
    let move = moves[e.key];
    if (!move) return;
    e.preventDefault();
    const grid = isGrid(figure);
    if (!grid && e.key.startsWith('Arrow')) move = [move[0] + move[1], 0]; // line plots: every arrow moves along x
    const clamp = (v, n) => Math.min(n - 1, Math.max(0, v));
    cursor = { ...c, row: clamp(c.row + move[0], grid ? figure.rows : positions()), col: clamp((c.col ?? 0) + move[1], grid ? figure.cols : 1) };
    show();
  });
  canvas.addEventListener('focus', () => {
    if (!cursor && current().figure) {
      cursor = { row: 0, col: 0 };
      show();
    }
  });
  canvas.addEventListener('blur', () => {
    cursor = null;
    clear();
  });

  // After a redraw: keep the cursor if it still fits the new picture.
  return function refresh() {
    const { figure } = current();
    const extent = isGrid(figure) ? [figure.rows, figure.cols, figure.panels?.length ?? 1] : [positions(), 1, 1];
    if (cursor && (cursor.row >= extent[0] || (cursor.col ?? 0) >= extent[1] || (cursor.head ?? 0) >= extent[2])) cursor = null;
    if (cursor && cursor.head !== undefined) cursor.plot = figure.panels[cursor.head];
    if (cursor) show();
    else clear();
  };
}
