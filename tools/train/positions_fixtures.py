"""Torch fixtures for posenc's `positions` option (explicit position ids per
token, for encoder.logits, decoder().feed and the C entry points): from the
committed models of web/models/, torch's causal logits of a few copy-task
sequences read at given position ids. Writes tests/fixtures/models/positions.json:

    /usr/bin/python3 tools/train/positions_fixtures.py

Models: the copy task's six (seed 1, positions 0, 1, 2, ... in training) and
its two trained at randomized positions (Ruoss et al. 2023). Cases per model,
each on evaluation sequence (n, 0) of the copy task, [BOS, s_1..s_n, SEP,
s_1..s_n] (2n + 2 tokens):

- "permuted":   the ids 0..L-1 in a seeded random order (a key may then sit
                at a later id than its query);
- "randomized": L distinct ids drawn from [0, M), sorted (tasks.eval_positions:
                M = 1024, the randomized models' range; 514 = maxLength for the
                learned model trained at 0..513, whose table has no row past it);
- "shifted":    ids 100..100+L-1 (a prompt continued at an offset).

How ids enter (model.py CopyDecoder._explicit_positions, the training's
code): learned and sinusoidal add the table row of the token's id; RoPE
rotates q and k by the id's angles; ALiBi adds -m_h (p_i - p_j) for every
query i and key j <= i (the causal mask stays by token order; unclamped, a
row constant away from BLOOM's m_h p_j, transformers build_alibi_tensor); T5
adds its bucket of p_i - p_j (clamped at 0, the unidirectional bucketing:
a key at a later id than its query gets bucket 0); NoPE ignores them.

Each case holds the tokens, the ids, `logits` [L][18] from the float32 model
(the F16 weights as float32, the function the models were trained and scored
with) and `logits64` from the same model run in float64 (the same weights and
position tables, every sum in double), rounded to 7 significant digits
(1e-7 relative, far inside the tests' bound). The script checks, before
writing: ids 0..L-1 give exactly the logits without ids; the float32 logits are within 1e-5 of the float64 ones relative to
each row's largest; decode.Decoder fed the sequence in two chunks with their
ids gives the full pass's rows within 1e-5.
"""
import json
import os
import random
import sys

import torch

from decode import Decoder, max_relative_difference
from make_models import load_model
from tasks import MAX_POSITION, copy_sequence, eval_positions, eval_symbols

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.path.join(ROOT, "tests", "fixtures", "models", "positions.json")
MODELS = sys.argv[1:] or ["copy-none", "copy-learned", "copy-sinusoidal", "copy-rope", "copy-alibi", "copy-t5",
          "copy-learned-randomized", "copy-rope-randomized"]
N = 12  # evaluation sequence (12, 0): 26 tokens
TOLERANCE = 1e-5


def ids_of(case, length, max_ids):
    if case == "shifted":
        return list(range(100, 100 + length))
    if case == "permuted":
        ids = list(range(length))
        random.Random(0x5EED).shuffle(ids)
        return ids
    if case == "randomized":
        return eval_positions(N, 0, length, max_ids)
    raise ValueError(case)


def digits(t):
    return [[float(f"{v:.7g}") for v in row] for row in t.tolist()]


@torch.no_grad()
def main():
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    tokens = torch.tensor([copy_sequence(eval_symbols(N, 0))])
    length = tokens.shape[1]
    out = {"about": __doc__.split("\n\n")[0].replace("\n", " "), "sequence": {"task": "copy", "n": N, "index": 0},
           "tolerance": "logits within 1e-5 of logits64 relative to each row's largest |logit|", "cases": []}
    worst = 0.0
    for name in MODELS:
        path = os.path.join("web", "models", f"{name}.safetensors")
        if not os.path.exists(os.path.join(ROOT, path)):
            raise SystemExit(f"{path} is missing: make models trains it")
        model, _ = load_model(os.path.join(ROOT, path))
        wide = model.double()  # the same module, converted: reload the float32 one after
        model, _ = load_model(os.path.join(ROOT, path))
        positional = model.config["positional"]
        max_ids = positional.get("maxLength", MAX_POSITION) if positional["type"] == "learned" else MAX_POSITION
        plain = model(tokens)[0]
        assert torch.equal(model(tokens, torch.arange(length)[None])[0], plain), f"{name}: ids 0..L-1 are not the logits without ids"
        for case in ("shifted", "permuted", "randomized"):
            ids = ids_of(case, length, max_ids)
            positions = torch.tensor([ids])
            if positional["type"] == "learned" and max(ids) >= positional["maxLength"]:
                continue  # shifted past a 514-row table: no row to read
            logits = model(tokens, positions)[0]
            logits64 = wide(tokens, positions)[0]
            d = max_relative_difference(logits.double(), logits64)
            assert d <= TOLERANCE, f"{name} {case}: float32 and float64 part by {d}"
            decoder = Decoder(model)
            half = length // 2
            rows = torch.cat([decoder.feed(tokens[:, :half], positions[:, :half]), decoder.feed(tokens[:, half:], positions[:, half:])], dim=1)[0]
            dd = max_relative_difference(rows, logits)
            assert dd <= TOLERANCE, f"{name} {case}: the decoder parts from the full pass by {dd}"
            worst = max(worst, d)
            out["cases"].append({"model": path, "case": case, "tokens": tokens[0].tolist(), "positions": ids,
                                 "logits": digits(logits), "logits64": digits(logits64)})
            print(f"{name} {case}: float32 against float64 {d:.2g}, decoder against full {dd:.2g}", flush=True)
    with open(OUT, "w") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {os.path.relpath(OUT, ROOT)} ({os.path.getsize(OUT)} bytes); largest float32 - float64: {worst:.2g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
