"""Exports the committed copy-task models (web/models/copy-<scheme>.safetensors)
to ONNX for the side-by-side bench against ONNX Runtime Web (bench/encoder-ort.mjs):
one file per model and length n, build/onnx/copy-<scheme>-n<n>.onnx, with
torch.onnx.export (opset 14) of model.py's CopyDecoder at that fixed length:
input `tokens` int64 [1][n], output `logits` float32 [1][n][vocabSize].
Also writes build/onnx/index.json: per file the scheme, n, layers and the
torch logits' largest magnitude on the bench's tokens (a sanity figure only:
the bench compares posenc's logits with ORT's in its own run).

    python3 tools/train/export_onnx.py [--lengths 66,258,514] [--out build/onnx]

A length past a model's limit (learned positions: maxLength rows) is
replaced by the limit.

Also one KV-cache step graph per model, build/onnx/copy-<scheme>-step.onnx,
the graph a generation loop runs once per feed as transformers.js loops a
decoder's: inputs `input_ids` int64 [1][s], `position_ids` int64 [1][s] (the
positions past .. past + s - 1: the offset of every scheme, the causal mask's
too) and `past_key_values.<l>.key` / `.value` float32 [1][heads][past][head_dim]
per layer (past 0 for the prompt); outputs `logits` [1][s][vocabSize] and
`present.<l>.key` / `.value` [1][heads][past + s][head_dim]. The position
tables (sinusoidal, RoPE's cos and sin, T5's bucket of each distance) are
constants of STEP_POSITIONS rows, gathered by position as exported decoders
do. The index records, per step graph, torch's greedy tokens after the
bench's prompt (bench/generate-ort.mjs compares them) and how far the step
module's logits are from the full pass's (checked below 1e-5 relative).
Not part of `make test`: `make bench` runs it.
"""
import argparse
import json
import math
import os
import sys
import warnings

import torch
import torch.nn.functional as F

from copy_task import copy_sequence, eval_symbols
from model import CopyDecoder, alibi_slopes, rope_cos_sin, sinusoidal_table, t5_buckets
from safetensors_io import read_safetensors

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
MODELS = os.path.join(ROOT, "web", "models")


def bench_tokens(n, vocab):
    """The bench's tokens (bench/encoder-ort.mjs makes the same): BOS, then
    symbols 2 + (7 i mod (vocab - 2))."""
    return torch.tensor([[0] + [2 + (7 * i) % (vocab - 2) for i in range(1, n)]], dtype=torch.int64)


def load(path):
    tensors, metadata = read_safetensors(path)
    config = json.loads(metadata["posenc.config"])
    model = CopyDecoder(config)
    model.load_state_dict({k: v.float() for k, v in tensors.items()})
    model.eval()
    return model, config


def limit_of(config):
    p = config["positional"]
    return p["maxLength"] if p["type"] == "learned" else None


@torch.no_grad()
def export(model, config, n, path):
    tokens = bench_tokens(n, config["vocabSize"])
    # The trace fixes the length, the positions and the scale, as intended
    # (a fixed-length export); torch says so in warnings at every model.
    warnings.filterwarnings("ignore", category=torch.jit.TracerWarning)
    warnings.filterwarnings("ignore", message="The shape inference of prim::Constant")
    torch.onnx.export(model, (tokens,), path, opset_version=14, input_names=["tokens"],
                      output_names=["logits"], do_constant_folding=True)
    return float(model(tokens).abs().max())


STEP_POSITIONS = 1024  # rows of the step graphs' position tables: past the bench's 34 + 256
GENERATED = 256  # the bench's greedy generation after PROMPT (bench/generate-ort.mjs)
PROMPT = copy_sequence(eval_symbols(32, 0))[:34]  # [BOS, s_1..s_32, SEP]


