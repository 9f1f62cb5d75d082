"""Trains one copy-task model per positional scheme and writes, for each:
web/models/copy-<scheme>.safetensors (F16, the createEncoder options under
the metadata key posenc.config), tests/fixtures/models/copy-<scheme>-logits.safetensors
(torch's logits on a few evaluation sequences, from exactly the F16 weights),
and its entry in web/models/manifest.json; then README.md's result tables.

    python3 tools/train/make_models.py [--schemes rope,alibi] [--threads 2]
"""
import argparse
import json
import os
import platform

# Idle OpenMP threads sleep instead of spinning: on a machine whose cores are
# busy with other work, spinning threads made a 2-thread step ~6x slower than
# a 1-thread one (4.6 s against 0.6 s); with passive waiting 2 threads beat 1.
# Read when torch's OpenMP runtime starts, so set before importing torch.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import torch  # noqa: E402

from copy_task import EVAL_NS, EVAL_SEED, TRAIN_MAX_N, TRAIN_MIN_N, VOCAB_SIZE, eval_batch
from evaluate import copy_accuracy
from model import SCHEMES, CopyDecoder, encoder_config
from recipes import recipe_for
from safetensors_io import write_safetensors
from train import train

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
MODELS = os.path.join(ROOT, "web", "models")
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "models")

# Evaluation sequences per n: as many as posenc's test can score in seconds.
EVAL_COUNT = {8: 64, 16: 64, 32: 64, 48: 64, 64: 64, 96: 32, 128: 32, 192: 16, 256: 16}
# Evaluation sequences (n, index) whose logits become the test fixtures.
FIXTURE_SEQUENCES = ((8, 0), (32, 0), (96, 0))


def round_to_f16(model):
    """The weights as the file stores them: each rounded to F16 and back, so
    that every figure below is measured on exactly the committed model."""
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(p.half().float())


def write_model(model, scheme, path):
    metadata = {
        "posenc.config": json.dumps(model.config, separators=(",", ":")),
        "posenc.task": "copy",
        "posenc.scheme": scheme,
    }
    tensors = {name: t.half() for name, t in model.state_dict().items()}
    write_safetensors(path, tensors, metadata)


@torch.no_grad()
def write_fixture(model, path):
    tensors = {}
    for n, index in FIXTURE_SEQUENCES:
        tokens = eval_batch(n, index + 1)[index:index + 1]
        tensors[f"tokens.n{n}.i{index}"] = tokens[0].float()
        tensors[f"logits.n{n}.i{index}"] = model(tokens)[0].contiguous()
    write_safetensors(path, tensors, {"about": "torch logits [seq][vocab] of the model file on copy-task evaluation sequences"})


def same_bytes(path, previous):
    with open(path, "rb") as f:
        return f.read() == previous


def read_or_none(path):
    if not os.path.exists(path):
        return None
    with open(path, "rb") as f:
        return f.read()


def build(scheme, threads, steps=None):
    arch, recipe = recipe_for(scheme)
    if steps is not None:
        recipe["steps"] = steps
    config = encoder_config(scheme, **arch)
    print(f"{scheme}: {arch}, {recipe}", flush=True)
    model, loss, seconds, cpu_seconds, _ = train(config, recipe, log=lambda line: print(line, flush=True))
    model.eval()
    round_to_f16(model)
    name = f"copy-{scheme}.safetensors"
    path = os.path.join(MODELS, name)
    previous = read_or_none(path)
    write_model(model, scheme, path)
    if previous is not None:
        # Same torch, same OpenBLAS kernels, same thread count: the same bits.
        # Another CPU (OpenBLAS picks its kernels per CPU) or thread count sums
        # in another order, and the weights differ in their last bits.
        print(f"  {name}: {'identical to' if same_bytes(path, previous) else 'differs from'} the previous file", flush=True)
    write_fixture(model, os.path.join(FIXTURES, f"copy-{scheme}-logits.safetensors"))
    accuracy = {}
    for n in EVAL_NS:
        token, exact = copy_accuracy(model, n, EVAL_COUNT[n])
        accuracy[str(n)] = {"sequences": EVAL_COUNT[n], "tokenAccuracy": round(token, 6), "exactMatch": round(exact, 6)}
        print(f"  n {n:3d}: token accuracy {token:.4f}, exact match {exact:.4f}", flush=True)
    return {
        "task": "copy",
        "scheme": scheme,
        "file": name,
        "config": config,
        "trainN": [TRAIN_MIN_N, TRAIN_MAX_N],
        "parameters": sum(p.numel() for p in model.parameters()),
        "trainingSeconds": round(seconds, 1),
        "trainingCpuSeconds": round(cpu_seconds, 1),
        "threads": threads,
        "steps": recipe["steps"],
        "finalLoss": round(loss, 6),
        "recipe": recipe,
        "accuracy": accuracy,
    }


