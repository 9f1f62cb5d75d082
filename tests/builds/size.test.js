// Download budgets: the gzip -9 bytes each public entry makes a browser fetch
// by default (bench/size.mjs). The builds are deterministic, so each budget
// is the size shipped when it was set plus a small slack: growing past it
// fails here, and whoever grows the package raises the budget knowingly (the
// README's Performance section quotes these figures).
import { ENTRIES, entrySize, fileSize } from '../../bench/size.mjs';

const SLACK = 128;
// each entry's baseline wasm (for engines without SIMD)
const BASELINE = { posenc: 'dist/posenc-baseline.wasm', 'posenc/encoder': 'dist/posenc-encoder-baseline.wasm' }; // bytes: room for a message's rewording, not for a feature

// gzip level 9 (Node's zlib) of what each entry fetches, as measured when set
const BUDGETS = {
  posenc: 55734,
  'posenc/encoder': 93522, // 0.3.0's residual adds in the matrix kernel and split softmax: +483
};

test('every public entry has a budget', () => {
  expect(Object.keys(BUDGETS).sort()).toEqual(Object.keys(ENTRIES).sort());
});

describe.each(Object.keys(ENTRIES))("entry '%s'", (name) => {
  const size = entrySize(ENTRIES[name]);

  test('fits its budget', () => {
    console.log(`entry '${name}': ${size.gzip} bytes gzip -9 (budget ${BUDGETS[name]} + ${SLACK})`);
    expect(size.gzip).toBeLessThanOrEqual(BUDGETS[name] + SLACK);
  });

  test('fetches no chunk holding a wasm build it may not need', () => {
    // the baseline wasm is for engines without SIMD: import() only, never static
    const staticFiles = size.files.map((f) => f.file);
    for (const f of staticFiles.slice(1)) expect(f).toMatch(/^dist\/(posenc|encoder)-chunk-[\w-]+\.mjs$/);
    const baseline = fileSize(BASELINE[name]);
    for (const f of size.files.slice(1)) expect(f.bytes).toBeLessThan(baseline.bytes);
  });
});

test.each(Object.keys(ENTRIES))("entry '%s' loads its baseline build lazily", (name) => {
  const { lazy } = entrySize(ENTRIES[name]);
  // the baseline wasm's text: one or two characters a byte
  const baseline = fileSize(BASELINE[name]);
  expect(lazy.some((f) => f.bytes > baseline.bytes)).toBe(true);
});
