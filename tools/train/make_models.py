"""Trains the models of web/models/, one per task, positional scheme, kind of
positions and seed, all with the one recipe of recipes.py, scores them, and
writes:

- for the page's seed (recipes.PAGE_SEED): web/models/<id>.safetensors (F16,
  the createEncoder options under the metadata key posenc.config) and, for
  the models read at positions 0, 1, 2, ..., tests/fixtures/models/<id>-logits.safetensors
  (torch's logits on a few evaluation sequences, from exactly the F16 weights);
- for the other seeds: build/models/seed-<seed>/<id>.safetensors (not
  committed: their figures are in the manifest);
- build/models/records/<id>-seed<seed>.json: each training's time and final loss;
- web/models/manifest.json: every model's scores per seed, with their mean
  and range over the seeds;
- the result tables of the docs, wherever their headings are (README.md,
  docs/*.md).

A model's id is <task>-<scheme>, or <task>-<scheme>-randomized for the
models trained and scored at randomized positions (Ruoss et al. 2023).

    python3 tools/train/make_models.py [--tasks copy,reverse] [--schemes rope,alibi]
        [--positions sequential,randomized] [--seeds 3] [--threads 2]
        [--train-only | --score-only]

--train-only trains and writes the model files and records; --score-only
scores the model files there are (training nothing) and writes the manifest,
fixtures and tables.
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

from evaluate import greedy, summarize, teacher_forced
from model import SCHEMES, CopyDecoder, encoder_config
from recipes import PAGE_SEED, RANDOMIZED_SCHEMES, recipe_for
from safetensors_io import read_safetensors, write_safetensors
from tasks import (EVAL_NS, EVAL_SEED, MAX_POSITION, POSITION_SEED, TASKS, TRAIN_MAX_N, TRAIN_MIN_N,
                   VOCAB_SIZE, eval_batch)
from train import train

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
MODELS = os.path.join(ROOT, "web", "models")
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "models")
SEED_MODELS = os.path.join(ROOT, "build", "models")
RECORDS = os.path.join(SEED_MODELS, "records")

# Evaluation sequences per n: as many as posenc's test can score in seconds.
EVAL_COUNT = {8: 64, 16: 64, 32: 64, 48: 64, 64: 64, 96: 32, 128: 32, 192: 16, 256: 16}
# Evaluation sequences (n, index) whose logits become the test fixtures.
FIXTURE_SEQUENCES = ((8, 0), (32, 0), (96, 0))
# The measures summarised over seeds (evaluate.py and docs/models.md define them).
MEASURES = ("tokenAccuracy", "exactMatch", "greedyTokenAccuracy", "correctPrefix", "loss")
POSITIONS = ("sequential", "randomized")


def model_id(task, scheme, positions):
    return f"{task}-{scheme}" + ("-randomized" if positions == "randomized" else "")


def model_path(ident, seed):
    if seed == PAGE_SEED:
        return os.path.join(MODELS, f"{ident}.safetensors")
    return os.path.join(SEED_MODELS, f"seed-{seed}", f"{ident}.safetensors")


def record_path(ident, seed):
    return os.path.join(RECORDS, f"{ident}-seed{seed}.json")


def plan(tasks, schemes, positions):
    """The (task, scheme, positions) of every model to build, in the manifest's order."""
    out = []
    for task in tasks:
        for kind in positions:
            for scheme in schemes:
                if kind == "sequential" or scheme in RANDOMIZED_SCHEMES:
                    out.append((task, scheme, kind))
    return out


def config_of(scheme, positions, seed):
    arch, recipe = recipe_for(seed)
    if positions == "randomized" and scheme == "learned":
        arch["max_length"] = MAX_POSITION  # a row for every id the positions are drawn from
    return encoder_config(scheme, **arch), recipe


def round_to_f16(model):
    """The weights as the file stores them: each rounded to F16 and back, so
    that every figure below is measured on exactly the committed model."""
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(p.half().float())


def write_model(model, task, scheme, positions, seed, path):
    metadata = {
        "posenc.config": json.dumps(model.config, separators=(",", ":")),
        "posenc.task": task,
        "posenc.scheme": scheme,
        "posenc.seed": str(seed),
    }
    if positions == "randomized":
        metadata["posenc.positions"] = json.dumps({"type": "randomized", "maxPosition": MAX_POSITION}, separators=(",", ":"))
    tensors = {name: t.half() for name, t in model.state_dict().items()}
    write_safetensors(path, tensors, metadata)


