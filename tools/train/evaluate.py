"""Scoring on the seeded evaluation sequences (copy_task.eval_batch): token
accuracy (argmax at the position before each copied symbol, teacher-forced)
and exact match (all n correct)."""
import torch

from copy_task import eval_batch


@torch.no_grad()
def copy_accuracy(model, n, count, batch=16):
    """-> (token accuracy, exact match) over evaluation sequences 0..count-1 at n."""
    tokens = eval_batch(n, count)
    correct = []
    for chunk in tokens.split(batch):
        # positions n+1..2n (SEP, s_1..s_{n-1}) predict the copies at n+2..2n+1
        predicted = model(chunk)[:, n + 1:2 * n + 1].argmax(-1)
        correct.append(predicted == chunk[:, n + 2:2 * n + 2])
    correct = torch.cat(correct)
    return correct.float().mean().item(), correct.all(dim=1).float().mean().item()
