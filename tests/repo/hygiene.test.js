// The repository names its sources (the paper, the reference implementation,
// the tutorial or notebook), never where it came from, and refers to no file
// outside itself; the demo page carries no dead feature gating.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const THIS = 'tests/repo/hygiene.test.js';
const files = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' })
  .split('\0')
  .filter((f) => f && f !== THIS && !/^(package-lock\.json|node_modules\/)/.test(f) && !/\.(png|wasm|ico)$/.test(f));
const text = (f) => readFileSync(`${ROOT}${f}`, 'utf8');

// phrases written in parts, so that this file does not hold them
const ORIGIN = [
  ['seed', ' article'], ['seed', ' notebook'], ['notebook', ' seed'], ['JAX', ' seed'], ['labml', ' seed'], ['the ', "seed's"],
  ['and JAX', ' seeds'], ['the ', 'issue'], ['issue', "'s"], ['DESIGN', '.md'], ['../sh', 'ared/'], ['/work/sh', 'ared'],
].map((parts) => parts.join(''));

test('no file says where the project came from or points outside the repository', () => {
  const hits = [];
  for (const f of files) {
    const lines = text(f).split('\n');
    lines.forEach((line, i) => {
      for (const phrase of ORIGIN) if (line.toLowerCase().includes(phrase.toLowerCase())) hits.push(`${f}:${i + 1}: ${phrase}`);
    });
  }
  expect(hits).toEqual([]);
});

test('the demo declares no `needs` gating: every view and nav link ships', () => {
  const web = files.filter((f) => f.startsWith('web/'));
  expect(web.filter((f) => /data-needs|\bneeds: \[|view\.needs/.test(text(f)))).toEqual([]);
});
