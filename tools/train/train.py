"""The training loop: AdamW with linear warmup and cosine decay, gradient
clipping, cross-entropy on the target tokens only, each batch mixing lengths
(n drawn per sequence). Seeded by torch.Generators derived from the recipe's
seed: one for the parameters every scheme shares, one for the scheme's own
positional parameters, one for the batches, and for randomized positions one
for the position ids. So for a given seed every scheme, either task and
either kind of positions starts from the same shared weights and sees the
same source sequences in the same order."""
import math
import time

import torch
import torch.nn.functional as F

from tasks import TRAIN_MAX_N, TRAIN_MIN_N, train_batch, train_positions
from model import CopyDecoder


def sample_lengths(batch, max_n, generator):
    """n per sequence, uniform on [TRAIN_MIN_N, max_n]."""
    return torch.randint(TRAIN_MIN_N, max_n + 1, (batch,), generator=generator).tolist()


def curriculum_max_n(step, recipe):
    """The longest n at this step: grows linearly from recipe['start_n'] to
    TRAIN_MAX_N over the first recipe['ramp'] fraction of the steps."""
    ramp = recipe["ramp"] * recipe["steps"]
    if ramp <= 0 or step >= ramp:
        return TRAIN_MAX_N
    return min(TRAIN_MAX_N, recipe["start_n"] + int((TRAIN_MAX_N - recipe["start_n"]) * step / ramp))


def learning_rate(step, recipe):
    warmup = recipe["warmup"]
    if step < warmup:
        return recipe["lr"] * (step + 1) / warmup
    progress = (step - warmup) / max(1, recipe["steps"] - warmup)
    return recipe["lr"] * (recipe["min_lr_ratio"] + (1 - recipe["min_lr_ratio"]) * 0.5 * (1 + math.cos(math.pi * progress)))


POSITIONAL_PARAMETERS = ("pos_embed.weight", "relative_attention_bias.weight")


def seeds_of(seed):
    """The generator seeds of one training seed: (shared weights, positional
    parameters, batches, randomized position ids)."""
    return seed, 1000 + seed, 2000 + seed, 3000 + seed


@torch.no_grad()
def init_weights(model, recipe):
    """Embeddings N(0, 1/d) (so that E * sqrt(d) has unit scale, like the
    sinusoidal table); linear weights N(0, 0.02) (GPT-2), the residual
    outputs (out_proj, linear2) scaled by 1/sqrt(2 layers) (GPT-2), biases 0;
    learned positions N(0, recipe['pos_std']), the T5 bias table 0. The
    shared parameters draw from their own generator, in the same order for
    every scheme, so they start equal across schemes."""
    d = model.config["dModel"]
    shared_seed, positional_seed = seeds_of(recipe["seed"])[:2]
    shared = torch.Generator().manual_seed(shared_seed)
    positional = torch.Generator().manual_seed(positional_seed)
    normal = lambda p, std, g: p.copy_(torch.randn(p.shape, generator=g) * std)
    for name, p in model.named_parameters():
        if name == "pos_embed.weight":
            normal(p, recipe["pos_std"], positional)
        elif name == "relative_attention_bias.weight":
            p.zero_()
        elif name == "embed.weight":
            normal(p, d ** -0.5, shared)
        elif name.endswith("norm1.weight") or name.endswith("norm2.weight") or name == "norm.weight":
            p.fill_(1)
        elif name.endswith(".bias"):
            p.zero_()
        else:
            std = recipe["init_std"]
            if name.endswith("out_proj.weight") or name.endswith("linear2.weight"):
                std /= math.sqrt(2 * model.config["layers"])
            normal(p, std, shared)


def param_groups(model, weight_decay):
    """Weight decay on the matrices of the layers and the head only: not on
    embeddings (untrained rows of learned positions keep their initial
    values), norms, biases or the T5 bias table."""
    decay, keep = [], []
    for name, p in model.named_parameters():
        is_matrix = p.dim() == 2 and (name.startswith("layers.") or name == "lm_head.weight")
        (decay if is_matrix else keep).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": keep, "weight_decay": 0.0}]


def train(config, recipe, task="copy", max_position=None, log=print):
    """Trains a CopyDecoder on `task` ('copy' or 'reverse'); with
    max_position, on randomized position ids drawn from [0, max_position)
    (Ruoss et al. 2023; tasks.train_positions), from a generator of their own
    so that the batches are those of the model without them. Returns (model,
    final loss, wall seconds, CPU seconds of all its threads, history)."""
    generator = torch.Generator().manual_seed(seeds_of(recipe["seed"])[2])
    position_generator = torch.Generator().manual_seed(seeds_of(recipe["seed"])[3])
    model = CopyDecoder(config)
    init_weights(model, recipe)
    optimizer = torch.optim.AdamW(param_groups(model, recipe["weight_decay"]), lr=recipe["lr"],
                                  betas=(0.9, 0.98), eps=1e-8)
    start, cpu_start = time.time(), time.process_time()
    running, history = None, []
    for step in range(recipe["steps"]):
        for group in optimizer.param_groups:
            group["lr"] = learning_rate(step, recipe)
        ns = sample_lengths(recipe["batch"], curriculum_max_n(step, recipe), generator)
        # Longest first, in `chunks` groups each padded to its own longest:
        # one padded batch would spend about half its tokens on padding.
        ns.sort(reverse=True)
        size = -(-len(ns) // recipe["chunks"])
        total, copies = 0.0, 0
        for i in range(0, len(ns), size):
            tokens, targets, mask = train_batch(task, ns[i:i + size], generator)
            positions = None
            if max_position is not None:
                positions = train_positions(ns[i:i + size], tokens.shape[1], max_position, position_generator)
            losses = F.cross_entropy(model(tokens, positions).flatten(0, 1), targets.flatten(), reduction="none")
            total = total + (losses * mask.flatten()).sum()
            copies += sum(ns[i:i + size])
        loss = total / copies  # the mean over every target token of the batch
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), recipe["clip"])
        optimizer.step()
        running = loss.item() if running is None else 0.98 * running + 0.02 * loss.item()
        if (step + 1) % recipe["log_every"] == 0 or step + 1 == recipe["steps"]:
            elapsed = time.time() - start
            history.append({"step": step + 1, "loss": running, "seconds": elapsed})
            log(f"  step {step + 1:5d}  loss {running:.4f}  max n {curriculum_max_n(step, recipe)}  {elapsed:6.1f} s")
    return model, running, time.time() - start, time.process_time() - cpu_start, history
