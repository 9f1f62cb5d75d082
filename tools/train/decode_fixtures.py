"""Torch fixtures for incremental decoding with a KV cache (decode.py), from
the committed models of web/models/: for each scheme, and for the RoPE model
under RoPE scaling applied at inference, greedy generation after a few
copy-task prompts, with the logits of every step as torch computes them with
a KV cache. Writes tests/fixtures/models/decode-<scheme>.safetensors and
decode-rope-scaled.safetensors. Not part of `make test` or `make models`:

    /usr/bin/python3 tools/train/decode_fixtures.py

Each case <case> of a file holds
    prompt.<case>     [P]          the prompt's token ids (as floats)
    generated.<case>  [N]          the N tokens generated greedily
    logits.<case>     [N][vocab]   row i: the logits token i was chosen from
                                   (row 0: the prompt's last position, from
                                   the prefill; row i > 0: the step that fed
                                   generated token i - 1)
and the metadata key posenc.cases describes each case: its model file, the
RoPE scaling (posenc's option object, merged into the model's positional
options) and, for dynamic NTK, which semantics it follows ('cache':
transformers' generate, cached keys keep their rotation; 'recompute': the
whole sequence again at each step, every key at the current base).

Checked before writing: row i of every case but dynamic 'cache' equals the
last row of the full forward of the sequence it was computed on, within 1e-4
relative (with no scaling, the row of model.forward on the final sequence:
the function the models were trained and scored with); dynamic 'cache'
equals it until the sequence passes maxPositionEmbeddings tokens, and the
script prints how far they part after.
"""
import json
import os
import sys

import torch

from copy_task import eval_symbols, copy_sequence
from decode import full_logits, generate, max_relative_difference
from model import SCHEMES, CopyDecoder
from safetensors_io import read_safetensors, write_safetensors

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
MODELS = os.path.join(ROOT, "web", "models")
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "models")

# The longest training sequence (n = 32): 2n + 2 tokens, the context RoPE
# scaling stretches (web/copy-models.js TRAIN_TOKENS).
TRAIN_TOKENS = 66
# (name, n of the copy prompt [BOS, s_1..s_n, SEP] from evaluation sequence 0,
# tokens to generate). n8: well inside the training range; n48: a 50-token
# prompt grown to 81 tokens, past the training length and past TRAIN_TOKENS,
# where dynamic NTK starts to move.
PROMPTS = (("n8", 8, 16), ("n48", 48, 32))
# RoPE scaling applied at inference to the rope model: (case prefix, scaling, dynamic semantics)
SCALED = (
    ("linear2", {"type": "linear", "factor": 2}, None),
    ("yarn4", {"type": "yarn", "factor": 4, "originalMaxPositionEmbeddings": TRAIN_TOKENS}, None),
    ("dynamic4-cache", {"type": "dynamic", "factor": 4, "maxPositionEmbeddings": TRAIN_TOKENS}, "cache"),
    ("dynamic4-recompute", {"type": "dynamic", "factor": 4, "maxPositionEmbeddings": TRAIN_TOKENS}, "recompute"),
)
# The bound of tests/encoder/trained-models.test.js between posenc and torch. Torch's own
# two computations (one token at a time against the whole sequence) sum in
# different orders and part by up to ~1e-5 relative where the RoPE model
# runs far outside its training (linear x2 at 80 tokens): 1e-5 would be too
# tight even for torch against itself. The script prints the largest.
TOLERANCE = 1e-4


def load(scheme):
    tensors, metadata = read_safetensors(os.path.join(MODELS, f"copy-{scheme}.safetensors"))
    model = CopyDecoder(json.loads(metadata["posenc.config"]))
    model.load_state_dict({k: v.float() for k, v in tensors.items()})
    return model.eval()


def prompt_of(n):
    return copy_sequence(eval_symbols(n, 0))[:n + 2]


def case(model, scheme, prompt, count, scaling=None, dynamic=None):
    """-> (tensors of one case, its description); checks it against the full forward."""
    generated, logits = generate(model, prompt, count, scaling, dynamic or "cache")
    sequence = list(prompt) + generated
    # row i against the full forward of the sequence it was computed on (for
    # a causal model without dynamic scaling, the final sequence's row)
    full = torch.stack([full_logits(model, sequence[:len(prompt) + i], scaling)[-1] for i in range(count)])
    if scaling is None:
        with torch.no_grad():
            forward = model(torch.tensor([sequence]))[0][len(prompt) - 1:-1]
        assert max_relative_difference(full, forward) <= TOLERANCE, "decode.py's forward is not model.forward"
    differences = [max_relative_difference(logits[i:i + 1], full[i:i + 1]) for i in range(count)]
    if dynamic == "cache":
        # until the sequence passes M tokens the frequencies never moved
        m = scaling["maxPositionEmbeddings"]
        same = [d for i, d in enumerate(differences) if len(prompt) + i <= m]
        assert max(same, default=0) <= TOLERANCE, f"dynamic cache departs before {m} tokens"
        print(f"    cached keys keep their rotation: largest difference from the full forward "
              f"{max(differences):.3g}, {sum(d > TOLERANCE for d in differences)} rows past {TOLERANCE:g}")
    else:
        assert max(differences) <= TOLERANCE, f"cached decoding departs from the full forward: {max(differences)}"
        print(f"    largest difference from the full forward {max(differences):.3g}")
    tensors = {"prompt": torch.tensor(prompt, dtype=torch.float32),
               "generated": torch.tensor(generated, dtype=torch.float32),
               "logits": logits.contiguous()}
    about = {"model": f"web/models/copy-{scheme}.safetensors", "scaling": scaling}
    if dynamic:
        about["dynamic"] = dynamic
    return tensors, about


def write(path, cases):
    tensors, described = {}, {}
    for name, (parts, about) in cases.items():
        for key, t in parts.items():
            tensors[f"{key}.{name}"] = t
        described[name] = about
    metadata = {"about": "greedy generation with a KV cache in torch (tools/train/decode.py): prompt, generated "
                         "tokens, and the logits each token was chosen from",
                "posenc.cases": json.dumps(described, separators=(",", ":"))}
    write_safetensors(path, tensors, metadata)
    print(f"  wrote {os.path.relpath(path, ROOT)} ({os.path.getsize(path)} bytes)")


def main():
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    for scheme in SCHEMES:
        print(scheme)
        model = load(scheme)
        cases = {name: case(model, scheme, prompt_of(n), count) for name, n, count in PROMPTS}
        write(os.path.join(FIXTURES, f"decode-{scheme}.safetensors"), cases)
    print("rope, scaled")
    model = load("rope")
    cases = {}
    for prefix, scaling, dynamic in SCALED:
        for name, n, count in PROMPTS:
            print(f"  {prefix}.{name}")
            cases[f"{prefix}.{name}"] = case(model, "rope", prompt_of(n), count, scaling, dynamic)
    write(os.path.join(FIXTURES, "decode-rope-scaled.safetensors"), cases)


if __name__ == "__main__":
    sys.exit(main())
