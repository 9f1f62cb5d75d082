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
replaced by the limit. Not part of `make test`: `make bench` runs it.
"""
import argparse
import json
import os
import sys
import warnings

import torch

from model import SCHEMES, CopyDecoder
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lengths", default="66,258,514")
    parser.add_argument("--out", default=os.path.join(ROOT, "build", "onnx"))
    args = parser.parse_args()
    lengths = [int(s) for s in args.lengths.split(",")]
    os.makedirs(args.out, exist_ok=True)
    torch.set_num_threads(1)
    index = []
    for name in sorted(os.listdir(MODELS)):
        if not (name.startswith("copy-") and name.endswith(".safetensors")):
            continue
        scheme = name[len("copy-"):-len(".safetensors")]
        if scheme not in SCHEMES:  # the copy task's six models only, not the randomized-positions ones
            continue
        model, config = load(os.path.join(MODELS, name))
        limit = limit_of(config)
        for n in sorted({min(n, limit) if limit else n for n in lengths}):
            file = f"copy-{scheme}-n{n}.onnx"
            largest = export(model, config, n, os.path.join(args.out, file))
            index.append({"scheme": scheme, "model": name, "n": n, "layers": config["layers"],
                          "file": file, "torchLargestLogit": largest})
            print(f"{file}: {config['layers']} layers, n = {n}", flush=True)
    with open(os.path.join(args.out, "index.json"), "w") as f:
        json.dump({"opset": 14, "torch": torch.__version__, "models": index}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
