"""make_bench_checkpoint.py: the benchmark's checkpoint (bench/checkpoint-ort.mjs),
a random Llama-style causal LM of about 10M parameters as a hub checkpoint
has it, and the same model as an ONNX KV-cache step graph for ONNX Runtime Web.

Run (`make bench` runs it; not part of `make test`; nothing is committed):

    /usr/bin/python3 tools/reference/checkpoints/make_bench_checkpoint.py \
        [--out build/checkpoints/llama-10m] [--transformers TRANSFORMERS_SRC]

It writes into --out:

  config.json        model_type llama: 8 layers, hidden 256, 8 heads, 4 key/value
                     heads (GQA), SiLU-gated MLP of 768, vocabulary 8192, untied head
  model.safetensors  F32, Hugging Face's tensor names (written by hand)
  step.onnx          the step graph a generation loop runs once per feed, as
                     transformers.js loops a decoder: inputs input_ids int64 [1][s],
                     position_ids int64 [1][s], past_key_values.<l>.key / .value
                     float32 [1][kv_heads][past][head_dim]; outputs logits
                     [1][s][vocab] and present.<l>.key / .value [1][kv_heads][past + s][head_dim]
  index.json         the prompt, torch's greedy tokens after it, each step's margin,
                     how far the step module is from the full pass, and from
                     transformers' LlamaForCausalLM (null when not run)

The step graph is LlamaStep below, a torch module written from the Llama
block's formulas (RMSNorm, rotate-half RoPE with cos/sin gathered from a
constant table by position, grouped-query attention, SiLU-gated MLP), exported
with torch.onnx.export (opset 14; torch 1.13's exporter needs no onnx package).
It is checked on the same weights against the full pass over the prompt and
the generated tokens, and, given a transformers checkout's src/ (--transformers
or $TRANSFORMERS_SRC), against transformers' own LlamaForCausalLM (eager
attention, float32; run with hf_stubs.py's import stubs): logits within 1e-5 of
the largest, and the same greedy tokens. Without a checkout that check is
skipped and index.json says so (bench/checkpoint-ort.mjs prints it); posenc's
createModel is held to transformers by tests/checkpoints/ either way, and the
bench compares posenc's logits with ORT's at every step.

Weights are drawn as make_checkpoints.py draws them (U(-a, a), a = 1.5 /
sqrt(fan_in); norms 1 +- 0.1): peaked logits, so that every greedy step's
margin between the two largest logits is far above float32 noise (checked:
the script refuses a margin below 1e-4 of the largest logit).
"""
import argparse
import json
import math
import os
import sys
import warnings

import torch
import torch.nn.functional as F

from safetensors_write import write_safetensors

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
TRANSFORMERS_COMMIT = "ace7c37014"

CONFIG = dict(
    model_type="llama", architectures=["LlamaForCausalLM"], vocab_size=8192, hidden_size=256,
    intermediate_size=768, num_hidden_layers=8, num_attention_heads=8, num_key_value_heads=4,
    max_position_embeddings=2048, rms_norm_eps=1e-5, rope_theta=10000.0, hidden_act="silu",
    tie_word_embeddings=False, attention_bias=False, mlp_bias=False, bos_token_id=1, eos_token_id=2,
    torch_dtype="float32",
)
SEED = 21
PROMPT_LENGTH = 128
GENERATED = 256  # the bench's greedy generation after the prompt
STEP_POSITIONS = 1024  # rows of the step graph's cos/sin table: past the prompt and the 256 tokens
MIN_MARGIN = 1e-4  # of the largest logit; float32 noise is ~1e-6


def prompt(vocab):
    """BOS, then tokens 3 + (7919 i mod (vocab - 3)): every id a real one, no special ids."""
    return [1] + [3 + (7919 * i) % (vocab - 3) for i in range(1, PROMPT_LENGTH)]


