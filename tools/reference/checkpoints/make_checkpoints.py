"""make_checkpoints.py: tiny random Hugging Face checkpoints of the Llama-style
families posenc's createModel serves, and what transformers' own modeling code
computes on them.

Run: /usr/bin/python3 tools/reference/checkpoints/make_checkpoints.py [TRANSFORMERS_SRC]
(default /work-independent: the path given, else $TRANSFORMERS_SRC; the src/ folder
of a transformers checkout). It writes tests/fixtures/checkpoints/<name>/:

  config.json              the config as a hub checkpoint has it
  model.safetensors        F32 weights, Hugging Face's tensor names
  model-f16.safetensors    (some cases) the same weights rounded to F16
  model-bf16.safetensors   (some cases) rounded to BF16
  expected.json            prompt, logits [seq][vocab] and greedy tokens of each
                           file, from the real classes (LlamaForCausalLM, ...)
                           in float32 with eager attention

Each model is built by transformers' class from the config, its weights drawn
with a fixed seed at a scale that makes the logits peaked (HF's 0.02 init gives
near-ties that no float32 engine can be held to), then run. Greedy tokens: the
argmax of the whole sequence's last logits, appended, again (what
GenerationMixin.generate(do_sample=False) computes, without its cache). The
F16 and BF16 expectations run the same class on the rounded weights (what a
reader that widens them to float32 computes). Every greedy step's margin
between the two largest logits is checked to be well above float32 noise.

The safetensors files are written here by hand (the package is not installed):
an 8-byte little-endian header length, the JSON header padded with spaces to a
multiple of 8, the raw little-endian data.
"""
import json
import math
import os
import sys

import hf_stubs  # noqa: F401  (before transformers)
import torch

from safetensors_write import write_safetensors

TRANSFORMERS_COMMIT = "ace7c37014"
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "..", "tests", "fixtures", "checkpoints")
PROMPT = [3, 17, 42, 8, 25, 61, 4, 33]  # < vocab_size
NEW_TOKENS = 12

# Each case: the config.json (v4 hub style unless noted), the modeling class, the seed,
# and which reduced-precision files to write.
BASE = dict(vocab_size=80, hidden_size=64, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
            max_position_embeddings=256, rms_norm_eps=1e-6, hidden_act="silu", bos_token_id=1, eos_token_id=2)
CASES = [
    ("llama", "LlamaForCausalLM", 11, ["BF16"], dict(
        BASE, model_type="llama", num_key_value_heads=2, rope_theta=10000.0, tie_word_embeddings=False,
        rope_scaling=dict(rope_type="llama3", factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                          original_max_position_embeddings=8))),
    ("mistral", "MistralForCausalLM", 12, [], dict(
        BASE, model_type="mistral", num_key_value_heads=1, rope_theta=1000000.0, sliding_window=5,
        tie_word_embeddings=False, head_dim=16)),
    ("qwen2", "Qwen2ForCausalLM", 13, ["BF16"], dict(
        BASE, model_type="qwen2", num_key_value_heads=2, rope_theta=10000.0, tie_word_embeddings=True,
        use_sliding_window=False, rope_scaling=dict(rope_type="yarn", factor=4.0, original_max_position_embeddings=64))),
    # v5 style: rope_parameters; head_dim 32 with hidden 64 and 4 heads (q rows of 128)
    ("qwen3", "Qwen3ForCausalLM", 14, ["F16"], dict(
        BASE, model_type="qwen3", num_key_value_heads=2, head_dim=32, tie_word_embeddings=True,
        use_sliding_window=False, rope_parameters=dict(rope_type="linear", factor=2.0, rope_theta=1000000.0))),
    ("llama-bias", "LlamaForCausalLM", 15, [], dict(
        BASE, model_type="llama", num_key_value_heads=4, rope_theta=500000.0, attention_bias=True,
        tie_word_embeddings=True, rope_scaling=dict(rope_type="dynamic", factor=2.0))),
]


def load_transformers(src):
    sys.path.insert(0, src)
    import transformers  # noqa: F401
    return transformers