def load_model(path):
    """-> (CopyDecoder with the file's weights as float32, eval mode; metadata)"""
    tensors, metadata = read_safetensors(path)
    model = CopyDecoder(json.loads(metadata["posenc.config"]))
    model.load_state_dict({k: v.float() for k, v in tensors.items()})
    return model.eval(), metadata


@torch.no_grad()
def write_fixture(model, task, path):
    tensors = {}
    for n, index in FIXTURE_SEQUENCES:
        tokens = eval_batch(task, n, index + 1)[index:index + 1]
        tensors[f"tokens.n{n}.i{index}"] = tokens[0].float()
        tensors[f"logits.n{n}.i{index}"] = model(tokens)[0].contiguous()
    write_safetensors(path, tensors, {"about": f"torch logits [seq][vocab] of the model file on {task}-task evaluation sequences"})


def update_fixture(model, task, path):
    """Writes the logit fixture of a page model, unless the file there holds
    the same tokens and logits within 1e-4 of each row's largest (the bound
    of tests/encoder/trained-models.test.js): torch on another run of the same weights sums
    some products in another order (up to about 1e-5 relative past the
    training length, measured on these files), which is no reason to
    rewrite them."""
    if os.path.exists(path):
        old, _ = read_safetensors(path)
        scratch = path + ".new"
        write_fixture(model, task, scratch)
        new, _ = read_safetensors(scratch)
        same = old.keys() == new.keys() and all(
            torch.equal(old[k], new[k]) if k.startswith("tokens.") else
            bool(((old[k] - new[k]).abs() <= 1e-4 * new[k].abs().amax(-1, keepdim=True)).all())
            for k in new)
        if same:
            os.remove(scratch)
            print(f"  {os.path.relpath(path, ROOT)}: kept (the same logits within 1e-4)", flush=True)
            return
        os.replace(scratch, path)
        print(f"  {os.path.relpath(path, ROOT)}: rewritten (its logits differ)", flush=True)
        return
    write_fixture(model, task, path)
    print(f"  {os.path.relpath(path, ROOT)}: written", flush=True)


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


def train_one(task, scheme, positions, seed, threads, steps=None):
    """Trains one model, writes its file and its training record."""
    ident = model_id(task, scheme, positions)
    config, recipe = config_of(scheme, positions, seed)
    if steps is not None:
        recipe["steps"] = steps
    print(f"{ident}, seed {seed}: {recipe}", flush=True)
    model, loss, seconds, cpu_seconds, _ = train(config, recipe, task, MAX_POSITION if positions == "randomized" else None,
                                                 log=lambda line: print(line, flush=True))
    model.eval()
    round_to_f16(model)
    path = model_path(ident, seed)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    write_compared(path, lambda p: write_model(model, task, scheme, positions, seed, p))
    record = {"seed": seed, "trainingSeconds": round(seconds, 1), "trainingCpuSeconds": round(cpu_seconds, 1),
              "finalLoss": round(loss, 6), "threads": threads, "steps": recipe["steps"],
              "recipe": {k: v for k, v in recipe.items() if k != "seed"}, "config": config}
    os.makedirs(RECORDS, exist_ok=True)
    with open(record_path(ident, seed), "w") as f:
        json.dump(record, f, indent=1)
    print(f"  trained in {seconds:.0f} s wall, {cpu_seconds:.0f} s CPU, final loss {loss:.5f}", flush=True)


def score(model, task, randomized):
    """-> ({n: the measures of evaluate.summarize}, CPU seconds)"""
    cpu_start = time.process_time()
    scores = {}
    for n in EVAL_NS:
        count = EVAL_COUNT[n]
        right, loss = teacher_forced(model, task, n, count, randomized)
        greedy_right = greedy(model, task, n, count, randomized)
        s = scores[str(n)] = summarize(right, loss, greedy_right)
        # greedy's exact match is teacher forcing's (evaluate.py): a difference is a near-tie of logits
        disagree = int((right.all(1) != greedy_right.all(1)).sum())
        print(f"  n {n:3d}: token accuracy {s['tokenAccuracy']:.4f} (greedy {s['greedyTokenAccuracy']:.4f}), exact "
              f"{s['exactMatch']:.4f}, prefix {s['correctPrefix']:.2f}, loss {s['loss']:.3f}"
              + (f" ({disagree} exact matches disagree)" if disagree else ""), flush=True)
    return scores, time.process_time() - cpu_start


