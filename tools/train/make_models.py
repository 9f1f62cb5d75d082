"""Trains the copy-task models, one per positional scheme and seed, all with
the one recipe of recipes.py, and writes:

- for the page's seed (recipes.PAGE_SEED): web/models/copy-<scheme>.safetensors
  (F16, the createEncoder options under the metadata key posenc.config) and
  tests/fixtures/models/copy-<scheme>-logits.safetensors (torch's logits on a
  few evaluation sequences, from exactly the F16 weights);
- for the other seeds: build/models/seed-<seed>/copy-<scheme>.safetensors (not
  committed: their figures are in the manifest);
- web/models/manifest.json: the page's models, and every seed's scores with
  their mean and range;
- the result tables of the docs, wherever their headings are (README.md,
  docs/*.md).

    python3 tools/train/make_models.py [--seeds 3] [--schemes rope,alibi] [--threads 2]
"""
import argparse
import glob
import json
import os
import platform
import time

# Idle OpenMP threads sleep instead of spinning: on a machine whose cores are
# busy with other work, spinning threads made a 2-thread step ~6x slower than
# a 1-thread one (4.6 s against 0.6 s); with passive waiting 2 threads beat 1.
# Read when torch's OpenMP runtime starts, so set before importing torch.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import torch  # noqa: E402

from copy_task import EVAL_NS, EVAL_SEED, TRAIN_MAX_N, TRAIN_MIN_N, VOCAB_SIZE, eval_batch
from evaluate import greedy_exact, teacher_forced
from model import SCHEMES, encoder_config
from recipes import PAGE_SEED, recipe_for
from safetensors_io import write_safetensors
from train import train

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
MODELS = os.path.join(ROOT, "web", "models")
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "models")
SEED_MODELS = os.path.join(ROOT, "build", "models")

# Evaluation sequences per n: as many as posenc's test can score in seconds.
EVAL_COUNT = {8: 64, 16: 64, 32: 64, 48: 64, 64: 64, 96: 32, 128: 32, 192: 16, 256: 16}
# Evaluation sequences (n, index) whose logits become the test fixtures.
FIXTURE_SEQUENCES = ((8, 0), (32, 0), (96, 0))
# The scores kept per seed and summarised over seeds.
SCORES = ("tokenAccuracy", "exactMatch", "greedyExactMatch")


def round_to_f16(model):
    """The weights as the file stores them: each rounded to F16 and back, so
    that every figure below is measured on exactly the committed model."""
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(p.half().float())


