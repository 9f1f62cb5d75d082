// cli-formats.js: the CLI's formats per value written. Runs main() in this
// process (no startup in the times) for sinusoidal 262144 x 8 written to
// /dev/null, formats round-robin, and reports each format's median time per
// value and its ratio to .npy (the bytes as computed: the floor of any format).
// A table shows 36 of the values whatever the size: its time is per call.
import { main } from '../src/cli/main.js';

const LENGTH = 262144;
const D_MODEL = 8;
const FORMATS = ['npy', 'csv', 'json', 'table'];

const quiet = { write: (_text, done) => (done?.(), true) };

export async function cliTasks({ rounds }) {
  const times = Object.fromEntries(FORMATS.map((f) => [f, []]));
  for (let r = 0; r < rounds; r++) {
    for (const format of FORMATS) {
      const t0 = performance.now();
      const status = await main(
        ['sinusoidal', '--length', String(LENGTH), '--d-model', String(D_MODEL), '--format', format, '--out', '/dev/null'],
        { stdout: quiet, stderr: process.stderr },
      );
      if (status !== 0) throw new Error(`posenc ${format} exited with ${status}`);
      times[format].push(performance.now() - t0);
    }
  }
  const median = (t) => t.sort((a, b) => a - b)[t.length >> 1];
  const values = LENGTH * D_MODEL;
  const npy = median(times.npy);
  console.log(`\nCLI formats: sinusoidal ${LENGTH} x ${D_MODEL} to /dev/null, in process (median of ${rounds})`);
  console.log('| format | ns per value | against .npy |');
  console.log('| --- | ---: | ---: |');
  for (const format of FORMATS.filter((f) => f !== 'table')) {
    const ms = median(times[format]);
    console.log(`| ${format} | ${((ms * 1e6) / values).toFixed(1)} | ${(ms / npy).toFixed(2)}x |`);
  }
  console.log(`table (torch's repr, 36 values shown): ${median(times.table).toFixed(1)} ms a call`);
}