README_NAMES = {"none": "`none` (NoPE)", "learned": "`learned`", "sinusoidal": "`sinusoidal`",
                "rope": "`rope`", "alibi": "`alibi`", "t5": "`t5`"}
README_TABLES = (("### Token accuracy (%) by scheme and n", "tokenAccuracy"),
                 ("### Exact match (%) by scheme and n", "exactMatch"))


def update_readme(models):
    """Rewrites README.md's two result tables (the Markdown table under each
    heading of README_TABLES) from the manifest's figures: percent, one decimal."""
    path = os.path.join(ROOT, "README.md")
    with open(path) as f:
        lines = f.read().split("\n")
    for heading, key in README_TABLES:
        table = ["| scheme | " + " | ".join(f"n = {n}" for n in EVAL_NS) + " |", "| --- |" + " ---: |" * len(EVAL_NS)]
        for m in models:
            figures = (f"{100 * m['accuracy'][str(n)][key]:.1f}" for n in EVAL_NS)
            table.append(f"| {README_NAMES[m['scheme']]} | " + " | ".join(figures) + " |")
        at = lines.index(heading)
        first = next(i for i in range(at + 1, len(lines)) if lines[i].startswith("|"))
        last = next((i for i in range(first, len(lines)) if not lines[i].startswith("|")), len(lines))
        lines[first:last] = table
    with open(path, "w") as f:
        f.write("\n".join(lines))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--schemes", default=",".join(SCHEMES))
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--steps", type=int, help="train this many steps instead of the recipe's (a quick check of the pipeline)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.use_deterministic_algorithms(True)
    os.makedirs(MODELS, exist_ok=True)
    os.makedirs(FIXTURES, exist_ok=True)
    manifest_path = os.path.join(MODELS, "manifest.json")
    entries = {}
    if os.path.exists(manifest_path):
        with open(manifest_path) as f:
            entries = {e["scheme"]: e for e in json.load(f)["models"]}
    for scheme in args.schemes.split(","):
        if scheme not in SCHEMES:
            parser.error(f"unknown scheme {scheme!r} (known: {', '.join(SCHEMES)})")
        entries[scheme] = build(scheme, args.threads, args.steps)
    manifest = {
        "about": "Tiny causal transformers trained on the copy task, one per positional scheme (tools/train/README.md)",
        "task": {
            "name": "copy",
            "vocabSize": VOCAB_SIZE,
            "tokens": "0 = BOS, 1 = SEP, 2..17 symbols; [0, s_1..s_n, 1, s_1..s_n]",
            "score": "argmax at the position before each copied symbol (teacher-forced)",
            "trainN": [TRAIN_MIN_N, TRAIN_MAX_N],
            "evalN": list(EVAL_NS),
            "evalSequences": "symbol j of sequence i at length n: 2 + (lowbias32(lowbias32(lowbias32(seed ^ n) ^ i) ^ j) >>> 28)",
            "evalSeed": EVAL_SEED,
        },
        "torch": torch.__version__,
        "machine": f"{platform.machine()}, {os.cpu_count()} cores",
        "models": [entries[s] for s in SCHEMES if s in entries],
    }
    with open(manifest_path, "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    update_readme(manifest["models"])


if __name__ == "__main__":
    main()