def shapes(c):
    """Hugging Face's tensor names and shapes for a Llama config (untied head, no biases)."""
    d, hd, ff = c["hidden_size"], c["hidden_size"] // c["num_attention_heads"], c["intermediate_size"]
    q, kv = c["num_attention_heads"] * hd, c["num_key_value_heads"] * hd
    out = {"model.embed_tokens.weight": [c["vocab_size"], d]}
    for l in range(c["num_hidden_layers"]):
        p = f"model.layers.{l}."
        out.update({
            p + "input_layernorm.weight": [d], p + "post_attention_layernorm.weight": [d],
            p + "self_attn.q_proj.weight": [q, d], p + "self_attn.k_proj.weight": [kv, d],
            p + "self_attn.v_proj.weight": [kv, d], p + "self_attn.o_proj.weight": [d, q],
            p + "mlp.gate_proj.weight": [ff, d], p + "mlp.up_proj.weight": [ff, d], p + "mlp.down_proj.weight": [d, ff],
        })
    out["model.norm.weight"] = [d]
    out["lm_head.weight"] = [c["vocab_size"], d]
    return out


def draw(c, seed):
    """Weights by name, in the order of shapes(): norms 1 +- 0.1, matrices U(-a, a), a = 1.5 / sqrt(fan_in)."""
    g = torch.Generator().manual_seed(seed)
    out = {}
    for name, shape in shapes(c).items():
        u = torch.rand(shape, generator=g)
        out[name] = 1.0 + 0.2 * u - 0.1 if len(shape) == 1 else (2 * u - 1) * (1.5 / math.sqrt(shape[-1]))
    return out


def rope_table(c, rows):
    """cos and sin [rows][head_dim] of the default RoPE: angle p / theta^(2i / head_dim), computed
    as Hugging Face's default rotary embedding computes it (float32 inverse frequencies times
    float32 positions), its halves repeated (rotate-half layout)."""
    hd = c["hidden_size"] // c["num_attention_heads"]
    inv_freq = 1.0 / (c["rope_theta"] ** (torch.arange(0, hd, 2, dtype=torch.int64).float() / hd))
    angles = torch.arange(rows).float()[:, None] * inv_freq[None, :]
    emb = torch.cat([angles, angles], dim=-1)
    return emb.cos(), emb.sin()