def write_model(model, scheme, seed, path):
    metadata = {
        "posenc.config": json.dumps(model.config, separators=(",", ":")),
        "posenc.task": "copy",
        "posenc.scheme": scheme,
        "posenc.seed": str(seed),
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


def read_or_none(path):
    if not os.path.exists(path):
        return None
    with open(path, "rb") as f:
        return f.read()


def write_compared(path, write):
    """Runs write(path) and says whether the file's bytes changed."""
    previous = read_or_none(path)
    write(path)
    if previous is not None:
        # Same torch, same OpenBLAS kernels, same thread count: the same bits.
        # Another CPU (OpenBLAS picks its kernels per CPU) or thread count sums
        # in another order, and the weights differ in their last bits.
        same = read_or_none(path) == previous
        print(f"  {os.path.relpath(path, ROOT)}: {'identical to' if same else 'differs from'} the previous file", flush=True)


def score(model):
    """-> {n: {sequences, tokenAccuracy, exactMatch, greedyExactMatch}}, and
    the CPU seconds it took."""
    cpu_start = time.process_time()
    accuracy = {}
    for n in EVAL_NS:
        count = EVAL_COUNT[n]
        correct = teacher_forced(model, n, count)
        greedy = greedy_exact(model, n, count)
        exact = correct.all(dim=1)
        # The same event (evaluate.py): a difference means a near-tie of logits.
        disagree = int((exact != greedy).sum())
        accuracy[str(n)] = {
            "sequences": count,
            "tokenAccuracy": round(correct.float().mean().item(), 6),
            "exactMatch": round(exact.float().mean().item(), 6),
            "greedyExactMatch": round(greedy.float().mean().item(), 6),
        }
        a = accuracy[str(n)]
        print(f"  n {n:3d}: token accuracy {a['tokenAccuracy']:.4f}, exact match {a['exactMatch']:.4f}, "
              f"greedy exact match {a['greedyExactMatch']:.4f}" + (f" ({disagree} disagree)" if disagree else ""), flush=True)
    return accuracy, time.process_time() - cpu_start


def build(scheme, seed, threads, steps=None):
    """Trains and scores one model; writes its file (and, for the page's seed,
    its logit fixture). -> (the model's manifest entry, this seed's record)"""
    arch, recipe = recipe_for(seed)
    if steps is not None:
        recipe["steps"] = steps
    config = encoder_config(scheme, **arch)
    print(f"{scheme}, seed {seed}: {arch}, {recipe}", flush=True)
    model, loss, seconds, cpu_seconds, _ = train(config, recipe, log=lambda line: print(line, flush=True))
    model.eval()
    round_to_f16(model)
    name = f"copy-{scheme}.safetensors"
    if seed == PAGE_SEED:
        write_compared(os.path.join(MODELS, name), lambda p: write_model(model, scheme, seed, p))
        write_compared(os.path.join(FIXTURES, f"copy-{scheme}-logits.safetensors"), lambda p: write_fixture(model, p))
    else:
        folder = os.path.join(SEED_MODELS, f"seed-{seed}")
        os.makedirs(folder, exist_ok=True)
        write_compared(os.path.join(folder, name), lambda p: write_model(model, scheme, seed, p))
    accuracy, scoring_cpu = score(model)
    record = {
        "seed": seed,
        "trainingSeconds": round(seconds, 1),
        "trainingCpuSeconds": round(cpu_seconds, 1),
        "scoringCpuSeconds": round(scoring_cpu, 1),
        "finalLoss": round(loss, 6),
        "accuracy": accuracy,
    }
    entry = {
        "task": "copy",
        "scheme": scheme,
        "file": name,
        "config": config,
        "trainN": [TRAIN_MIN_N, TRAIN_MAX_N],
        "parameters": sum(p.numel() for p in model.parameters()),
        "threads": threads,
        "steps": recipe["steps"],
        "recipe": {k: v for k, v in recipe.items() if k != "seed"},
    }
    return entry, record


def over_seeds(records):
    """{n: {score: {mean, min, max}}} over the seeds' records."""
    out = {}
    for n in EVAL_NS:
        out[str(n)] = {}
        for key in SCORES:
            values = [r["accuracy"][str(n)][key] for r in records]
            out[str(n)][key] = {"mean": round(sum(values) / len(values), 6), "min": min(values), "max": max(values)}
    return out


def model_entry(entry, records):
    """The manifest's entry of a scheme: the page's model (its file, options,
    training time and scores) and every seed's record, with the summary."""
    records = sorted(records, key=lambda r: r["seed"])
    page = next(r for r in records if r["seed"] == PAGE_SEED)
    return {
        **entry,
        "seed": PAGE_SEED,
        "trainingSeconds": page["trainingSeconds"],
        "trainingCpuSeconds": page["trainingCpuSeconds"],
        "finalLoss": page["finalLoss"],
        "accuracy": page["accuracy"],
        "seeds": records,
        "overSeeds": over_seeds(records),
    }


def kept_records(old, entry, retrained):
    """The seeds of an existing manifest entry that this run keeps: those it
    did not retrain, trained with the same options and recipe."""
    if old is None or old.get("config") != entry["config"] or old.get("recipe") != entry["recipe"]:
        return []
    return [r for r in old.get("seeds", []) if r["seed"] not in retrained]


NAMES = {"none": "`none` (NoPE)", "learned": "`learned`", "sinusoidal": "`sinusoidal`",
         "rope": "`rope`", "alibi": "`alibi`", "t5": "`t5`"}
# The docs' result tables: the Markdown table under each heading, wherever it is.
TABLES = (("### Token accuracy (%) over seeds, teacher-forced", "tokenAccuracy"),
          ("### Greedy exact match (%) over seeds", "greedyExactMatch"))


def percent(x):
    return f"{100 * x:.1f}"


def table_lines(models, key):
    """Mean (min-max) over the seeds, in percent with one decimal."""
    lines = ["| scheme | " + " | ".join(f"n = {n}" for n in EVAL_NS) + " |", "| --- |" + " ---: |" * len(EVAL_NS)]
    for m in models:
        cells = []
        for n in EVAL_NS:
            s = m["overSeeds"][str(n)][key]
            cells.append(f"{percent(s['mean'])} ({percent(s['min'])}–{percent(s['max'])})")
        lines.append(f"| {NAMES[m['scheme']]} | " + " | ".join(cells) + " |")
    return lines


def update_tables(models):
    """Rewrites the Markdown table under each heading of TABLES in README.md
    and docs/*.md, wherever the heading is; says where it wrote them, or that
    no page has them."""
    stale = [m["scheme"] for m in models if "overSeeds" not in m]
    if stale:
        print(f"tables not written: no figures over seeds for {', '.join(stale)} (retrain them)", flush=True)
        return
    pages = [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "**", "*.md"), recursive=True))
    found = set()
    for path in pages:
        with open(path) as f:
            lines = f.read().split("\n")
        rewritten = [(heading, key) for heading, key in TABLES if heading in lines]
        for heading, key in rewritten:
            at = lines.index(heading)
            first = next(i for i in range(at + 1, len(lines)) if lines[i].startswith("|"))
            last = next((i for i in range(first, len(lines)) if not lines[i].startswith("|")), len(lines))
            lines[first:last] = table_lines(models, key)
            print(f"{os.path.relpath(path, ROOT)}: rewrote the table '{heading}'", flush=True)
            found.add(heading)
        if rewritten:
            with open(path, "w") as f:
                f.write("\n".join(lines))
    for heading, key in TABLES:
        if heading not in found:
            print(f"no page has the heading '{heading}'; its table:", *table_lines(models, key), sep="\n", flush=True)