class CopyStep(torch.nn.Module):
    """model.py's CopyDecoder on s new tokens at positions position_ids, its
    keys and values appended to the past ones (the formulas of model.py; the
    position pieces gathered from constant tables by position)."""

    def __init__(self, model):
        super().__init__()
        self.model = model
        c, p = model.config, model.positional
        self.heads, self.head_dim = c["heads"], c["dModel"] // c["heads"]
        self.kind = p["type"]
        if self.kind == "sinusoidal":
            self.register_buffer("pe", sinusoidal_table(STEP_POSITIONS, c["dModel"], p["base"]))
        if self.kind == "rope":
            cos, sin = rope_cos_sin(STEP_POSITIONS, self.head_dim, p["base"])
            self.register_buffer("cos", cos)
            self.register_buffer("sin", sin)
        if self.kind == "alibi":
            self.register_buffer("slopes", alibi_slopes(c["heads"], p["maxBias"]).float()[:, None, None])
        if self.kind == "t5":  # the bucket of each distance i - j >= 0: row i of the [S][S] table, key 0
            self.register_buffer("bucket", t5_buckets(STEP_POSITIONS, p["numBuckets"], p["maxDistance"])[:, 0].contiguous())

    def forward(self, input_ids, position_ids, *past):
        m = self.model
        pos = position_ids[0]
        x = m.embed(input_ids) * m.config["embedScale"]
        if self.kind == "sinusoidal":
            x = x + F.embedding(pos, self.pe)
        if self.kind == "learned":
            x = x + m.pos_embed(pos)
        keys = torch.arange(past[0].shape[2] + input_ids.shape[1])  # key positions 0 .. past + s - 1
        distance = pos[:, None] - keys[None, :]  # [S][T], i - j
        bias = torch.zeros(distance.shape).masked_fill(distance < 0, float("-inf"))
        if self.kind == "alibi":
            bias = bias - self.slopes * distance.clamp(min=0).float()
        if self.kind == "t5":
            bias = bias + m.relative_attention_bias(F.embedding(distance.clamp(min=0), self.bucket[:, None])[..., 0]).permute(2, 0, 1)
        rope = (F.embedding(pos, self.cos), F.embedding(pos, self.sin)) if self.kind == "rope" else None
        present = []
        for layer, (past_k, past_v) in zip(m.layers, zip(past[0::2], past[1::2])):
            h, k, v = self.attend(layer.self_attn, layer.norm1(x), bias, rope, past_k, past_v)
            x = x + h
            x = x + layer.linear2(layer.act(layer.linear1(layer.norm2(x))))
            present += [k, v]
        return (m.lm_head(m.norm(x)), *present)

    def rotate(self, x, cos, sin):
        """model.py's rope_rotate_half (every feature rotates), its halves
        sliced at a constant (no Shape nodes)."""
        half = self.head_dim // 2
        a, b = x[..., :half], x[..., half:]
        return torch.cat([a * cos - b * sin, b * cos + a * sin], dim=-1)

    def attend(self, a, x, bias, rope, past_k, past_v):
        # batch 1 and constant shapes (no Shape nodes in the graph, as a lean export has)
        split = lambda t: t.view(1, -1, self.heads, self.head_dim).transpose(1, 2)
        q, k, v = split(a.q_proj(x)), split(a.k_proj(x)), split(a.v_proj(x))
        if rope is not None:
            q, k = self.rotate(q, *rope), self.rotate(k, *rope)
        k, v = torch.cat([past_k, k], dim=2), torch.cat([past_v, v], dim=2)
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.head_dim) + bias
        ctx = torch.softmax(scores, dim=-1) @ v
        return a.out_proj(ctx.transpose(1, 2).reshape(1, -1, self.heads * self.head_dim)), k, v


