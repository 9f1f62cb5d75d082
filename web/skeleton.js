// skeleton.js: every view's section shares the same parts, written once in
// index.html's <template id="view-parts">: the figure (a canvas and its
// overlay), the read-out, the error line, the notice of a bad address, the
// downloads. buildSkeletons() puts a copy into each [data-view] element,
// right after its own form, before main.js mounts the views. A section
// changes its copy with:
//   slot="above" | "figure" | "below-figure" | "below-readout" on its own
//       children: the child goes to that place (slot="figure" replaces the
//       canvases: a text view's .cells);
//   data-downloads="csv json": the download buttons it has (default all three).
// A section without canvases has no read-out either. Ids follow the view's:
// the read-out is #<id>-readout, and the canvas is described by it.

/** Fills every [data-view] element of `root` from the template `#view-parts`. */
export function buildSkeletons(root = document) {
  const template = root.getElementById('view-parts');
  for (const el of root.querySelectorAll('[data-view]')) {
    const id = el.dataset.view;
    const parts = template.content.cloneNode(true);
    const own = [...el.children].filter((c) => c.hasAttribute('slot'));
    for (const child of own) {
      const name = child.getAttribute('slot');
      child.removeAttribute('slot');
      const place = name === 'figure' ? parts.querySelector('.figure') : parts.querySelector(`slot[name="${name}"]`);
      if (!place) throw new Error(`skeleton.js: ${id} has a child for slot '${name}', which the template has not`);
      // children of one slot keep their order: each goes before the slot, which stays until the end
      if (name === 'figure') place.replaceWith(child);
      else place.before(child);
    }
    for (const s of parts.querySelectorAll('slot')) s.remove();
    const kinds = (el.dataset.downloads ?? 'png csv json').split(/\s+/);
    for (const b of parts.querySelectorAll('[data-download]')) if (!kinds.includes(b.dataset.download)) b.remove();
    const canvas = parts.querySelector('canvas.plot');
    const readout = parts.querySelector('.readout');
    if (canvas) {
      readout.id = `${id}-readout`;
      canvas.setAttribute('aria-describedby', readout.id);
    } else readout.remove();
    const form = [...el.children].find((c) => c.matches('form.controls'));
    // not form.after(): a form's named controls shadow its methods (M-RoPE's has an input named "after")
    el.insertBefore(parts, form ? form.nextSibling : null);
  }
}