def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3, help=f"train seeds 1..SEEDS (the page's models are seed {PAGE_SEED}'s)")
    parser.add_argument("--schemes", default=",".join(SCHEMES))
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--steps", type=int, help="train this many steps instead of the recipe's (a quick check of the pipeline)")
    args = parser.parse_args()
    if args.seeds < 1:
        parser.error(f"--seeds must be at least 1, got {args.seeds}")
    schemes = args.schemes.split(",")
    for scheme in schemes:
        if scheme not in SCHEMES:
            parser.error(f"unknown scheme {scheme!r} (known: {', '.join(SCHEMES)})")
    seeds = list(range(1, args.seeds + 1))
    torch.set_num_threads(args.threads)
    torch.use_deterministic_algorithms(True)
    os.makedirs(MODELS, exist_ok=True)
    os.makedirs(FIXTURES, exist_ok=True)
    manifest_path = os.path.join(MODELS, "manifest.json")
    old = {}
    if os.path.exists(manifest_path):
        with open(manifest_path) as f:
            old = {e["scheme"]: e for e in json.load(f)["models"]}
    entries = dict(old)
    start, cpu_start = time.time(), time.process_time()
    for scheme in schemes:
        records = []
        for seed in seeds:
            entry, record = build(scheme, seed, args.threads, args.steps)
            records.append(record)
        kept = kept_records(old.get(scheme), entry, seeds)
        if kept:
            print(f"{scheme}: keeps the manifest's figures of seed {', '.join(str(r['seed']) for r in kept)}", flush=True)
        entries[scheme] = model_entry(entry, records + kept)
        # Written after each scheme: a run cut short keeps the schemes it finished.
        run = {"schemes": schemes[:schemes.index(scheme) + 1], "seeds": seeds, "seconds": round(time.time() - start, 1),
               "cpuSeconds": round(time.process_time() - cpu_start, 1), "threads": args.threads}
        manifest = write_manifest(manifest_path, entries, run)
    print(f"done: {run['seconds']:.0f} s wall, {run['cpuSeconds']:.0f} s CPU", flush=True)
    update_tables(manifest["models"])


def write_manifest(manifest_path, entries, run):
    """Writes web/models/manifest.json from the schemes' entries; returns it."""
    manifest = {
        "about": "Tiny causal transformers trained on the copy task, one per positional scheme, identical but for "
                 "the scheme; the files are seed 1's, the scores every seed's (tools/train/README.md)",
        "task": {
            "name": "copy",
            "vocabSize": VOCAB_SIZE,
            "tokens": "0 = BOS, 1 = SEP, 2..17 symbols; [0, s_1..s_n, 1, s_1..s_n]",
            "score": "tokenAccuracy, exactMatch: argmax at the position before each copied symbol (teacher-forced); "
                     "greedyExactMatch: from the prompt [0, s_1..s_n, 1], n tokens generated greedily (argmax, fed "
                     "back), all equal to s_1..s_n",
            "trainN": [TRAIN_MIN_N, TRAIN_MAX_N],
            "evalN": list(EVAL_NS),
            "evalSequences": "symbol j of sequence i at length n: 2 + (lowbias32(lowbias32(lowbias32(seed ^ n) ^ i) ^ j) >>> 28)",
            "evalSeed": EVAL_SEED,
        },
        "pageSeed": PAGE_SEED,
        "torch": torch.__version__,
        "machine": f"{platform.machine()}, {os.cpu_count()} cores",
        "lastRun": run,
        "models": [entries[s] for s in SCHEMES if s in entries],
    }
    with open(manifest_path, "w") as f:
        json.dump(manifest, f, indent=1, ensure_ascii=False)
        f.write("\n")
    return manifest


if __name__ == "__main__":
    main()