def training_record(ident, seed, old_entry, config, recipe):
    """This seed's training record: the file train_one wrote, else the old
    manifest's (same options and recipe), else None."""
    path = record_path(ident, seed)
    if os.path.exists(path):
        with open(path) as f:
            record = json.load(f)
        return {k: record[k] for k in ("seed", "trainingSeconds", "trainingCpuSeconds", "finalLoss")}
    if old_entry and old_entry.get("config") == config and old_entry.get("recipe") == recipe:
        for r in old_entry.get("seeds", []):
            if r["seed"] == seed:
                return {k: r[k] for k in ("seed", "trainingSeconds", "trainingCpuSeconds", "finalLoss")}
    return None


def over_seeds(records):
    """{n: {measure: {mean, min, max}, perPosition: [mean per position]}} over the seeds' records."""
    out = {}
    for n in EVAL_NS:
        cell = {}
        for key in MEASURES:
            values = [r["scores"][str(n)][key] for r in records]
            cell[key] = {"mean": round(sum(values) / len(values), 6), "min": min(values), "max": max(values)}
        rows = [r["scores"][str(n)]["perPosition"] for r in records]
        cell["perPosition"] = [round(sum(col) / len(col), 6) for col in zip(*rows)]
        out[str(n)] = cell
    return out


def score_model(task, scheme, positions, seeds, threads, old_entry):
    """Scores every seed's file of one model; writes the page seed's fixture.
    -> the manifest's entry, or None when no file is there."""
    ident = model_id(task, scheme, positions)
    records = []
    entry = None
    for seed in seeds:
        path = model_path(ident, seed)
        if not os.path.exists(path):
            print(f"{ident}, seed {seed}: no file {os.path.relpath(path, ROOT)}, not scored", flush=True)
            continue
        model, metadata = load_model(path)
        config, recipe = config_of(scheme, positions, seed)
        recipe = {k: v for k, v in recipe.items() if k != "seed"}
        if model.config != config:
            raise SystemExit(f"{path}: its options differ from the recipe's (retrain it)")
        trained = training_record(ident, seed, old_entry, config, recipe)
        if trained is None:
            raise SystemExit(f"{ident}, seed {seed}: no training record (build/models/records/) and none in the manifest: retrain it")
        print(f"{ident}, seed {seed}: scoring", flush=True)
        if seed == PAGE_SEED and positions == "sequential":
            update_fixture(model, task, os.path.join(FIXTURES, f"{ident}-logits.safetensors"))
        scores, scoring_cpu = score(model, task, MAX_POSITION if positions == "randomized" else None)
        records.append({**trained, "scoringCpuSeconds": round(scoring_cpu, 1), "scores": scores})
        if entry is None or seed == PAGE_SEED:
            entry = {
                "id": ident, "task": task, "scheme": scheme, "positions": positions,
                "file": f"{ident}.safetensors", "config": config,
                "trainN": [TRAIN_MIN_N, TRAIN_MAX_N],
                "parameters": sum(p.numel() for p in model.parameters()),
                "threads": threads, "steps": recipe["steps"], "recipe": recipe,
            }
    if not records:
        return None
    # the seeds with no file here (SEEDS=1 on a fresh checkout): the old manifest's figures, when
    # they come from the same options and recipe and have every measure
    scored = {r["seed"] for r in records}
    if old_entry and old_entry.get("config") == entry["config"] and old_entry.get("recipe") == entry["recipe"]:
        kept = [r for r in old_entry.get("seeds", []) if r["seed"] not in scored and "scores" in r]
        if kept:
            print(f"{ident}: keeps the manifest's figures of seed {', '.join(str(r['seed']) for r in kept)}", flush=True)
        records = sorted(records + kept, key=lambda r: r["seed"])
    return {**entry, "seeds": records, "overSeeds": over_seeds(records)}


NAMES = {"none": "`none` (NoPE)", "learned": "`learned`", "sinusoidal": "`sinusoidal`",
         "rope": "`rope`", "alibi": "`alibi`", "t5": "`t5`"}
