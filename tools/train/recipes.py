"""The model shape and training recipe of each scheme (tools/train/README.md
says how they were found)."""

# Shared by every scheme; RECIPES below overrides per scheme.
BASE = {
    "arch": {"d": 64, "heads": 4, "d_ff": 128, "layers": 2, "activation": "gelu", "max_length": 514},
    "train": {
        "seed": 1,
        "steps": 1500,
        "batch": 64,
        "lr": 3e-3,
        "warmup": 100,
        "min_lr_ratio": 0.05,
        "weight_decay": 0.01,
        "clip": 1.0,
        "init_std": 0.02,
        "pos_std": 0.02,
        "start_n": 4,
        "ramp": 0.5,
        "log_every": 100,
    },
}

RECIPES = {scheme: {} for scheme in ("learned", "sinusoidal", "rope", "alibi", "t5")}
# Without positions a causal model must count before it can copy (README.md
# beside this file): two layers never got past loss 2.05, four learn.
RECIPES["none"] = {"arch": {"layers": 4}, "train": {"steps": 2500, "ramp": 0.6}}


def recipe_for(scheme):
    """-> (arch kwargs for model.encoder_config, training recipe)"""
    override = RECIPES[scheme]
    return {**BASE["arch"], **override.get("arch", {})}, {**BASE["train"], **override.get("train", {})}