class LlamaStep(torch.nn.Module):
    """The Llama decoder on s new tokens at positions position_ids, their keys and values
    appended to the past ones; batch 1."""

    def __init__(self, c, w):
        super().__init__()
        self.c = c
        self.heads, self.kv_heads = c["num_attention_heads"], c["num_key_value_heads"]
        self.head_dim = c["hidden_size"] // self.heads
        self.eps = c["rms_norm_eps"]
        self.w = torch.nn.ParameterDict({k.replace(".", "_"): torch.nn.Parameter(v, requires_grad=False) for k, v in w.items()})
        cos, sin = rope_table(c, STEP_POSITIONS)
        self.register_buffer("cos", cos)
        self.register_buffer("sin", sin)

    def p(self, name):
        return self.w[name.replace(".", "_")]

    def norm(self, x, name):
        """RMSNorm: x / sqrt(mean(x^2) + eps), times the weight."""
        return self.p(name) * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps))

    def rotate(self, x, cos, sin):
        half = self.head_dim // 2
        return x * cos + torch.cat([-x[..., half:], x[..., :half]], dim=-1) * sin

    def attend(self, l, x, cos, sin, bias, past_k, past_v):
        p = f"model.layers.{l}.self_attn."
        hd, g = self.head_dim, self.heads // self.kv_heads
        q = F.linear(x, self.p(p + "q_proj.weight")).view(1, -1, self.heads, hd).transpose(1, 2)
        k = F.linear(x, self.p(p + "k_proj.weight")).view(1, -1, self.kv_heads, hd).transpose(1, 2)
        v = F.linear(x, self.p(p + "v_proj.weight")).view(1, -1, self.kv_heads, hd).transpose(1, 2)
        q, k = self.rotate(q, cos, sin), self.rotate(k, cos, sin)
        k, v = torch.cat([past_k, k], dim=2), torch.cat([past_v, v], dim=2)
        # grouped-query attention without copying keys: the g query heads of a key head as
        # g x s rows of one product ([1][kv][g][s][hd] -> [1][kv][g s][hd])
        qg = q.reshape(1, self.kv_heads, -1, hd)
        scores = (qg @ k.transpose(-1, -2)) * (hd ** -0.5)
        scores = scores.view(1, self.kv_heads, g, -1, scores.shape[-1]) + bias
        probs = torch.softmax(scores, dim=-1).view(1, self.kv_heads, -1, scores.shape[-1])
        ctx = (probs @ v).view(1, self.heads, -1, hd).transpose(1, 2).reshape(1, -1, self.heads * hd)
        return F.linear(ctx, self.p(p + "o_proj.weight")), k, v

    def forward(self, input_ids, position_ids, *past):
        pos = position_ids[0]
        x = F.embedding(input_ids, self.p("model.embed_tokens.weight"))
        cos, sin = F.embedding(pos, self.cos), F.embedding(pos, self.sin)
        keys = torch.arange(past[0].shape[2] + input_ids.shape[1])
        distance = pos[:, None] - keys[None, :]
        bias = torch.zeros(distance.shape).masked_fill(distance < 0, float("-inf"))
        present = []
        for l in range(self.c["num_hidden_layers"]):
            p = f"model.layers.{l}."
            h, k, v = self.attend(l, self.norm(x, p + "input_layernorm.weight"), cos, sin, bias, past[2 * l], past[2 * l + 1])
            x = x + h
            y = self.norm(x, p + "post_attention_layernorm.weight")
            x = x + F.linear(F.silu(F.linear(y, self.p(p + "mlp.gate_proj.weight"))) * F.linear(y, self.p(p + "mlp.up_proj.weight")),
                             self.p(p + "mlp.down_proj.weight"))
            present += [k, v]
        return (F.linear(self.norm(x, "model.norm.weight"), self.p("lm_head.weight")), *present)


