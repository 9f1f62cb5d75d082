// output.js: writes the pieces a format yields to stdout or a file, one piece
// at a time (each is handed over before the next is made, so memory stays
// bounded). A reader that closes the pipe early (`posenc ... | head`) ends
// the writing quietly: that is success, as for `seq 1e9 | head`. A file is
// written whole or not at all: into a temporary file beside it, renamed over
// it once every byte is written.
import { chmodSync, closeSync, openSync, realpathSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** The reader went away: the pipe is closed (EPIPE), nothing more to write. */
export class PipeClosed extends Error {}

const closedPipe = (error) => error?.code === 'EPIPE' || error?.code === 'ERR_STREAM_DESTROYED';

/** Writes every piece to a stream (stdout); resolves when the last is handed over. */
export async function writeToStream(stream, pieces) {
  // the stream reports a closed pipe twice: to the write's callback, and as an
  // 'error' event that would be an uncaught exception without a listener
  const ignore = () => {};
  stream.on?.('error', ignore);
  try {
    for (const piece of pieces) {
      await new Promise((resolve, reject) => stream.write(piece, (error) => (error ? reject(error) : resolve())));
    }
  } catch (error) {
    throw closedPipe(error) ? new PipeClosed('the reader closed the pipe') : error;
  }
}

/** Writes every piece to an open file descriptor. */
function writeAll(fd, pieces) {
  for (const piece of pieces) {
    const bytes = typeof piece === 'string' ? Buffer.from(piece, 'utf8') : piece;
    for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done);
  }
}

/** Writes every piece to a path that is not a regular file (/dev/stdout, /dev/null, a FIFO), in place. */
function writeInPlace(path, pieces) {
  const fd = openSync(path, 'w');
  try {
    writeAll(fd, pieces);
  } catch (error) {
    throw closedPipe(error) ? new PipeClosed('the reader closed the pipe') : error; // --out /dev/stdout
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes every piece to the file at `path`, whole or not at all: into a new
 * temporary file in the same folder, renamed over `path` once every byte is
 * written. A write that fails part way (ENOSPC on a full disk) removes the
 * temporary file and leaves what was at `path` as it was: never a truncated
 * .npy whose header claims the full shape. A symlink at `path` keeps pointing
 * where it did (the file it names is replaced); a file replaced keeps its
 * permissions. Paths that exist and are not regular files are written in place.
 */
export function writeToFile(path, pieces) {
  const existing = statSync(path, { throwIfNoEntry: false });
  if (existing?.isDirectory()) {
    throw Object.assign(new Error(`EISDIR: illegal operation on a directory, open '${path}'`), { code: 'EISDIR' });
  }
  if (existing && !existing.isFile()) return writeInPlace(path, pieces);
  const target = existing ? realpathSync(path) : path;
  const temporary = join(dirname(target), `.${basename(target)}.${process.pid}-${Date.now().toString(36)}.tmp`);
  // system errors name the path given, not the temporary one
  const named = (error) => {
    if (typeof error?.message === 'string') error.message = error.message.split(temporary).join(path);
    return error;
  };
  let fd;
  try {
    fd = openSync(temporary, 'wx');
  } catch (error) {
    throw named(error);
  }
  try {
    if (existing) chmodSync(temporary, existing.mode & 0o7777);
    writeAll(fd, pieces);
    closeSync(fd);
    fd = undefined;
    renameSync(temporary, target);
  } catch (error) {
    if (fd !== undefined) closeSync(fd);
    try {
      unlinkSync(temporary);
    } catch {
      // already gone
    }
    throw named(error);
  }
}
