// docs-markdown.js: what the documentation tests read in README.md and
// docs/*.md: the fenced code blocks (with the HTML comment right before each),
// the headings as GitHub anchors them, and the relative links.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The documentation pages, repository-relative: README.md and every docs/*.md. */
export function pages() {
  const docs = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort();
  return ['README.md', ...docs.map((f) => `docs/${f}`)];
}

export const read = (page) => readFileSync(join(ROOT, page), 'utf8');

const FENCE = /^(\s*)(`{3,}|~{3,})(.*)$/;

/**
 * The fenced code blocks of a page: { line (1-based, of the opening fence),
 * indent, info (the words after the fence), code, comment (the text of the
 * HTML comment on the last non-blank line before the fence, or null) }.
 */
export function blocks(text) {
  const lines = text.split('\n');
  const found = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]);
    if (!open) continue;
    const [, indent, fence, info] = open;
    let end = i + 1;
    while (end < lines.length && !(lines[end].trim().startsWith(fence) && lines[end].trim().replace(/[`~]/g, '') === '')) end++;
    let before = i - 1;
    while (before >= 0 && lines[before].trim() === '') before--;
    const comment = before >= 0 ? /^\s*<!--(.*)-->\s*$/.exec(lines[before]) : null;
    found.push({
      line: i + 1,
      indent: indent.length,
      info: info.trim().split(/\s+/).filter(Boolean),
      code: lines.slice(i + 1, end).map((l) => l.slice(Math.min(indent.length, l.length - l.trimStart().length))).join('\n'),
      comment: comment ? comment[1].trim() : null,
    });
    i = end;
  }
  return found;
}

/**
 * The page's text with fenced blocks and inline code spans blanked (links and
 * headings inside them are not links or headings); lines stay where they were.
 * A code span may run over a line break, not over a blank line.
 */
export function prose(text) {
  let fence = null;
  const unfenced = text.split('\n').map((line) => {
    const open = FENCE.exec(line);
    if (fence) {
      if (open && line.trim().startsWith(fence) && line.trim().replace(/[`~]/g, '') === '') fence = null;
      return '';
    }
    if (open) {
      fence = open[2];
      return '';
    }
    return line;
  }).join('\n');
  return unfenced.replace(/(`+)(?:(?!\1)[^`\n]|`(?!\1)|\n(?!\s*\n))*?\1/g, (m) => m.replace(/[^\n]/g, ' '));
}

/**
 * GitHub's anchor for a heading's text (github-slugger): the rendered text,
 * lower-cased, every character that is not a letter, mark, number, connector
 * (`_`), space or hyphen dropped, spaces turned into hyphens; a repeated
 * slug gets -1, -2, ... in order.
 */
export function slug(heading) {
  const rendered = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // links and images: their text
    .replace(/<[^>]+>/g, '') // inline HTML tags
    .replace(/`/g, '');
  return rendered.trim().toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/** The anchors of a page: its headings' slugs, duplicates numbered as GitHub numbers them. */
export function anchors(text) {
  const seen = new Map();
  const out = new Set();
  for (const line of headingLines(text)) {
    const base = slug(/^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line)[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** The headings of a page with their code spans, from the raw text (fences excluded). */
export function headingLines(text) {
  const raw = text.split('\n');
  const plain = prose(text).split('\n'); // fenced lines blanked
  return raw.filter((line, i) => plain[i].trim() !== '' && /^ {0,3}#{1,6}\s/.test(line));
}

/** The link targets of a page's prose: Markdown links and images (their text may span lines), and HTML href/src. */
export function links(text) {
  const body = prose(text);
  const lineOf = (index) => body.slice(0, index).split('\n').length;
  const found = [];
  for (const m of body.matchAll(/!?\[(?:[^\][]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) found.push({ line: lineOf(m.index), target: m[1] });
  for (const m of body.matchAll(/\b(?:href|src)="([^"]+)"/g)) found.push({ line: lineOf(m.index), target: m[1] });
  return found.sort((a, b) => a.line - b.line);
}
