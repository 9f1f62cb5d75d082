"""make_float32_parity.py: transformers' float32 RoPE pipeline, run in torch, for
tests/fixtures/reference-rope/float32-parity.json.

What transformers computes at float32 (LlamaRotaryEmbedding.forward and the
_compute_*_parameters functions, transcribed in hf_rope.py as
hf_float32_inv_freq and hf_float32_cache): inv_freq formed in float32
(base ** (arange(0, dim, 2).float() / dim), torch's own float pow), then the
angle inv_freq * position as one float32 product, cos and sin in float32,
times the attention factor in float32. The test gives posenc that same
inv_freq buffer (ropeCache's invFreq) with precision 'float32' and compares;
it also measures what posenc's own frequencies (correctly rounded) give.

Run from the repository root: /usr/bin/python3 tools/reference/make_float32_parity.py
(torch 1.13, Debian's python3-torch). Not run by make test.
"""

import json
import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import hf_rope as hf  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
CONFIGS = os.path.join(ROOT, "tests", "fixtures", "hf-configs")
OUT = os.path.join(ROOT, "tests", "fixtures", "reference-rope", "float32-parity.json")

CASES = [  # (config file, rope type): one per kind of frequency arithmetic
    ("llama-2-7b.json", "default"),
    ("qwen2.5-3b.json", "default, base 1e6"),
    ("llama-3.1-8b.json", "llama3"),
    ("phi-3.5-mini-instruct.json", "longrope (short factors)"),
    ("deepseek-v2-lite.json", "yarn"),
    ("synthetic/gemma-3-4b-shaped.json", "linear"),
]
POSITIONS = [0, 1, 2, 100, 4095, 65535, 131071]


def f32(values):
    """float32 values as the shortest decimals that read back as the same float32."""
    return [float(np.format_float_positional(np.float32(v), unique=True, trim="-")) for v in np.ravel(values)]


def main():
    torch.set_num_threads(1)
    rows = []
    for file, kind in CASES:
        with open(os.path.join(CONFIGS, file)) as fh:
            cfg = json.load(fh)
        spec = hf.resolve_rope(cfg)
        inv32 = hf.hf_float32_inv_freq(spec)
        _, attention = hf.rope_frequencies(spec, None)
        cos, sin = hf.hf_float32_cache(inv32, attention, POSITIONS)
        half = spec["rotaryDim"] // 2
        dims = sorted({0, 1, half // 4, half // 2, half - 2, half - 1})
        rows.append({
            "config": file, "kind": kind, "invFreq32": f32(inv32.numpy()), "attentionFactor": attention,
            "positions": POSITIONS, "dims": dims,
            "cos": f32(cos[:, dims]), "sin": f32(sin[:, dims]),
        })
    doc = {
        "transformersCommit": "c49429ed1f8b89749de77c0ec930ef19685c9ae5",
        "generator": "tools/reference/make_float32_parity.py (torch %s)" % torch.__version__,
        "note": "transformers' float32 pipeline: inv_freq in float32, angle = inv32 * p in float32, cos/sin in float32, times the attention factor",
        "rows": rows,
    }
    with open(OUT, "w") as fh:
        json.dump(doc, fh, indent=1)
        fh.write("\n")


if __name__ == "__main__":
    main()
