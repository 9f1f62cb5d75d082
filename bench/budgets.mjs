// budgets.mjs: the time budgets that tests used to assert with a clock, measured
// here instead (`make bench`; alone: `node bench/budgets.mjs`), each against a
// floor measured in the same run, round-robin with it. The tests keep what a slow
// machine cannot fail (the values, the errors, the counts); a budget exceeded here
// sets the exit status.
//   - empty results with a huge other dimension return at once (tests/bad-inputs/matrix.test.js,
//     was < 500 ms): floor, the same calls with that dimension 1;
//   - the encoder refuses huge tensors before drawing or allocating anything
//     (tests/encoder/options-and-sizes.test.js, was < 2 s each): floor, refusing classes = -1;
//   - the CLI's error paths and its 8,388,608-row table (tests/consumers/cli.test.js,
//     was < 30 s each): floor, `posenc --version` (a process, Node and posenc loading).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as posenc from '../dist/posenc.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS || 7);
const I32 = 2 ** 31 - 1;
const median = (t) => t.sort((a, b) => a - b)[t.length >> 1];

/** Runs task and floor alternately `rounds` times; medians in ms. */
function race(task, floor, rounds = ROUNDS) {
  const times = { task: [], floor: [] };
  for (let r = 0; r < rounds; r++) {
    for (const [name, run] of [['task', task], ['floor', floor]]) {
      const t0 = performance.now();
      run();
      times[name].push(performance.now() - t0);
    }
  }
  return { task: median(times.task), floor: median(times.floor) };
}

const rows = [];
function report(name, { task, floor }, budget, floorName) {
  const over = task > budget;
  rows.push({ name, task, floor, budget, over });
  console.log(`| ${name} | ${task.toFixed(2)} | ${floor.toFixed(2)} (${floorName}) | ${(task / floor).toFixed(2)} | ${budget} | ${over ? 'OVER' : 'within'} |`);
}

const throws = (fn) => {
  try {
    fn();
  } catch {
    return;
  }
  throw new Error('expected a refusal');
};

await posenc.init();
console.log('| task | median ms | floor ms | x floor | budget ms | |');
console.log('| --- | ---: | ---: | ---: | ---: | --- |');

// empty results: the calls of tests/bad-inputs/matrix.test.js, then with the huge dimension at 1
const emptyCalls = (big) => () => {
  posenc.sinusoidal({ length: 0, dModel: big });
  posenc.addSinusoidal(new Float32Array(0), { dModel: big });
  posenc.alibiBias({ heads: big, queryLength: 0, keyLength: 4 });
  posenc.alibiBias({ heads: big, queryLength: 4, keyLength: 0 });
  posenc.applyRope(new Float32Array(0), { heads: 1, headDim: 2, batch: big === 1 ? 1 : 2 ** 28, positions: new Int32Array(0) });
  posenc.t5Bias({ heads: 1, queryLength: 0, keyLength: big, weights: new Float32Array(32) });
};
report('empty results, other dimension 2^31 - 1', race(emptyCalls(I32), emptyCalls(1)), 500, 'that dimension 1');

// the encoder's refusals (tests/encoder/options-and-sizes.test.js)
const BASE = { vocabSize: 20, dModel: 8, heads: 2, dFF: 16, layers: 1 };
const refusals = {
  'classes 2^31 - 1': { vocabSize: 1, dModel: 1, heads: 1, dFF: 1, layers: 0, classes: I32 },
  'a head past any typed array': { vocabSize: 1, dModel: 1024, heads: 1, dFF: 1, layers: 0, classes: I32 },
  '2^31 - 1 tiny layers': { vocabSize: 1, dModel: 1, heads: 1, dFF: 1, layers: I32 },
  'a huge T5 table': { ...BASE, positional: { type: 't5', numBuckets: 2 ** 30, maxDistance: 2 ** 30 } },
  'a huge learned table': { ...BASE, positional: { type: 'learned', maxLength: I32 } },
  'a huge language table': { ...BASE, languages: I32 },
  'a huge feed-forward block': { ...BASE, dFF: I32 },
};
const refuse = (options) => () => throws(() => posenc.createEncoder({ ...options, weights: { seed: 1 } }));
const plainRefusal = refuse({ vocabSize: 1, dModel: 1, heads: 1, dFF: 1, layers: 0, classes: -1 });
for (const [name, options] of Object.entries(refusals)) {
  report(`createEncoder refuses ${name}`, race(refuse(options), plainRefusal), 2000, 'refusing classes = -1');
}

// the CLI (tests/consumers/cli.test.js), in a scratch directory
const tmp = mkdtempSync(join(tmpdir(), 'posenc-bench-'));
const cli = (...args) => () => spawnSync(process.execPath, [join(ROOT, 'bin', 'posenc.js'), ...args], { cwd: tmp, maxBuffer: 1 << 30 });
const version = cli('--version');
const CLI_ROUNDS = 3;
for (const [name, args] of [
  ['CLI: a missing --config', ['rope-cache', '--length', '2', '--config', 'missing.json']],
  ['CLI: an endless --config (/dev/zero)', ['rope-cache', '--length', '2', '--config', '/dev/zero']],
  ['CLI: a full disk (/dev/full)', ['sinusoidal', '--length', '4', '--d-model', '4', '--out', '/dev/full']],
  ['CLI: a config that is not JSON', ['rope-cache', '--length', '2', '--config', join(ROOT, 'bin', 'posenc.js')]],
  ['CLI: no command', []],
  ['CLI: sinusoidal, 8388608 x 8, torch format', ['sinusoidal', '--length', '8388608', '--d-model', '8']],
]) {
  report(name, race(cli(...args), version, CLI_ROUNDS), 30000, 'posenc --version');
}
rmSync(tmp, { recursive: true, force: true });

const over = rows.filter((r) => r.over);
console.log(over.length ? `budgets: ${over.length} OVER: ${over.map((r) => r.name).join('; ')}` : `budgets: all ${rows.length} within`);
if (over.length) process.exitCode = 1;
