"""Scoring on the seeded evaluation sequences (copy_task.eval_batch).

Teacher-forced: the true sequence is the input, and each copied symbol is
predicted by argmax at the position before it. Token accuracy is the fraction
of copied symbols right, exact match the fraction of sequences with all n
right.

Greedy (Kazemnejad et al. 2023, "The Impact of Positional Encoding on Length
Generalization in Transformers", score greedy decoding and exact match): the
model reads the prompt [BOS, s_1..s_n, SEP] and generates n tokens, each the
argmax at the last position, its own tokens fed back as input. Exact match:
the n generated tokens are s_1..s_n.

The two exact matches are the same event: as long as every generated token is
right, greedy decoding feeds the model exactly the teacher-forced input, so
its first wrong token is teacher forcing's first wrong prediction. They can
differ only where two logits tie to within the rounding of the two different
computations (a batch of whole sequences against growing prefixes).
make_models.py counts the sequences on which they disagree. Token accuracy
is where the two scorings part: after a greedy error the model copies from
its own mistake."""
import torch

from copy_task import eval_batch


@torch.no_grad()
def teacher_forced(model, n, count, batch=16):
    """-> bool tensor [count][n]: copied symbol i of evaluation sequence b right."""
    tokens = eval_batch(n, count)
    correct = []
    for chunk in tokens.split(batch):
        # positions n+1..2n (SEP, s_1..s_{n-1}) predict the copies at n+2..2n+1
        predicted = model(chunk)[:, n + 1:2 * n + 1].argmax(-1)
        correct.append(predicted == chunk[:, n + 2:2 * n + 2])
    return torch.cat(correct)


@torch.no_grad()
def greedy_exact(model, n, count):
    """-> bool tensor [count]: greedy decoding of evaluation sequence b from its
    prompt reproduces all n symbols. A plain loop that runs the whole prefix
    again at every step; a sequence leaves the batch at its first wrong token
    (it can no longer match), and the loop ends when none is left."""
    tokens = eval_batch(n, count)
    target = tokens[:, n + 2:]
    alive = torch.arange(count)
    seqs = tokens[:, :n + 2]  # [BOS, s_1..s_n, SEP]
    for i in range(n):
        chosen = model(seqs)[:, -1].argmax(-1)
        right = chosen == target[alive, i]
        seqs = torch.cat([seqs, chosen[:, None]], dim=1)[right]
        alive = alive[right]
        if len(alive) == 0:
            break
    exact = torch.zeros(count, dtype=torch.bool)
    exact[alive] = True
    return exact
