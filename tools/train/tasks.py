"""The two tasks of the trained models, copy and reversal: their token
layout, the seeded evaluation sequences, the evaluation position ids of the
randomized-positions models, and training batches.

Vocabulary of 18: 0 = BOS, 1 = SEP, 2..17 are the symbols. For n symbols
s_1..s_n and the target t_1..t_n the sequence is [0, s_1..s_n, 1, t_1..t_n]
(2n + 2 tokens):

    copy:     t_i = s_i            (the source token n + 1 positions back)
    reverse:  t_i = s_{n + 1 - i}  (2i positions back: the distance varies
                                    within the sequence, from 2 to 2n)

Reversal is Kazemnejad et al. 2023's "Reverse" ("The Impact of Positional
Encoding on Length Generalization in Transformers", Table 1: "Reverse the
following words: w1 .. w5" -> "w5 .. w1"), with SEP for the instruction. A
causal model is scored on the n target tokens: t_i, at position n + 1 + i, is
predicted from position n + i (teacher-forced; position n + 1 holds SEP and
predicts t_1).

The evaluation sequences are defined by a counter-based integer hash, so that
any implementation (web/models/tasks.js is the JavaScript twin) scores exactly
the same sequences without torch:

    lowbias32(x): x ^= x >> 16; x *= 0x7feb352d; x ^= x >> 15;
                  x *= 0x846ca68b; x ^= x >> 16      (all mod 2^32)
    (Chris Wellons, "Prospecting for Hash Functions", hash-prospector's
    lowbias32.)
    symbol j (0-based) of evaluation sequence `index` at length n:
        2 + (lowbias32(lowbias32(lowbias32(EVAL_SEED ^ n) ^ index) ^ j) >> 28)

Both tasks use the same symbols for the same (n, index).

Randomized positions (Ruoss et al. 2023, "Randomized Positional Encodings
Boost Length Generalization of Transformers"): a sequence of L tokens gets
the position ids of a uniformly drawn subset of L of [0, MAX_POSITION),
sorted ascending, in training and in evaluation alike. The evaluation subset
is hash-defined too: with key(c) = lowbias32(lowbias32(lowbias32(POSITION_SEED
^ n) ^ index) ^ c) for every candidate c in [0, MAX_POSITION), the L
candidates with the smallest (key(c), c), sorted ascending.
"""
import torch

BOS, SEP = 0, 1
VOCAB_SIZE = 18
SYMBOLS = 16  # ids 2..17
TRAIN_MIN_N, TRAIN_MAX_N = 1, 32
EVAL_NS = (8, 16, 32, 48, 64, 96, 128, 192, 256)
EVAL_SEED = 0x5EED0C0B
POSITION_SEED = 0x5EED9051
# Randomized positions draw from [0, MAX_POSITION): more than the 514 tokens of
# the longest evaluation sequence (n = 256), about 16x the 66 of the longest
# training one (Ruoss et al. draw from 2,048 for 40 training tokens).
MAX_POSITION = 1024
TASKS = ("copy", "reverse")
MASK32 = 0xFFFFFFFF


def lowbias32(x):
    x &= MASK32
    x ^= x >> 16
    x = (x * 0x7FEB352D) & MASK32
    x ^= x >> 15
    x = (x * 0x846CA68B) & MASK32
    x ^= x >> 16
    return x


def eval_symbols(n, index):
    """The n symbols of evaluation sequence `index` at length n."""
    seq_key = lowbias32(lowbias32(EVAL_SEED ^ n) ^ index)
    return [2 + (lowbias32(seq_key ^ j) >> 28) for j in range(n)]


def target_of(task, symbols):
    """t_1..t_n of the task for s_1..s_n."""
    if task == "copy":
        return list(symbols)
    if task == "reverse":
        return list(reversed(symbols))
    raise ValueError(f"unknown task {task!r} (known: {', '.join(TASKS)})")


def task_prompt(symbols):
    """[BOS, s_1..s_n, SEP]: what the model generates its answer from."""
    return [BOS, *symbols, SEP]


def task_sequence(task, symbols):
    """[BOS, s_1..s_n, SEP, t_1..t_n]"""
    return [*task_prompt(symbols), *target_of(task, symbols)]


def copy_sequence(symbols):
    """[BOS, s_1..s_n, SEP, s_1..s_n]"""
    return task_sequence("copy", symbols)


def eval_batch(task, n, count):
    """Evaluation sequences 0..count-1 at length n: a [count][2n + 2] long tensor."""
    return torch.tensor([task_sequence(task, eval_symbols(n, i)) for i in range(count)], dtype=torch.long)


def eval_positions(n, index, length=None, max_position=MAX_POSITION):
    """The randomized-positions models' position ids of evaluation sequence
    `index` at length n: `length` (default 2n + 2) of [0, max_position), sorted."""
    length = 2 * n + 2 if length is None else length
    seq_key = lowbias32(lowbias32(POSITION_SEED ^ n) ^ index)
    chosen = sorted(range(max_position), key=lambda c: (lowbias32(seq_key ^ c), c))[:length]
    return sorted(chosen)


def eval_position_batch(n, count, max_position=MAX_POSITION):
    """[count][2n + 2] long tensor of eval_positions."""
    return torch.tensor([eval_positions(n, i, max_position=max_position) for i in range(count)], dtype=torch.long)


def train_batch(task, ns, generator):
    """A batch of task sequences, one length n per sequence, right-padded with
    BOS to the longest. Returns (tokens [B][L], targets [B][L], loss mask
    [B][L]): the mask is 1 where targets[b][p] is a target token. With a
    causal model, padding after a sequence cannot affect its positions. Both
    tasks draw the same symbols from the generator: for one seed the copy and
    the reversal models see the same source sequences."""
    longest = 2 * max(ns) + 2
    tokens = torch.zeros(len(ns), longest, dtype=torch.long)
    mask = torch.zeros(len(ns), longest)
    for b, n in enumerate(ns):
        symbols = torch.randint(2, 2 + SYMBOLS, (n,), generator=generator)
        tokens[b, 1:n + 1] = symbols
        tokens[b, n + 1] = SEP
        tokens[b, n + 2:2 * n + 2] = symbols if task == "copy" else symbols.flip(0)
        mask[b, n + 1:2 * n + 1] = 1  # positions n+1..2n predict the targets
    targets = torch.zeros_like(tokens)
    targets[:, :-1] = tokens[:, 1:]
    return tokens, targets, mask


def train_positions(ns, longest, max_position, generator):
    """Randomized position ids for a batch (Ruoss et al. 2023): per sequence of
    L = 2n + 2 tokens, L distinct ids drawn uniformly from [0, max_position),
    sorted; the padding after it gets 0 (causal: it cannot reach the
    sequence). [B][longest] long."""
    positions = torch.zeros(len(ns), longest, dtype=torch.long)
    for b, n in enumerate(ns):
        length = 2 * n + 2
        positions[b, :length] = torch.randperm(max_position, generator=generator)[:length].sort().values
    return positions
