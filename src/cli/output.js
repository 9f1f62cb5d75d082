// output.js: writes the pieces a format yields to stdout or a file, one piece
// at a time (each is handed over before the next is made, so memory stays
// bounded). A reader that closes the pipe early (`posenc ... | head`) ends
// the writing quietly: that is success, as for `seq 1e9 | head`.
import { closeSync, openSync, writeSync } from 'node:fs';

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

/** Writes every piece to a new file at `path` (created or truncated). */
export function writeToFile(path, pieces) {
  const fd = openSync(path, 'w');
  try {
    for (const piece of pieces) {
      const bytes = typeof piece === 'string' ? Buffer.from(piece, 'utf8') : piece;
      for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done);
    }
  } catch (error) {
    throw closedPipe(error) ? new PipeClosed('the reader closed the pipe') : error; // --out /dev/stdout
  } finally {
    closeSync(fd);
  }
}
