// versions.mjs: a served file's version (validators) and its compressed
// bodies, made once per version and kept. A version is the file's real path,
// size, modification time and inode, read from the open file (fstat): an edit
// makes a new version, and a new ETag. Compression runs on the libuv thread
// pool, one file at a time per coding, so it never holds more than one file
// per coding in memory besides what is kept:
//   - gzip -9 when a request first wants it (milliseconds: the request waits);
//   - brotli in the background, started by the first request that accepts
//     it: quality 11 for text and wasm (half a second for the largest
//     bundle), 5 for model weights (near-random bits: 11 takes seconds and
//     saves nothing more); until it is ready such requests get gzip.
// A coding that does not make the body smaller is recorded as useless and
// the file goes out as it is. What is kept is bounded (CACHE_BYTES, least
// recently used first out); files over COMPRESS_MAX are never compressed.
import { constants as fsConstants } from 'node:fs';
import { open } from 'node:fs/promises';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { extension } from './paths.mjs';

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

export const COMPRESS_MAX = 8 << 20;
export const CACHE_BYTES = 64 << 20;
const COMPRESSIBLE = new Set(['.html', '.css', '.js', '.mjs', '.svg', '.wasm', '.json', '.safetensors']);
const TEXT = new Set(['.html', '.css', '.js', '.mjs', '.svg', '.json']);
const BROTLI_BEST = new Set([...TEXT, '.wasm']); // quality 11; the rest 5

/**
 * The version of an open file from its fstat (bigint): { path, tag, key,
 * etag, lastModified, mtimeSeconds, size }.
 */
export function versionOf(path, stat) {
  const hex = (n) => n.toString(16);
  const tag = `${hex(stat.ino)}-${hex(stat.size)}-${hex(stat.mtimeNs)}`;
  const mtimeMs = Number(stat.mtimeMs);
  return {
    path, tag, key: `${path}\0${tag}`,
    etag: `W/"${tag}"`, // weak: the gzip, brotli and plain bodies of one version are the same content
    lastModified: new Date(mtimeMs).toUTCString(),
    mtimeSeconds: Math.floor(mtimeMs / 1000),
    size: Number(stat.size),
  };
}

// A weight (RFC 9110 12.4.2): "q=" and a qvalue from 0 to 1 with at most
// three decimals; a coding is a token (5.6.2).
const QVALUE = /^q=(0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;
const TOKEN = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;

/**
 * The codings of ['br', 'gzip'] to try for a request's Accept-Encoding
 * (RFC 9110 12.5.3), best first: highest weight first (brotli first on a
 * tie), none refused (q=0), none ranked below identity when the header ranks
 * identity (or `*`). A member whose weight is not a qvalue (q=-1, q=abc,
 * q=1.5) or that carries any other parameter is malformed and ignored, as if
 * not listed; x-gzip is gzip (8.4.1.3). No header, or an empty one: [].
 */
export function acceptedCodings(header) {
  if (!header) return [];
  const q = new Map();
  for (const member of String(header).split(',')) {
    const [name, ...params] = member.split(';').map((s) => s.trim().toLowerCase());
    if (!name || !TOKEN.test(name) || params.length > 1) continue;
    const weight = params.length ? QVALUE.exec(params[0]) : ['', '1'];
    if (!weight) continue;
    const coding = name === 'x-gzip' ? 'gzip' : name;
    if (!q.has(coding)) q.set(coding, Number(weight[1]));
  }
  const weightOf = (c) => q.get(c) ?? q.get('*') ?? 0;
  const identity = q.get('identity') ?? q.get('*') ?? 0; // unlisted: acceptable, but after any coding listed
  return ['br', 'gzip'].filter((c) => weightOf(c) > 0 && weightOf(c) >= identity).sort((a, b) => weightOf(b) - weightOf(a));
}

export const compressible = (real, size) => COMPRESSIBLE.has(extension(real)) && size <= COMPRESS_MAX;

/** One lane: the jobs given run one after another. */
function lane() {
  let tail = Promise.resolve();
  return (job) => {
    const run = tail.then(job);
    tail = run.catch(() => {});
    return run;
  };
}

const OPEN_FLAGS = fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK;

/** The bytes of a file version, or a throw when the file is no longer that version. */
async function readVersion(path, tag) {
  const fh = await open(path, OPEN_FLAGS);
  try {
    const stat = await fh.stat({ bigint: true });
    if (!stat.isFile() || versionOf(path, stat).tag !== tag) throw new Error('changed');
    return await fh.readFile();
  } finally {
    await fh.close();
  }
}

function compress(coding, input, ext) {
  if (coding === 'gzip') return gzipAsync(input, { level: 9 });
  return brotliAsync(input, { params: {
    [constants.BROTLI_PARAM_QUALITY]: BROTLI_BEST.has(ext) ? 11 : 5,
    [constants.BROTLI_PARAM_MODE]: TEXT.has(ext) ? constants.BROTLI_MODE_TEXT : constants.BROTLI_MODE_GENERIC,
    [constants.BROTLI_PARAM_SIZE_HINT]: input.length,
  } });
}

/**
 * The compressed bodies of file versions, kept. body(version, codings)
 * resolves to { coding, bytes } or null (send the file as it is): the first
 * coding of `codings` that is ready (gzip is waited for; brotli only started).
 */
export function createCache({ budget = CACHE_BYTES } = {}) {
  const entries = new Map(); // real path -> { version, codings: Map(coding -> slot) }, least recently used first
  let bytes = 0;
  const lanes = { gzip: lane(), br: lane() };

  const drop = (path) => {
    for (const slot of entries.get(path)?.codings.values() ?? []) bytes -= slot.bytes?.length ?? 0;
    entries.delete(path);
  };
  const entryOf = (version) => {
    let e = entries.get(version.path);
    if (e?.version.key !== version.key) {
      drop(version.path); // a new version replaces the old one
      e = { version, codings: new Map() };
    }
    entries.delete(version.path); // re-inserted last: the most recently used
    entries.set(version.path, e);
    return e;
  };
  // slot: { done, bytes: Buffer | null (useless), promise }
  const start = (e, coding) => {
    const { path, tag } = e.version;
    const slot = { done: false, bytes: null, promise: null };
    slot.promise = lanes[coding](async () => {
      const input = await readVersion(path, tag);
      const out = await compress(coding, input, extension(path));
      return out.length < input.length ? out : null;
    }).then(
      (out) => {
        slot.done = true;
        if (entries.get(path) !== e || e.codings.get(coding) !== slot) return out; // replaced meanwhile: not kept
        slot.bytes = out;
        bytes += out?.length ?? 0;
        for (const old of entries.keys()) {
          if (bytes <= budget) break;
          drop(old);
        }
        return out;
      },
      () => {
        if (e.codings.get(coding) === slot) e.codings.delete(coding); // the file changed or went: tried again next time
        return null;
      },
    );
    e.codings.set(coding, slot);
    return slot;
  };

  return {
    async body(version, codings) {
      if (!codings.length) return null;
      const e = entryOf(version);
      for (const coding of codings) {
        const slot = e.codings.get(coding);
        if (slot?.done) {
          if (slot.bytes) return { coding, bytes: slot.bytes };
          continue; // useless for this file
        }
        if (coding === 'br') {
          if (!slot) start(e, 'br'); // in the background; gzip (or the file) meanwhile
          continue;
        }
        const out = await (slot ?? start(e, coding)).promise;
        if (out) return { coding, bytes: out };
      }
      return null;
    },
    /** The bytes kept (for tests). */
    get bytes() {
      return bytes;
    },
  };
}
