// Every relative link of README.md and docs/*.md resolves: the file (or
// folder) exists in the repository, and an #anchor names a heading of the
// page it points to, slugged as GitHub slugs headings. Links to other sites
// are not fetched.
import { existsSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { ROOT, anchors, links, pages, read, slug } from './markdown.js';

const EXTERNAL = /^(?:[a-z][a-z0-9+.-]*:|\/\/)/i; // https:, mailto:, protocol-relative

describe('the slugs are GitHub\'s', () => {
  test.each([
    ['Trained tiny models: past the training length', 'trained-tiny-models-past-the-training-length'],
    ['.safetensors files', 'safetensors-files'],
    ['The forward pass, exactly', 'the-forward-pass-exactly'],
    ['Multimodal RoPE (Qwen2-VL, Qwen2.5-VL) and 2-D RoPE (vision encoders)', 'multimodal-rope-qwen2-vl-qwen25-vl-and-2-d-rope-vision-encoders'],
    ['Token accuracy (%) by scheme and n', 'token-accuracy--by-scheme-and-n'],
    ['`posenc/encoder` and `init()`', 'posencencoder-and-init'],
    ['The encoder in C: `posenc_encoder_forward`', 'the-encoder-in-c-posenc_encoder_forward'],
  ])('%s', (heading, expected) => expect(slug(heading)).toBe(expected));

  test('a repeated heading gets -1, -2', () => {
    expect([...anchors('# A\n## A\n### A\n```\n# not a heading\n```\n')]).toEqual(['a', 'a-1', 'a-2']);
  });
});

const cases = pages().flatMap((page) => links(read(page)).map((l) => [page, l.line, l.target]));

test('the pages link to each other', () => {
  expect(pages().length).toBeGreaterThan(5);
  expect(cases.filter(([, , t]) => !EXTERNAL.test(t)).length).toBeGreaterThan(50);
});

test.each(cases.filter(([, , t]) => !EXTERNAL.test(t)))('%s:%i links to %s', (page, line, target) => {
  const [path, anchor] = target.split('#');
  const file = path === '' ? page : normalize(join(dirname(page), decodeURIComponent(path)));
  // inside the repository, and there
  expect(relative(ROOT, join(ROOT, file)).startsWith('..')).toBe(false);
  expect(existsSync(join(ROOT, file))).toBe(true);
  if (anchor !== undefined) {
    expect(statSync(join(ROOT, file)).isFile() && file.endsWith('.md')).toBe(true);
    expect([...anchors(read(file))]).toContain(anchor);
  }
});

test('the README is a front page: at most 12 KB, and it links to every docs page', () => {
  const readme = read('README.md');
  expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(12 * 1024);
  const linked = new Set(links(readme).map((l) => normalize(l.target.split('#')[0])));
  expect(pages().filter((p) => p.startsWith('docs/') && !linked.has(p))).toEqual([]);
});
