"""The training loop: AdamW with linear warmup and cosine decay, gradient
clipping, cross-entropy on the copied symbols only, each batch mixing lengths
(n drawn per sequence). Seeded: torch.manual_seed for the initialisation, a
torch.Generator for the batches."""
import math
import time

import torch
import torch.nn.functional as F

from copy_task import TRAIN_MAX_N, TRAIN_MIN_N, train_batch
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


def init_weights(model, recipe):
    """Embeddings N(0, 1/d) (so that E * sqrt(d) has unit scale, like the
    sinusoidal table); linear weights N(0, 0.02) (GPT-2), the residual
    outputs (out_proj, linear2) scaled by 1/sqrt(2 layers) (GPT-2), biases 0;
    learned positions N(0, recipe['pos_std'])."""
    d = model.config["dModel"]
    for name, p in model.named_parameters():
        if name == "embed.weight":
            torch.nn.init.normal_(p, std=d ** -0.5)
        elif name == "pos_embed.weight":
            torch.nn.init.normal_(p, std=recipe["pos_std"])
        elif name == "relative_attention_bias.weight":
            torch.nn.init.zeros_(p)
        elif name.endswith("norm1.weight") or name.endswith("norm2.weight") or name == "norm.weight":
            torch.nn.init.ones_(p)
        elif name.endswith(".bias"):
            torch.nn.init.zeros_(p)
        else:
            std = recipe["init_std"]
            if name.endswith("out_proj.weight") or name.endswith("linear2.weight"):
                std /= math.sqrt(2 * model.config["layers"])
            torch.nn.init.normal_(p, std=std)


def param_groups(model, weight_decay):
    """Weight decay on the matrices of the layers and the head only: not on
    embeddings (untrained rows of learned positions keep their initial
    values), norms, biases or the T5 bias table."""
    decay, keep = [], []
    for name, p in model.named_parameters():
        is_matrix = p.dim() == 2 and (name.startswith("layers.") or name == "lm_head.weight")
        (decay if is_matrix else keep).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": keep, "weight_decay": 0.0}]


def train(config, recipe, log=print):
    """Trains a CopyDecoder; returns (model, final loss, wall seconds, CPU
    seconds of all its threads, history)."""
    torch.manual_seed(recipe["seed"])
    generator = torch.Generator().manual_seed(recipe["seed"] + 1)
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
        tokens, targets, mask = train_batch(ns, generator)
        logits = model(tokens)
        losses = F.cross_entropy(logits.flatten(0, 1), targets.flatten(), reduction="none")
        loss = (losses * mask.flatten()).sum() / mask.sum()
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
