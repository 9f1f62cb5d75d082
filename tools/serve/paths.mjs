// paths.mjs: what the demo server may serve, and the checks that keep it
// there. Two roots, one rule each, no exception:
//   - the page: every file under web/ whose type the server knows, at its path
//     under web/ (/ is web/index.html, /views/table.js is web/views/table.js);
//   - the package: exactly the files package.json's "files" list ships (read
//     once, at start), at their path in the repository (/dist/posenc.mjs, and
//     /src/cli/torch.js, which the notebook view imports as the CLI does).
// A request target is checked segment by segment before it touches the file
// system, so `..`, encoded dots or slashes, NUL bytes and absolute-form
// targets never reach it; then the file's real path (symlinks followed) must
// still be a file of the same root: under web/ for a page file, a file the
// "files" list names for a package file. No symlink leads anywhere else.
import { readFileSync, realpathSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

export class HttpError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** The types served; a page file of any other extension is not served. */
export const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.wasm': 'application/wasm',
  '.json': 'application/json; charset=utf-8',
  '.safetensors': 'application/octet-stream',
};

const MAX_URL = 2048; // longer request targets get 414
const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/; // no leading dot: no `.`, `..` or dotfiles

export const extension = (name) => {
  const dot = name.lastIndexOf('/') < name.lastIndexOf('.') ? name.lastIndexOf('.') : -1;
  return dot < 0 ? '' : name.slice(dot).toLowerCase();
};

/**
 * package.json's "files" entries as one test of a repository-relative path.
 * An entry is a path whose segments may hold `*` (any characters but `/`);
 * an entry naming a folder ships what is under it. Any other glob syntax
 * (`**`, `?`, `[...]`, `{...}`, `!`) is refused at start, so that the server
 * never serves more than the entry means.
 */
export function packageFiles(root) {
  const files = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).files;
  if (!Array.isArray(files)) throw new Error('serve.mjs: package.json has no "files" list');
  const patterns = files.map((entry) => {
    const path = String(entry).replace(/^\.\//, '').replace(/\/$/, '');
    const segments = path.split('/');
    if (/\*\*|[?[\]{}!\\]/.test(path) || !segments.every((s) => s && s !== '.' && s !== '..')) {
      throw new Error(`serve.mjs: package.json "files" entry ${JSON.stringify(entry)} uses a form this server does not read`);
    }
    const source = segments.map((s) => s.split('*').map((p) => p.replace(/[.+^$()|]/g, '\\$&')).join('[^/]*')).join('/');
    return new RegExp(`^${source}(?:/.+)?$`);
  });
  return (path) => patterns.some((p) => p.test(path));
}

/**
 * Maps a raw request target to { kind: 'page' | 'package', file } (file
 * relative to the repository), or throws an HttpError. Decoding happens
 * once, per segment, after splitting on the raw `/`: an encoded slash (%2f)
 * or backslash stays inside its segment and fails the segment pattern, as do
 * `..`, `%2e%2e` and NUL.
 */
export function resolveTarget(target, isPackageFile) {
  if (typeof target !== 'string' || !target.startsWith('/') || target.startsWith('//')) {
    throw new HttpError(400, 'bad request target');
  }
  if (target.length > MAX_URL) throw new HttpError(414, 'URI too long');
  const raw = target.split(/[?#]/, 1)[0];
  let segments;
  try {
    segments = raw.slice(1).split('/').map((s) => decodeURIComponent(s));
  } catch {
    throw new HttpError(400, 'malformed percent-encoding');
  }
  if (segments.length === 1 && segments[0] === '') return { kind: 'page', file: 'web/index.html' };
  if (!segments.every((s) => SEGMENT.test(s))) {
    const hostile = segments.some((s) => s === '.' || s === '..' || /[\0\\/]/.test(s));
    throw new HttpError(hostile ? 400 : 404, hostile ? 'bad path' : 'not found');
  }
  const path = segments.join('/');
  if (!MIME[extension(path)]) throw new HttpError(404, 'not found');
  if (isPackageFile(path)) return { kind: 'package', file: path };
  return { kind: 'page', file: `web/${path}` };
}

/**
 * The served roots of a repository, resolved once: check(kind, real) says
 * whether a file's real path is still inside the root its URL named.
 */
export function servedRoots(root) {
  const realRoot = realpathSync(root);
  const realWeb = realpathSync(join(root, 'web')) + sep;
  const isPackageFile = packageFiles(realRoot);
  return {
    realRoot,
    isPackageFile,
    check(kind, real) {
      if (kind === 'page') return real.startsWith(realWeb);
      const path = relative(realRoot, real);
      return !path.startsWith('..') && !path.startsWith(sep) && isPackageFile(path.split(sep).join('/'));
    },
  };
}
