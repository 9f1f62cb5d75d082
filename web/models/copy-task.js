// copy-task.js: the copy task under the names it had before the reversal
// task joined it (tests and benchmarks import them); models/tasks.js holds
// both tasks and every measure.
import { taskSequence, taskPrompt } from './tasks.js';

export { BOS, SEP, VOCAB_SIZE, EVAL_NS, EVAL_SEED, lowbias32, evalSymbols } from './tasks.js';

/** [BOS, s_1..s_n, SEP, s_1..s_n] as an Int32Array. */
export const copySequence = (symbols) => taskSequence('copy', symbols);

/** [BOS, s_1..s_n, SEP]: what a greedy copy starts from, as an Int32Array. */
export const copyPrompt = taskPrompt;