def empty_past(c, length=0):
    shape = (1, c["num_key_value_heads"], length, c["hidden_size"] // c["num_attention_heads"])
    return [torch.zeros(shape) for _ in range(2 * c["num_hidden_layers"])]


def rel_diff(a, b):
    return float((a - b).abs().max() / b.abs().max())


@torch.no_grad()
def greedy(step, c, ids):
    """The bench's generation through the step module: the prompt, then one token per step.
    Returns the new tokens, each step's logits row and its margin (top two, over the largest)."""
    seq, past, rows, margins, feed = list(ids), empty_past(c), [], [], list(ids)
    for _ in range(GENERATED):
        start = len(seq) - len(feed)
        out = step(torch.tensor([feed]), torch.arange(start, len(seq))[None], *past)
        row = out[0][0, -1]
        rows.append(row)
        top = torch.topk(row, 2).values
        margins.append(float((top[0] - top[1]) / row.abs().max()))
        past = list(out[1:])
        feed = [int(torch.argmax(row))]
        seq += feed
    return seq[len(ids):], torch.stack(rows), margins


@torch.no_grad()
def against_transformers(src, c, w, sequence, rows):
    """LlamaForCausalLM on the same weights, the whole sequence at once: its last rows against
    the step module's, relative to the largest logit."""
    sys.path.insert(0, src)
    import hf_stubs  # noqa: F401  (before transformers)
    import transformers
    config = transformers.LlamaConfig(**{k: v for k, v in c.items() if k not in ("model_type", "architectures", "torch_dtype")})
    config._attn_implementation = "eager"
    model = transformers.LlamaForCausalLM(config).eval()
    missing = model.load_state_dict(w, strict=False)
    if missing.missing_keys or missing.unexpected_keys:
        raise SystemExit(f"LlamaForCausalLM: missing {missing.missing_keys}, unexpected {missing.unexpected_keys}")
    logits = model(input_ids=torch.tensor([sequence])).logits[0, PROMPT_LENGTH - 1:]
    return rel_diff(rows, logits), [int(t) for t in logits.argmax(-1)]


@torch.no_grad()
def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=os.path.join(ROOT, "build", "checkpoints", "llama-10m"))
    parser.add_argument("--transformers", default=os.environ.get("TRANSFORMERS_SRC") or None,
                        help="a transformers checkout's src/ folder (default $TRANSFORMERS_SRC): checks the step module against LlamaForCausalLM")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.set_num_threads(1)
    c = CONFIG
    w = draw(c, SEED)
    ids = prompt(c["vocab_size"])
    step = LlamaStep(c, w).eval()
    tokens, rows, margins = greedy(step, c, ids)
    if min(margins) < MIN_MARGIN:
        raise SystemExit(f"a greedy step's margin {min(margins):.2e} is below {MIN_MARGIN}: pick another SEED")
    # the same rows from one pass over the whole sequence (teacher-forced on the generated tokens)
    sequence = ids + tokens[:-1]
    full = step(torch.tensor([sequence]), torch.arange(len(sequence))[None], *empty_past(c))[0][0, PROMPT_LENGTH - 1:]
    step_vs_full = rel_diff(rows, full)
    if step_vs_full > 1e-5 or [int(t) for t in full.argmax(-1)] != tokens:
        raise SystemExit(f"the step module is {step_vs_full:.1e} (relative) from its full pass")
    checked = None
    if args.transformers:
        diff, hf_tokens = against_transformers(args.transformers, c, w, sequence, rows)
        if diff > 1e-5 or hf_tokens != tokens:
            raise SystemExit(f"the step module is {diff:.1e} (relative) from LlamaForCausalLM, tokens {'equal' if hf_tokens == tokens else 'differ'}")
        checked = {"source": f"huggingface/transformers @ {TRANSFORMERS_COMMIT}, LlamaForCausalLM (eager, float32)", "maxRelDiff": diff}

    with open(os.path.join(args.out, "config.json"), "w") as f:
        json.dump(c, f, indent=2, sort_keys=True)
        f.write("\n")
    write_safetensors(os.path.join(args.out, "model.safetensors"), w)
    names = [f"{kind}.{l}.{kv}" for kind in ("past_key_values", "present") for l in range(c["num_hidden_layers"]) for kv in ("key", "value")]
    past_names, present_names = names[:len(names) // 2], names[len(names) // 2:]
    axes = {"input_ids": {1: "sequence"}, "position_ids": {1: "sequence"}, "logits": {1: "sequence"}}
    axes.update({n: {2: "past"} for n in past_names})
    axes.update({n: {2: "total"} for n in present_names})
    # traced on 2 new tokens after 3 (g x s rows: no length is baked in; the table's rows are)
    example = (torch.tensor([ids[3:5]]), torch.tensor([[3, 4]]), *empty_past(c, 3))
    warnings.filterwarnings("ignore", category=torch.jit.TracerWarning)
    torch.onnx.export(step, example, os.path.join(args.out, "step.onnx"), opset_version=14,
                      input_names=["input_ids", "position_ids", *past_names], output_names=["logits", *present_names],
                      dynamic_axes=axes, do_constant_folding=True)
    parameters = sum(t.numel() for t in w.values())
    index = {"torch": torch.__version__, "opset": 14, "seed": SEED, "parameters": parameters, "positions": STEP_POSITIONS,
             "prompt": ids, "torchTokens": tokens, "minMargin": min(margins), "stepVsFull": step_vs_full,
             "transformers": checked}
    with open(os.path.join(args.out, "index.json"), "w") as f:
        json.dump(index, f)
    print(f"{args.out}: {parameters} parameters, step graph, torch's {GENERATED} tokens (min margin {min(margins):.1e}), "
          f"step module {step_vs_full:.1e} from its full pass, "
          + (f"{checked['maxRelDiff']:.1e} from LlamaForCausalLM" if checked else "not checked against transformers (no --transformers)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
