"""make_rope_fixtures.py: writes tests/fixtures/reference-rope/*.json from hf_rope.py.

Run from the repository root: /usr/bin/python3 tools/reference/make_rope_fixtures.py
(numpy for the float64 values; torch only for the float32-gap file). Not run by make test.
"""

import json
import math
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import hf_rope as hf  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
CONFIGS = os.path.join(ROOT, "tests", "fixtures", "hf-configs")
OUT = os.path.join(ROOT, "tests", "fixtures", "reference-rope")

POSITIONS = [0, 1, 2, 7, 100, 4095, 131071]   # cos/sin samples
APPLY_POSITIONS = [3, 131071]                  # rows of the applied x
APPLY_HEADS = 2
SEED = 19                                      # hf.fixture_x seed
SEQ_LEN = max(POSITIONS) + 1                   # HF's forward: max(position_ids) + 1


def g12(a):
    return [float("%.12g" % v) for v in np.ravel(a)]


def sample_dims(half):
    return sorted({0, 1, half // 3, half // 2, half - 2, half - 1} & set(range(half)))


def case(spec):
    """Expected values of one resolved spec."""
    half = spec["rotaryDim"] // 2
    sc = spec.get("scaling")
    t = sc["type"] if sc else "default"
    seq = SEQ_LEN if t in ("dynamic", "longrope") else None
    inv, att = hf.rope_frequencies(spec, seq)
    dims = sample_dims(half)
    mrope = spec.get("mropeSection")
    if mrope:
        # three axes: text-like rows (all equal) and a vision-like row (t, h, w differ)
        pos3 = [[0, 7, 100, 131071], [0, 7, 3, 131071], [0, 7, 5, 131071]]
        cos, sin = hf.half_cache(inv, att, pos3, mrope, spec.get("mropeInterleaved", False))
        positions = pos3
    else:
        cos, sin = hf.half_cache(inv, att, POSITIONS)
        positions = POSITIONS
    out = {
        "seqLength": seq, "invFreq": [float(v) for v in inv], "attentionFactor": att,
        "positions": positions, "dims": dims,
        "cos": g12(cos[:, dims]), "sin": g12(sin[:, dims]),
    }
    if not mrope:
        head_dim = spec["headDim"]
        x = hf.fixture_x(len(APPLY_POSITIONS) * APPLY_HEADS * head_dim, SEED)
        c, s = hf.half_cache(inv, att, APPLY_POSITIONS)
        y = hf.apply_rope(x, c, s, APPLY_HEADS, head_dim, spec["layout"])
        out["apply"] = {"positions": APPLY_POSITIONS, "heads": APPLY_HEADS, "headDim": head_dim, "seed": SEED,
                        "y": g12(y)}
    return out


def public_spec(spec):
    return {k: v for k, v in spec.items() if k != "headDim" and v is not None}


def config_cases(cfg):
    """The layer options each config is exercised with."""
    tc, mt = hf.text_config(cfg)
    opts = [{}]
    lts = hf.layer_types(tc, mt)
    for lt in sorted(set(lts or [])):
        opts.append({"layerType": lt})
    n = tc.get("num_hidden_layers")
    if n:
        idx = {0, 1, n - 1}
        if mt in ("llama4_text", "smollm3"):
            nr = hf.no_rope_layers(tc)
            idx |= {i for i, r in enumerate(nr) if not r}
        if lts:
            idx |= {lts.index(t) for t in set(lts)}
        for i in sorted(idx)[:6]:
            opts.append({"layer": i})
    return opts


def config_fixture(path, name):
    cfg = json.load(open(path))
    tc, mt = hf.text_config(cfg)
    entry = {"file": name, "modelType": mt}
    try:
        hf.resolve_rope(cfg)
    except hf.ConfigError as e:
        entry["noRope"] = str(e)
        if hf.is_alibi(tc, mt):
            a = hf.alibi_from_config(cfg)
            entry["alibi"] = {"heads": a["heads"], "maxBias": a["maxBias"], "slopes": [float(v) for v in a["slopes"]]}
        return entry
    cases, seen = [], {}
    for opt in config_cases(cfg):
        spec = hf.resolve_rope(cfg, opt.get("layer"), opt.get("layerType"))
        c = {"options": opt}
        if spec is None:
            c["noRope"] = True
        else:
            c["expected"] = public_spec(spec)
            c["headDim"] = spec["headDim"]
            key = json.dumps(c["expected"], sort_keys=True)
            if key in seen:
                c["sameValuesAs"] = seen[key]   # index of the case holding the numbers
            else:
                seen[key] = len(cases)
                c.update(case(spec))
        qpos = [0, 1, 8190, 8191, 16383, 65535, 131071]
        qs = hf.query_scales(cfg, qpos, opt.get("layer"), opt.get("layerType"))
        if not np.all(qs == 1.0):
            c["queryScales"] = {"positions": qpos, "values": [float(v) for v in qs]}
        cases.append(c)
    entry["cases"] = cases
    return entry


def rope_type_grid():
    """Issue 25's part: every rope_type, both layouts, full and partial rotary."""
    short = [1.0 + 0.05 * i for i in range(16)]
    long_ = [1.0 + 0.5 * i for i in range(16)]
    scalings = {
        "default": None,
        "linear": {"type": "linear", "factor": 4.0},
        "dynamic": {"type": "dynamic", "factor": 2.0, "maxPositionEmbeddings": 4096},
        "yarn": {"type": "yarn", "factor": 8.0, "originalMaxPositionEmbeddings": 4096, "maxPositionEmbeddings": 32768,
                 "betaFast": 32, "betaSlow": 1, "truncate": True},
        "yarn-mscale": {"type": "yarn", "factor": 40.0, "originalMaxPositionEmbeddings": 4096,
                        "maxPositionEmbeddings": 163840, "mscale": 0.707, "mscaleAllDim": 0.5, "truncate": True},
        "yarn-untruncated": {"type": "yarn", "factor": 32.0, "originalMaxPositionEmbeddings": 4096,
                             "maxPositionEmbeddings": 131072, "betaFast": 32, "betaSlow": 1, "truncate": False},
        "llama3": {"type": "llama3", "factor": 8.0, "lowFreqFactor": 1.0, "highFreqFactor": 4.0,
                   "originalMaxPositionEmbeddings": 8192, "maxPositionEmbeddings": 131072},
        "llama3-low-eq-high": {"type": "llama3", "factor": 16.0, "lowFreqFactor": 1.0, "highFreqFactor": 1.0,
                               "originalMaxPositionEmbeddings": 8192, "maxPositionEmbeddings": 131072},
        "longrope": {"type": "longrope", "shortFactor": short, "longFactor": long_, "originalMaxPositionEmbeddings": 4096,
                     "maxPositionEmbeddings": 131072},
    }
    out = []
    for name, sc in scalings.items():
        for layout in ("half", "interleaved"):
            for rotary, head_dim in ((32, 32), (32, 40)):
                spec = {"layout": layout, "rotaryDim": rotary, "base": 10000.0, "scaling": sc, "headDim": head_dim}
                if sc and sc["type"] == "longrope" and rotary != 32:
                    continue
                c = {"name": name, "spec": public_spec(spec), "headDim": head_dim}
                c.update(case(spec))
                if sc and sc["type"] == "longrope":
                    # the short factors: a sequence inside the original window
                    inv_s, att_s = hf.rope_frequencies(spec, 4096)
                    c["short"] = {"seqLength": 4096, "invFreq": [float(v) for v in inv_s], "attentionFactor": att_s}
                out.append(c)
    return out


def float32_gap(real):
    """HF's float32 pipeline against the float64 values at position 131071."""
    import torch  # noqa: F401
    rows = []
    for name, path, opt in real:
        cfg = json.load(open(path))
        spec = hf.resolve_rope(cfg, **opt)
        sc = spec.get("scaling")
        seq = SEQ_LEN if sc and sc["type"] in ("dynamic", "longrope") else None
        inv, att = hf.rope_frequencies(spec, seq)
        inv32 = hf.hf_float32_inv_freq(spec, seq)
        rel = float(np.max(np.abs(inv32.double().numpy() - inv) / inv))
        ulps = float(np.max(np.abs(inv32.double().numpy() - inv) / np.spacing(inv.astype(np.float32)).astype(np.float64)))
        c32, s32 = hf.hf_float32_cache(inv32, att, [131071])
        c64, s64 = hf.half_cache(inv, att, [131071])
        rows.append({"config": name, "options": {k: v for k, v in opt.items() if v is not None},
                     "type": sc["type"] if sc else "default",
                     "invFreqMaxRelative": rel, "invFreqMaxUlps": ulps,
                     "cosSinMaxAbsAt131071": float(max(np.max(np.abs(c32 - c64)), np.max(np.abs(s32 - s64))))})
    return rows


def main():
    os.makedirs(OUT, exist_ok=True)
    meta = {"transformersCommit": hf.TRANSFORMERS_COMMIT,
            "generator": "tools/reference/make_rope_fixtures.py",
            "x": "fixture_x(n, seed): float32(2 * ((i * 2654435761 + seed * 40503) mod 2^32) / 2^32 - 1), "
                 "laid out [row][head][headDim]; rows are apply.positions"}
    real, synth = [], []
    for sub, acc in (("", real), ("synthetic", synth)):
        d = os.path.join(CONFIGS, sub)
        for f in sorted(os.listdir(d)):
            if f.endswith(".json"):
                acc.append(config_fixture(os.path.join(d, f), os.path.join(sub, f) if sub else f))
    json.dump({**meta, "configs": real + synth}, open(os.path.join(OUT, "configs.json"), "w"), separators=(",", ":"))
    json.dump({**meta, "cases": rope_type_grid()}, open(os.path.join(OUT, "rope-types.json"), "w"), separators=(",", ":"))
    gap_cfgs = [
        ("llama-3.1-8b.json", os.path.join(CONFIGS, "llama-3.1-8b.json"), {}),
        ("qwen2.5-3b.json", os.path.join(CONFIGS, "qwen2.5-3b.json"), {}),
        ("mistral-7b-v0.1.json", os.path.join(CONFIGS, "mistral-7b-v0.1.json"), {}),
        ("gemma-3-1b-it.json", os.path.join(CONFIGS, "gemma-3-1b-it.json"), {"layer_type": "full_attention"}),
        ("deepseek-v2-lite.json", os.path.join(CONFIGS, "deepseek-v2-lite.json"), {}),
        ("phi-3.5-mini-instruct.json", os.path.join(CONFIGS, "phi-3.5-mini-instruct.json"), {}),
        ("internlm2.5-7b.json", os.path.join(CONFIGS, "internlm2.5-7b.json"), {}),
        ("synthetic/gpt-oss-shaped.json", os.path.join(CONFIGS, "synthetic", "gpt-oss-shaped.json"), {}),
    ]
    try:
        gap = float32_gap(gap_cfgs)
        json.dump({**meta, "note": "transformers' float32 pipeline (torch CPU) minus the float64 values",
                   "rows": gap}, open(os.path.join(OUT, "float32-gap.json"), "w"), indent=1)
        for r in gap:
            print("float32 gap", r)
    except ImportError:
        print("torch not available: float32-gap.json not written")
    for f in sorted(os.listdir(OUT)):
        print(f, os.path.getsize(os.path.join(OUT, f)))


if __name__ == "__main__":
    main()