# The docs' result tables: (heading, task, measure, as percent), the Markdown table under each heading, wherever it is.
TABLES = tuple(
    (f"### {title}, {task}", task, key, percent)
    for task in TASKS
    for title, key, percent in (("Token accuracy (%), teacher-forced", "tokenAccuracy", True),
                                ("Greedy token accuracy (%)", "greedyTokenAccuracy", True),
                                ("Correct prefix (tokens)", "correctPrefix", False),
                                ("Loss (nats)", "loss", False))
)


def cell(value, percent):
    return f"{100 * value:.1f}" if percent else f"{value:.2f}"


def table_lines(models, task, key, percent):
    """Mean (min-max) over the seeds, one row per model of the task."""
    lines = ["| model | " + " | ".join(f"n = {n}" for n in EVAL_NS) + " |", "| --- |" + " ---: |" * len(EVAL_NS)]
    for m in models:
        if m["task"] != task:
            continue
        cells = []
        for n in EVAL_NS:
            s = m["overSeeds"][str(n)][key]
            cells.append(f"{cell(s['mean'], percent)} ({cell(s['min'], percent)}–{cell(s['max'], percent)})")
        name = NAMES[m["scheme"]] + (", randomized" if m["positions"] == "randomized" else "")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def update_tables(models):
    """Rewrites the Markdown table under each heading of TABLES in README.md
    and docs/*.md, wherever the heading is; says where it wrote them, or that
    no page has them."""
    pages = [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "**", "*.md"), recursive=True))
    found = set()
    for path in pages:
        with open(path) as f:
            lines = f.read().split("\n")
        rewritten = [t for t in TABLES if t[0] in lines]
        for heading, task, key, percent in rewritten:
            at = lines.index(heading)
            first = next(i for i in range(at + 1, len(lines)) if lines[i].startswith("|"))
            last = next((i for i in range(first, len(lines)) if not lines[i].startswith("|")), len(lines))
            lines[first:last] = table_lines(models, task, key, percent)
            print(f"{os.path.relpath(path, ROOT)}: rewrote the table '{heading}'", flush=True)
            found.add(heading)
        if rewritten:
            with open(path, "w") as f:
                f.write("\n".join(lines))
    for heading, task, key, percent in TABLES:
        if heading not in found:
            print(f"no page has the heading '{heading}'; its table:", *table_lines(models, task, key, percent), sep="\n", flush=True)


def dump(value, indent=0):
    """JSON with one item per line, but a list of numbers on one line (the
    per-position arrays would take thousands of lines)."""
    pad = " " * indent
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = [f'{pad} {json.dumps(k)}: {dump(v, indent + 1)}' for k, v in value.items()]
        return "{\n" + ",\n".join(items) + f"\n{pad}}}"
    if isinstance(value, list) and value and not all(isinstance(v, (int, float)) for v in value):
        items = [f"{pad} {dump(v, indent + 1)}" for v in value]
        return "[\n" + ",\n".join(items) + f"\n{pad}]"
    return json.dumps(value, ensure_ascii=False, separators=(",", ":") if isinstance(value, list) else (", ", ": "))