def empty_past(config, length=0):
    shape = (1, config["heads"], length, config["dModel"] // config["heads"])
    return [torch.zeros(shape) for _ in range(2 * config["layers"])]


def rel_diff(a, b):
    return float((a - b).abs().max() / b.abs().max())


@torch.no_grad()
def greedy_steps(step, config):
    """The bench's generation through the step module: the prompt, then one
    token per step. Returns the new tokens and each step's logits row."""
    ids, past, rows = list(PROMPT), empty_past(config), []
    feed = list(PROMPT)
    for _ in range(GENERATED):
        start = len(ids) - len(feed)
        out = step(torch.tensor([feed]), torch.arange(start, len(ids))[None], *past)
        rows.append(out[0][0, -1])
        past = list(out[1:])
        feed = [int(torch.argmax(rows[-1]))]
        ids += feed
    return ids[len(PROMPT):], torch.stack(rows)


@torch.no_grad()
def export_step(model, config, path):
    step = CopyStep(model).eval()
    tokens, rows = greedy_steps(step, config)
    # the same rows from the full pass over the whole sequence (teacher-forced on the generated tokens)
    full = model(torch.tensor([PROMPT + tokens[:-1]]))[0, len(PROMPT) - 1:]
    diff = rel_diff(rows, full)
    if diff > 1e-5 or [int(t) for t in full.argmax(-1)] != tokens:
        raise SystemExit(f"{path}: the step module is {diff:.1e} (relative) from the full pass")
    layers = config["layers"]
    past_names = [f"past_key_values.{l}.{kv}" for l in range(layers) for kv in ("key", "value")]
    present_names = [f"present.{l}.{kv}" for l in range(layers) for kv in ("key", "value")]
    axes = {"input_ids": {1: "sequence"}, "position_ids": {1: "sequence"}, "logits": {1: "sequence"}}
    axes.update({n: {2: "past"} for n in past_names})
    axes.update({n: {2: "total"} for n in present_names})
    # traced on 2 new tokens after 3: no length is baked in (the tables' rows are)
    example = (torch.tensor([[PROMPT[3], PROMPT[4]]]), torch.tensor([[3, 4]]), *empty_past(config, 3))
    torch.onnx.export(step, example, path, opset_version=14, input_names=["input_ids", "position_ids", *past_names],
                      output_names=["logits", *present_names], dynamic_axes=axes, do_constant_folding=True)
    return tokens, diff


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lengths", default="66,258,514")
    parser.add_argument("--out", default=os.path.join(ROOT, "build", "onnx"))
    args = parser.parse_args()
    lengths = [int(s) for s in args.lengths.split(",")]
    os.makedirs(args.out, exist_ok=True)
    torch.set_num_threads(1)
    index, steps = [], []
    for name in sorted(os.listdir(MODELS)):
        if not (name.startswith("copy-") and name.endswith(".safetensors")):
            continue
        scheme = name[len("copy-"):-len(".safetensors")]
        model, config = load(os.path.join(MODELS, name))
        limit = limit_of(config)
        for n in sorted({min(n, limit) if limit else n for n in lengths}):
            file = f"copy-{scheme}-n{n}.onnx"
            largest = export(model, config, n, os.path.join(args.out, file))
            index.append({"scheme": scheme, "model": name, "n": n, "layers": config["layers"],
                          "file": file, "torchLargestLogit": largest})
            print(f"{file}: {config['layers']} layers, n = {n}", flush=True)
        file = f"copy-{scheme}-step.onnx"
        tokens, diff = export_step(model, config, os.path.join(args.out, file))
        steps.append({"scheme": scheme, "model": name, "layers": config["layers"], "file": file,
                      "positions": STEP_POSITIONS, "prompt": PROMPT, "torchTokens": tokens, "stepVsFull": diff})
        print(f"{file}: {config['layers']} layers, step graph, torch's {GENERATED} tokens, step module {diff:.1e} from the full pass", flush=True)
    with open(os.path.join(args.out, "index.json"), "w") as f:
        json.dump({"opset": 14, "torch": torch.__version__, "models": index, "steps": steps}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
