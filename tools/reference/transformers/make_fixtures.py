"""make_fixtures.py: posenc's RoPE fixtures from transformers' own code.

    /usr/bin/python3 tools/reference/transformers/make_fixtures.py /path/to/transformers [--inventory-only]

Writes tests/fixtures/transformers/:
- model-types.json: every model_type of CONFIG_MAPPING and what its model uses for
  positions (inventory.py);
- rope-*.json: for every model_type whose model uses RoPE, its class defaults
  ({"model_type": ...}), the config.json transformers writes for them (to_dict), a few
  variants of them, and the real config.json files of tests/fixtures/hf-configs/, each
  run layer by layer (harness.py): the frequencies, attention factor and cos/sin at
  sampled positions, the vectors the model's apply function rotates, per-position query
  scales, NoPE layers, or the error transformers raises.
"""

import hashlib
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
CONFIGS = os.path.join(ROOT, "tests", "fixtures", "hf-configs")
OUT = os.path.join(ROOT, "tests", "fixtures", "transformers")
COMMIT = "ace7c37014"
MAX_FILE = 900 * 1024  # each fixture file stays under 1 MiB

# Variants of each model type's class defaults: keys a config.json may add, each read
# by some path of transformers (the rope dict, the theta, the partial rotary factor).
VARIANTS = {
    "theta": {"rope_theta": 12345.0},
    "linear": {"rope_scaling": {"rope_type": "linear", "factor": 2.0}},
    "partial": {"partial_rotary_factor": 0.5},
    "yarn": {"rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 2048}},
    "dynamic": {"rope_scaling": {"type": "dynamic", "factor": 2.0}},
}


# Class defaults transformers itself cannot build into a working model (a None it then
# computes with, or no attention layer at all), and the keys that complete them, as the
# real config.json files of these models set them. Each completed config is a case of
# its own; the bare defaults stay a case too (transformers' error is its expectation).
COMPLETIONS = {
    "dbrx": {"attn_config": {"rope_theta": 500000, "clip_qkv": 8}},
    "dots1": {"num_local_experts": 4, "moe_intermediate_size": 64, "n_shared_experts": 1},
    "esm": {"vocab_size": 33, "position_embedding_type": "rotary"},
    "nemotron": {"num_key_value_heads": 8},
    "glm4_moe": {"head_dim": 128},  # GLM-4.5's config.json; the class has no head_dim default (4096 / 96 = 42)
    "granitemoehybrid": {"num_hidden_layers": 4, "layer_types": ["mamba", "attention", "mamba", "attention"],
                         "position_embedding_type": "rope"},
    "lfm2_moe": {"num_hidden_layers": 4, "layer_types": ["conv", "full_attention", "conv", "full_attention"]},
    "hunyuan_v1_dense": {"head_dim": 128},
    "hunyuan_v1_moe": {"head_dim": 128},
    "ministral": {"head_dim": 128},
    "bamba": {"attn_layer_indices": [1, 3]},
    "zamba2": {"use_mem_rope": True},
    "qwen2_vl": {"rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]}},
    # ChameleonModel and Emu3's model map the image token at build time; T5Gemma 2's encoder reads dropout_rate
    "chameleon": {"vocabulary_map": {"<image>": 8711}},
    "emu3": {"vocabulary_map": {"<image>": 8711}},
    "t5gemma2_encoder": {"text_config": {"dropout_rate": 0.0}},
    "qwen2_5_omni": {"thinker_config": {"text_config": {"rope_scaling": {"rope_type": "default", "mrope_section": [16, 24, 24]}}}},
    "colqwen2": {"vlm_config": {"model_type": "qwen2_vl", "text_config": {"rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]}}}},
    "paddleocr_vl": {"text_config": {"rope_scaling": {"rope_type": "default", "mrope_section": [16, 24, 24]}}},
    "qwen3_omni_moe": {"thinker_config": {"text_config": {"head_dim": 128}}},
    "glm4v": {"text_config": {"partial_rotary_factor": 0.5, "rope_parameters": {"rope_type": "default", "mrope_section": [8, 12, 12]}}},
    "glm46v": {"text_config": {"partial_rotary_factor": 0.5, "rope_parameters": {"rope_type": "default", "mrope_section": [8, 12, 12]}}},
    "glm4v_text": {"partial_rotary_factor": 0.5, "rope_parameters": {"rope_type": "default", "mrope_section": [8, 12, 12]}},
    "glm4v_moe": {"text_config": {"head_dim": 128, "rope_parameters": {"rope_type": "default", "mrope_section": [8, 12, 12]}}},
    "glm4v_moe_text": {"head_dim": 128, "rope_parameters": {"rope_type": "default", "mrope_section": [8, 12, 12]}},
    "glm_ocr": {"text_config": {"partial_rotary_factor": 0.5, "rope_parameters": {"rope_type": "default", "mrope_section": [8, 12, 12]}}},
    "glm_ocr_text": {"partial_rotary_factor": 0.5, "rope_parameters": {"rope_type": "default", "mrope_section": [8, 12, 12]}},
    "glm_image": {"text_config": {"partial_rotary_factor": 0.5, "rope_parameters": {"rope_type": "default", "mrope_section": [8, 12, 12]}}},
    "glm_image_text": {"partial_rotary_factor": 0.5, "rope_parameters": {"rope_type": "default", "mrope_section": [8, 12, 12]}},
    "qwen2_5_vl": {"rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]}},
    "qwen2_vl_text": {"rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]}},
    "qwen2_5_vl_text": {"rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]}},
}

# Cases of their own for what a model's class defaults and the variants above do not
# reach: keys only one family reads, and composites whose text config names another
# model_type (read with that class's defaults) or leaves its keys out.
_PHIMOE_FACTORS = [1.0 + k / 32 for k in range(64)]  # head_dim 128: 64 factors, synthetic values
EXTRA = {
    "deepseek_v3": {"interleave off": {"rope_interleave": False}},
    "glm4_moe_lite": {"interleave off": {"rope_interleave": False}},
    "longcat_flash": {"interleave off": {"rope_interleave": False}},
    "youtu": {"interleave off": {"rope_interleave": False}},
    "phimoe": {
        "longrope equal mscales": {"rope_scaling": {"rope_type": "longrope", "short_factor": _PHIMOE_FACTORS,
                                                    "long_factor": _PHIMOE_FACTORS[::-1], "short_mscale": 1.243163121016122,
                                                    "long_mscale": 1.243163121016122, "original_max_position_embeddings": 4096}},
        "longrope differing mscales": {"rope_scaling": {"rope_type": "longrope", "short_factor": _PHIMOE_FACTORS,
                                                        "long_factor": _PHIMOE_FACTORS[::-1], "short_mscale": 1.1,
                                                        "long_mscale": 1.3, "original_max_position_embeddings": 4096}},
        "yarn equal mscales": {"rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768,
                                                "short_mscale": 1.25, "long_mscale": 1.25}},
    },
    "llava": {"mistral text": {"text_config": {"model_type": "mistral"}},
              "qwen2 text": {"text_config": {"model_type": "qwen2", "num_hidden_layers": 4}}},
    "mistral3": {"ministral3 text": {"text_config": {"model_type": "ministral3"}}},
    "gemma3": {"empty text": {"text_config": {}}},
    "qwen2_vl": {"text without heads": {"text_config": {"rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]}}}},
}


def g(v):
    """A float as the shortest text that reads back as the same double."""
    return float(repr(float(v)))


def sample_dims(half):
    return sorted({0, 1, half // 3, half // 2, half - 2, half - 1} & set(range(half)))


def sample_columns(width, rotary):
    """The columns of a rotated vector kept in the fixture: every one up to 64, else the
    edges of each half of the rotary part and of the features it leaves alone."""
    if width <= 64:
        return list(range(width))
    half = rotary // 2
    keep = {0, 1, 2, 3, half - 2, half - 1, half, half + 1, rotary - 2, rotary - 1, width - 2, width - 1}
    keep |= {rotary, rotary + 1} if rotary < width else set()
    return sorted(c for c in keep if 0 <= c < width)


def compact(result):
    """A layer's result with its tables sampled (dims) and its rotated rows sampled (columns)."""
    out = dict(result)
    if "tables" in result:
        for key in ("tables", "short"):
            if key in result:
                t = dict(result[key])
                dims = sample_dims(len(t["invFreq"]))
                t["dims"] = dims
                t["cos"] = [[g(row[k]) for k in dims] for row in t["cos"]]
                t["sin"] = [[g(row[k]) for k in dims] for row in t["sin"]]
                t["invFreq"] = [g(v) for v in t["invFreq"]]
                t["attentionFactor"] = g(t["attentionFactor"])
                out[key] = t
        a = dict(result["apply"])
        rotary = 2 * len(result["tables"]["invFreq"])
        cols = sample_columns(a["width"], rotary)
        a["columns"] = cols
        a["rows"] = [[float("%.12g" % row[c]) for c in cols] for row in a["rows"]]
        out["apply"] = a
    return out


def run_config(harness, d):
    """Every picked layer of one config: {'layers': [{'layer', ...result | noRope | error}]},
    or {'error'} when transformers cannot read the config or build its model."""
    from harness import TransformersFailed

    try:
        config, text = harness.read(d)
        model = harness.build(text, config)
        picks = harness.layers_of(text, model)
    except TransformersFailed as error:
        return {"error": str(error)[:300]}
    except Exception as error:  # noqa: BLE001 - e.g. a text config transformers leaves a dict
        return {"error": f"model: {type(error).__name__}: {error}"[:300]}
    layers = []
    for layer in picks:
        try:
            layers.append({"layer": layer, **compact(harness.layer(text, model, layer))})
        except TransformersFailed as error:
            layers.append({"layer": layer, "error": str(error)[:300]})
    return {"layers": layers}


def main(argv):
    only_inventory = "--inventory-only" in argv
    argv = [a for a in argv if a != "--inventory-only"]
    if len(argv) != 2:
        sys.exit("usage: make_fixtures.py /path/to/transformers [--inventory-only] (a checkout: its src/ is imported)")
    sys.path.insert(0, HERE)
    import stubs

    stubs.install(os.path.join(argv[1], "src"))
    stubs.float64_mode()
    import warnings

    warnings.filterwarnings("ignore")
    from transformers.models.auto import configuration_auto
    from transformers.utils import logging

    logging.set_verbosity_error()
    from harness import Harness
    from inventory import inventory

    harness = Harness()
    types = inventory(harness, configuration_auto, COMPLETIONS)
    os.makedirs(OUT, exist_ok=True)
    write(os.path.join(OUT, "model-types.json"), {"transformersCommit": COMMIT, "modelTypes": types})
    if only_inventory:
        return

    cases = []
    for model_type, row in types.items():
        if row.get("scheme") != "rope":
            continue
        base = {"model_type": model_type}
        cases.append({"id": f"{model_type} defaults", "modelType": model_type, "config": base})
        if model_type in COMPLETIONS:
            base = {**base, **COMPLETIONS[model_type]}
            cases.append({"id": f"{model_type} completed", "modelType": model_type, "config": base})
        try:
            config, _ = harness.read(base)
            written = json.loads(config.to_json_string(use_diff=False))
            cases.append({"id": f"{model_type} to_dict", "modelType": model_type, "config": written})
        except Exception:  # noqa: BLE001 - transformers cannot build these defaults: the case above says so
            pass
        for name, extra in EXTRA.get(model_type, {}).items():
            cases.append({"id": f"{model_type} {name}", "modelType": model_type, "config": {**base, **extra}})
        key = row.get("textKey")
        nested = key and key != "(flat)"
        for name, extra in VARIANTS.items():
            if nested:  # a composite: the keys go into its text config, which names no model_type
                *outer, last = key.split(".")
                config = json.loads(json.dumps(base))
                node = config
                for part in outer:
                    node = node.setdefault(part, {})
                node[last] = {**node.get(last, {}), **extra}
            else:
                config = {**base, **extra}
            cases.append({"id": f"{model_type} {name}", "modelType": model_type, "config": config})
    for sub in ("", "synthetic"):
        folder = os.path.join(CONFIGS, sub)
        for f in sorted(os.listdir(folder)):
            if f.endswith(".json"):
                d = json.load(open(os.path.join(folder, f)))
                row = types.get(d.get("model_type"))
                if row and row.get("scheme") == "rope":
                    cases.append({"id": os.path.join(sub, f), "file": os.path.join(sub, f), "config": d})
    results = {}
    for case in cases:
        run = run_config(harness, case["config"])
        if "file" in case:
            del case["config"]
        case.update(dedup(run, results))
        print(case["id"], "error" if "error" in run else len(run["layers"]), flush=True)
    shards = shard(cases, results)
    for i, (shard_cases, shard_results) in enumerate(shards):
        write(os.path.join(OUT, f"rope-{i}.json"), {"transformersCommit": COMMIT, "cases": shard_cases, "results": shard_results})


def dedup(run, results):
    """Layers whose results are equal share one entry of `results`, by key."""
    if "layers" not in run:
        return run
    layers = []
    for entry in run["layers"]:
        if "apply" in entry:
            body = {k: v for k, v in entry.items() if k != "layer"}
            key = hashlib.sha1(json.dumps(body, sort_keys=True).encode()).hexdigest()[:12]
            results[key] = body
            layers.append({"layer": entry["layer"], "result": key})
        else:
            layers.append(entry)
    return {"layers": layers}


def shard(cases, results):
    """Cases and the results they use, in files under MAX_FILE bytes."""
    shards, current, used = [], [], {}
    for case in cases:
        keys = {l["result"] for l in case.get("layers", []) if "result" in l}
        trial = used | {k: results[k] for k in keys}
        if current and len(json.dumps({"cases": current + [case], "results": trial})) > MAX_FILE:
            shards.append((current, used))
            current, used = [], {}
            trial = {k: results[k] for k in keys}
        current.append(case)
        used = trial
    if current:
        shards.append((current, used))
    return shards


def write(path, data):
    with open(path, "w") as f:
        json.dump(data, f, separators=(",", ":"), sort_keys=False)
        f.write("\n")
    print(path, os.path.getsize(path), flush=True)


if __name__ == "__main__":
    main(sys.argv)