def write_manifest(entries, run):
    """Writes web/models/manifest.json from the models' entries; returns it."""
    manifest = {
        "about": "Tiny causal transformers trained on two tasks, one per positional scheme (and for learned and RoPE "
                 "positions a second trained at randomized positions), identical but for the scheme; the files are "
                 "seed 1's, the scores every seed's. docs/models.md defines every measure; tools/train/README.md "
                 "says how they were trained",
        "tasks": {
            "copy": "[0, s_1..s_n, 1, s_1..s_n]",
            "reverse": "[0, s_1..s_n, 1, s_n..s_1]",
        },
        "vocabSize": VOCAB_SIZE,
        "tokens": "0 = BOS, 1 = SEP, 2..17 symbols",
        "trainN": [TRAIN_MIN_N, TRAIN_MAX_N],
        "evalN": list(EVAL_NS),
        "evalSequences": "symbol j of sequence i at length n: 2 + (lowbias32(lowbias32(lowbias32(evalSeed ^ n) ^ i) ^ j) >>> 28)",
        "evalSeed": EVAL_SEED,
        "randomizedPositions": {
            "maxPosition": MAX_POSITION,
            "positionSeed": POSITION_SEED,
            "evalPositions": "the 2n + 2 ids c of [0, maxPosition) with the smallest (lowbias32(lowbias32(lowbias32("
                             "positionSeed ^ n) ^ i) ^ c), c), sorted ascending",
        },
        "measures": {
            "tokenAccuracy": "teacher-forced: share of target tokens t_i whose row (n + i) has its argmax at t_i",
            "exactMatch": "teacher-forced: share of sequences with every target token right",
            "greedyTokenAccuracy": "share of target tokens right when the model generates n tokens from [0, s_1..s_n, 1], "
                                   "each its argmax, fed back",
            "correctPrefix": "teacher-forced: mean number of leading target tokens right",
            "loss": "teacher-forced: mean over target tokens of logsumexp(row) - row[t_i], nats, in float64 from the "
                    "float32 logits",
            "perPosition": "teacher-forced: per i = 1..n, the share of sequences with t_i right",
        },
        "pageSeed": PAGE_SEED,
        "torch": torch.__version__,
        "machine": f"{platform.machine()}, {os.cpu_count()} cores",
        "lastRun": run,
        "models": entries,
    }
    with open(os.path.join(MODELS, "manifest.json"), "w") as f:
        f.write(dump(manifest) + "\n")
    return manifest


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3, help=f"train seeds 1..SEEDS (the page's models are seed {PAGE_SEED}'s)")
    parser.add_argument("--only-seeds", help="train only these seeds (e.g. 2,3); the manifest still scores 1..SEEDS")
    parser.add_argument("--tasks", default=",".join(TASKS))
    parser.add_argument("--schemes", default=",".join(SCHEMES))
    parser.add_argument("--positions", default=",".join(POSITIONS))
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--steps", type=int, help="train this many steps instead of the recipe's (a quick check of the pipeline)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--train-only", action="store_true", help="train and write the model files, score nothing")
    mode.add_argument("--score-only", action="store_true", help="score the model files there are, train nothing")
    args = parser.parse_args()
    if args.seeds < 1:
        parser.error(f"--seeds must be at least 1, got {args.seeds}")
    lists = {}
    for name, known in (("tasks", TASKS), ("schemes", SCHEMES), ("positions", POSITIONS)):
        lists[name] = getattr(args, name).split(",")
        for value in lists[name]:
            if value not in known:
                parser.error(f"unknown {name[:-1]} {value!r} (known: {', '.join(known)})")
    seeds = list(range(1, args.seeds + 1))
    train_seeds = [int(s) for s in args.only_seeds.split(",")] if args.only_seeds else seeds
    models = plan(lists["tasks"], lists["schemes"], lists["positions"])
    torch.set_num_threads(args.threads)
    torch.use_deterministic_algorithms(True)
    os.makedirs(MODELS, exist_ok=True)
    os.makedirs(FIXTURES, exist_ok=True)
    start, cpu_start = time.time(), time.process_time()
    if not args.score_only:
        for task, scheme, positions in models:
            for seed in train_seeds:
                train_one(task, scheme, positions, seed, args.threads, args.steps)
        print(f"trained: {time.time() - start:.0f} s wall, {time.process_time() - cpu_start:.0f} s CPU", flush=True)
        if args.train_only:
            return
    manifest_path = os.path.join(MODELS, "manifest.json")
    old = {}
    if os.path.exists(manifest_path):
        with open(manifest_path) as f:
            old = {m.get("id", f"copy-{m['scheme']}"): m for m in json.load(f)["models"]}
    entries = dict(old)
    for task, scheme, positions in models:
        ident = model_id(task, scheme, positions)
        entry = score_model(task, scheme, positions, seeds, args.threads, old.get(ident))
        if entry is not None:
            entries[ident] = entry
    order = [model_id(*m) for m in plan(TASKS, SCHEMES, POSITIONS)]
    kept = [entries[i] for i in order if i in entries and "id" in entries[i]]
    run = {"tasks": lists["tasks"], "schemes": lists["schemes"], "positions": lists["positions"], "seeds": seeds,
           "trained": not args.score_only, "seconds": round(time.time() - start, 1),
           "cpuSeconds": round(time.process_time() - cpu_start, 1), "threads": args.threads}
    manifest = write_manifest(kept, run)
    print(f"done: {run['seconds']:.0f} s wall, {run['cpuSeconds']:.0f} s CPU", flush=True)
    update_tables(manifest["models"])


if __name__ == "__main__":
    main()
