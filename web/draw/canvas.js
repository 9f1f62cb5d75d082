// canvas.js: sizes a canvas's backing store to its CSS box times the device
// pixel ratio (crisp on every screen) and hands back a context that draws in
// CSS pixels; ImageData writes use device pixels (putImageData ignores transforms).

/**
 * The displayed size of a canvas in CSS px, and the pixel ratio. A read:
 * measure every canvas before resizing any, so the page is laid out once.
 */
export function measureCanvas(canvas) {
  return { width: Math.max(1, canvas.clientWidth), height: Math.max(1, canvas.clientHeight), dpr: Math.min(window.devicePixelRatio || 1, 3) };
}

/**
 * Fits canvas (and its overlay, when given) to a measured size.
 * @returns {{ ctx: CanvasRenderingContext2D, width: number, height: number, dpr: number }}
 *   width and height in CSS pixels
 */
export function fitCanvas(canvas, overlay, measured = measureCanvas(canvas)) {
  const { width, height, dpr } = measured;
  for (const c of overlay ? [canvas, overlay] : [canvas]) {
    const w = Math.round(width * dpr);
    const h = Math.round(height * dpr);
    if (c.width !== w || c.height !== h) {
      c.width = w;
      c.height = h;
    }
  }
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  return { ctx, width, height, dpr };
}
