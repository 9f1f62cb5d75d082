"""Scoring on the seeded evaluation sequences (tasks.eval_batch): every
measure of the manifest, as docs/models.md defines them.

For a task, length n and evaluation sequences b = 0..count-1, sequence b is
[BOS, s_1..s_n, SEP, t_1..t_n] (tasks.task_sequence), at positions 0..2n+1,
or for a randomized-positions model at tasks.eval_positions(n, b). argmax is
torch.argmax's: the first index of the largest logit, a NaN counting as the
largest.

Teacher-forced (the true sequence is the input; one causal pass): target
token t_i, at index n + 1 + i of the sequence, is predicted by row n + i of
the logits (row n + 1, SEP's, predicts t_1; row 2n predicts t_n).
    right[b][i]     argmax(row n + i) == t_i                 (i = 1..n)
    tokenAccuracy   mean of right over b and i
    exactMatch      share of sequences with every right[b][i]
    perPosition[i]  mean over b of right[b][i]                (an array of n)
    correctPrefix   mean over b of the number of leading right[b][i]
                    (the index of the first wrong target, n when none)
    loss            mean over b and i of -log softmax(row n + i)[t_i], in
                    nats, computed in float64 from the float32 logits
                    (logsumexp(row) - row[t_i])

Greedy (Kazemnejad et al. 2023 decode this way): from the prompt [BOS,
s_1..s_n, SEP] the model generates g_1..g_n, g_i the argmax of the last row
after the prompt and g_1..g_{i-1}, each fed back as input (at the next
position id); a KV cache (decode.Decoder) computes the same rows as running
the whole sequence again.
    greedyTokenAccuracy   mean over b and i of g_i == t_i

While every generated token is right, greedy decoding reads exactly the
teacher-forced input, so its first error is at the first wrong teacher-forced
prediction: greedy exact match is exactMatch, and the greedy correct prefix
is correctPrefix, up to near-ties of two logits that the two computations
round differently. Token accuracy is where the two part: after its first
error the model reads its own mistakes.
"""
import torch

from decode import Decoder
from tasks import eval_batch, eval_position_batch


@torch.no_grad()
def teacher_forced(model, task, n, count, randomized=None, batch=16):
    """-> (right: bool [count][n], loss: float64 [count][n]). randomized: the
    max position of a randomized-positions model, or None."""
    tokens = eval_batch(task, n, count)
    positions = eval_position_batch(n, count, randomized) if randomized else None
    right, loss = [], []
    for b in range(0, count, batch):
        chunk = tokens[b:b + batch]
        logits = model(chunk, None if positions is None else positions[b:b + batch])
        rows = logits[:, n + 1:2 * n + 1]  # rows n+1..2n (0-based) predict the targets at n+2..2n+1
        target = chunk[:, n + 2:2 * n + 2]
        right.append(rows.argmax(-1) == target)
        rows64 = rows.double()
        loss.append(torch.logsumexp(rows64, -1) - rows64.gather(-1, target[..., None])[..., 0])
    return torch.cat(right), torch.cat(loss)


@torch.no_grad()
def greedy(model, task, n, count, randomized=None, batch=16):
    """-> bool [count][n]: g_i == t_i for greedy decoding from each prompt."""
    tokens = eval_batch(task, n, count)
    positions = eval_position_batch(n, count, randomized) if randomized else torch.arange(2 * n + 2).expand(count, -1)
    right = []
    for b in range(0, count, batch):
        chunk, where = tokens[b:b + batch], positions[b:b + batch]
        decoder = Decoder(model)
        logits = decoder.feed(chunk[:, :n + 2], where[:, :n + 2])[:, -1]
        generated = []
        for i in range(n):
            chosen = logits.argmax(-1)
            generated.append(chosen)
            if i + 1 < n:
                logits = decoder.feed(chosen[:, None], where[:, n + 2 + i:n + 3 + i])[:, -1]
        right.append(torch.stack(generated, dim=1) == chunk[:, n + 2:])
    return torch.cat(right)


def summarize(right, loss, greedy_right):
    """The manifest's measures of one (model, n) from the per-token results."""
    count, n = right.shape
    wrong = ~right
    # index of the first wrong target; n where there is none
    first = torch.where(wrong.any(1), wrong.float().argmax(1), torch.full((count,), n))
    return {
        "sequences": count,
        "tokenAccuracy": round(right.double().mean().item(), 6),
        "exactMatch": round(right.all(1).double().mean().item(), 6),
        "greedyTokenAccuracy": round(greedy_right.double().mean().item(), 6),
        "correctPrefix": round(first.double().mean().item(), 6),
        "loss": round(loss.mean().item(), 6),
        "perPosition": [round(v, 6) for v in right.double().mean(0).tolist()],
    }