def build(transformers, class_name, config_dict, seed):
    model_type = config_dict["model_type"]
    config_class = transformers.AutoConfig.for_model(model_type).__class__
    config = config_class(**{k: v for k, v in config_dict.items() if k != "model_type"})
    config._attn_implementation = "eager"
    model = getattr(transformers, class_name)(config).eval()
    torch.manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("norm.weight") or "layernorm" in name:
                p.copy_(1.0 + 0.2 * torch.rand_like(p) - 0.1)
            elif name.endswith(".bias"):
                p.copy_(0.2 * torch.rand_like(p) - 0.1)
            else:  # U(-a, a), a = 1.5 / sqrt(fan_in): peaked logits
                fan_in = p.shape[-1]
                p.copy_((torch.rand_like(p) * 2 - 1) * (1.5 / math.sqrt(fan_in)))
    return model


def hf_state(model):
    """The tensors save_pretrained writes: the state dict, without lm_head.weight when tied."""
    state = model.state_dict()
    if model.config.tie_word_embeddings:
        state.pop("lm_head.weight", None)
    return {k: v.detach().clone().contiguous() for k, v in state.items()}


def rounded(state, dtype):
    return {k: v.to(dtype) for k, v in state.items()}


def run(model, state):
    """Logits of the prompt and greedy tokens, the model's weights set to `state` widened to float32."""
    model.load_state_dict({k: v.float() for k, v in state.items()}, strict=False)
    if model.config.tie_word_embeddings:
        model.tie_weights()
    ids = torch.tensor([PROMPT])
    with torch.no_grad():
        logits = model(input_ids=ids).logits[0].float()
        tokens, margins, seq = [], [], list(PROMPT)
        for _ in range(NEW_TOKENS):
            last = model(input_ids=torch.tensor([seq])).logits[0, -1].float()
            top = torch.topk(last, 2).values
            margins.append(float((top[0] - top[1]) / last.abs().max()))
            nxt = int(torch.argmax(last))
            tokens.append(nxt)
            seq.append(nxt)
    return logits, tokens, min(margins)


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("TRANSFORMERS_SRC")
    if not src:
        sys.exit("usage: make_checkpoints.py TRANSFORMERS_SRC (a transformers checkout's src/ folder)")
    transformers = load_transformers(src)
    os.makedirs(OUT, exist_ok=True)
    for name, class_name, seed, variants, config_dict in CASES:
        model = build(transformers, class_name, config_dict, seed)
        state = hf_state(model)
        folder = os.path.join(OUT, name)
        os.makedirs(folder, exist_ok=True)
        hub_config = dict(config_dict, architectures=[class_name], torch_dtype="float32")
        with open(os.path.join(folder, "config.json"), "w") as f:
            json.dump(hub_config, f, indent=2, sort_keys=True)
            f.write("\n")
        expected = {"meta": {"source": f"huggingface/transformers @ {TRANSFORMERS_COMMIT}, "
                             f"{class_name} (eager attention, float32), run by "
                             "tools/reference/checkpoints/make_checkpoints.py", "class": class_name},
                    "prompt": PROMPT, "files": {}}
        files = [("model.safetensors", "F32", state)]
        for v in variants:
            dtype = torch.float16 if v == "F16" else torch.bfloat16
            files.append((f"model-{v.lower()}.safetensors", v, rounded(state, dtype)))
        for file, dtype, tensors in files:
            write_safetensors(os.path.join(folder, file), tensors)
            logits, tokens, margin = run(model, tensors)
            if margin < 1e-4:  # float32 noise is ~1e-6 of the largest logit
                raise SystemExit(f"{name} {dtype}: a greedy step's margin {margin:.2e} is too thin: pick another seed")
            expected["files"][file] = {
                "dtype": dtype,
                # 9 significant digits: every float32 exactly, in fewer bytes than repr
                "logits": [[float("%.9g" % x) for x in row] for row in logits.tolist()],
                "greedy": tokens,
                "min_margin": margin,
            }
            print(f"{name:11s} {dtype:5s} greedy {tokens} margin {margin:.3g}")
        with open(os.path.join(folder, "expected.json"), "w") as f:
            json.dump(expected, f, separators=(",", ":"))
            f.write("\n")


if __name__ == "__main__":
    main()
