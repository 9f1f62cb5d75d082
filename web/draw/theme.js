// theme.js: the colours and fonts canvas drawing needs, read from the CSS
// custom properties of style.css, so the canvas follows the light/dark theme.
const dark = matchMedia('(prefers-color-scheme: dark)');

/** The current theme: { fg, muted, grid, bg, font, mono, dark }. */
export function theme() {
  const s = getComputedStyle(document.documentElement);
  const v = (name) => s.getPropertyValue(name).trim();
  return { fg: v('--fg'), muted: v('--muted'), grid: v('--grid'), bg: v('--plot-bg'), font: v('--font'), mono: v('--mono'), dark: dark.matches };
}

/** Calls back when the system switches between light and dark. */
export function onThemeChange(callback) {
  dark.addEventListener('change', callback);
}

/** [r, g, b] of a CSS colour in #rgb or #rrggbb form (the theme's own colours). */
export function rgbOf(css) {
  let hex = css.replace('#', '');
  if (hex.length === 3) hex = hex.replace(/./g, (c) => c + c);
  return [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16) || 0);
}
