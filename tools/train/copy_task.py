"""The copy task: its token layout, the seeded evaluation sequences, and
training batches.

Vocabulary of 18: 0 = BOS, 1 = SEP, 2..17 are the symbols. For n symbols
s_1..s_n the sequence is [0, s_1..s_n, 1, s_1..s_n] (length 2n + 2). A causal
model is scored on the n copied symbols: the copy of s_{i+1}, at position
n + 2 + i, is predicted from position n + 1 + i (teacher-forced; position n + 1
holds SEP).

The evaluation sequences are defined by a counter-based integer hash, so that
any implementation (web/models/copy-task.js is the JavaScript twin) scores
exactly the same sequences without torch:

    lowbias32(x): x ^= x >> 16; x *= 0x7feb352d; x ^= x >> 15;
                  x *= 0x846ca68b; x ^= x >> 16      (all mod 2^32)
    (Chris Wellons, "Prospecting for Hash Functions", hash-prospector's
    lowbias32.)
    symbol j (0-based) of evaluation sequence `index` at length n:
        2 + (lowbias32(lowbias32(lowbias32(EVAL_SEED ^ n) ^ index) ^ j) >> 28)
"""
import torch

BOS, SEP = 0, 1
VOCAB_SIZE = 18
SYMBOLS = 16  # ids 2..17
TRAIN_MIN_N, TRAIN_MAX_N = 1, 32
EVAL_NS = (8, 16, 32, 48, 64, 96, 128, 192, 256)
EVAL_SEED = 0x5EED0C0B
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


def copy_sequence(symbols):
    """[BOS, s_1..s_n, SEP, s_1..s_n]"""
    return [BOS, *symbols, SEP, *symbols]


def eval_batch(n, count):
    """Evaluation sequences 0..count-1 at length n: a [count][2n + 2] long tensor."""
    return torch.tensor([copy_sequence(eval_symbols(n, i)) for i in range(count)], dtype=torch.long)


def train_batch(ns, generator):
    """A batch of copy sequences, one length n per sequence, right-padded with
    BOS to the longest. Returns (tokens [B][L], targets [B][L], loss mask
    [B][L]): the mask is 1 where targets[b][p] is a copied symbol. With a
    causal model, padding after a sequence cannot affect its positions."""
    longest = 2 * max(ns) + 2
    tokens = torch.zeros(len(ns), longest, dtype=torch.long)
    mask = torch.zeros(len(ns), longest)
    for b, n in enumerate(ns):
        symbols = torch.randint(2, 2 + SYMBOLS, (n,), generator=generator)
        tokens[b, 1:n + 1] = symbols
        tokens[b, n + 1] = SEP
        tokens[b, n + 2:2 * n + 2] = symbols
        mask[b, n + 1:2 * n + 1] = 1  # positions n+1..2n predict the copies
    targets = torch.zeros_like(tokens)
    targets[:, :-1] = tokens[:, 1:]
    return tokens, targets, mask
