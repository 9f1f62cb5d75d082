// controls.js: binds a view's form inputs to its state. Each input's `name`
// is a parameter of the view; a range input with data-for="name" is a slider
// for it (data-scale="log": equal steps multiply, so 2..2048 is usable).
const STEPS = 1000;

/** The elements of view element `el` matching `selector`, not those of a view nested inside it. */
export const own = (el, selector) => [...el.querySelectorAll(selector)].filter((n) => n.closest('[data-view]') === el);
const ownOne = (el, selector) => own(el, selector)[0] ?? null;

function sliderMapping(slider, p) {
  const log = slider.dataset.scale === 'log' && p.min > 0;
  slider.min = 0;
  slider.max = STEPS;
  slider.step = 1;
  const toSlider = (v) => (log ? (Math.log(v / p.min) / Math.log(p.max / p.min)) * STEPS : ((v - p.min) / (p.max - p.min)) * STEPS);
  const fromSlider = (s) => Math.round(log ? p.min * (p.max / p.min) ** (s / STEPS) : p.min + (s / STEPS) * (p.max - p.min));
  return { toSlider, fromSlider };
}

/**
 * Wires the inputs of `section` to state[name] for each of view.params.
 * onChange() runs after every valid edit; onInvalid(message | null) reports
 * the first invalid input (null once all are valid again).
 * Returns sync(): puts the state back into the inputs (after a URL change).
 */
export function bindControls(section, view, state, { onChange, onInvalid }) {
  const invalid = new Map();
  const report = () => onInvalid(invalid.size ? [...invalid.values()][0] : null);
  const sliders = [];
  for (const [name, p] of Object.entries(view.params)) {
    const input = ownOne(section, `[name="${name}"]`);
    if (!input) continue;
    const label = view.labels?.[name] ?? name;
    const apply = (text, fromSlider = false) => {
      const r = p.parse(text);
      input.setAttribute('aria-invalid', String(!r.ok));
      if (!r.ok) {
        invalid.set(name, `${label} ${r.message}`);
        return report();
      }
      invalid.delete(name);
      report();
      state[name] = r.value;
      // a slider that moved keeps its own position (several positions round to one value)
      if (!fromSlider) for (const s of sliders) if (s.name === name) s.slider.value = s.map.toSlider(r.value);
      onChange(name);
    };
    const read = () => (input.type === 'checkbox' ? String(input.checked) : input.value);
    input.addEventListener(input.tagName === 'SELECT' || input.type === 'checkbox' ? 'change' : 'input', () => apply(read()));
    const slider = ownOne(section, `input[data-for="${name}"]`);
    if (slider) {
      const map = sliderMapping(slider, p);
      sliders.push({ name, slider, map });
      slider.addEventListener('input', () => {
        input.value = String(map.fromSlider(Number(slider.value)));
        apply(input.value, true);
      });
    }
  }
  const sync = () => {
    for (const [name, p] of Object.entries(view.params)) {
      const input = ownOne(section, `[name="${name}"]`);
      if (input) {
        if (input.type === 'checkbox') input.checked = state[name];
        else input.value = p.format(state[name]);
        input.setAttribute('aria-invalid', 'false');
      }
    }
    for (const s of sliders) s.slider.value = s.map.toSlider(state[s.name]);
    invalid.clear();
    report();
  };
  sync();
  return sync;
}
