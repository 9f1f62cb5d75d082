"""The model shape and training recipe of each scheme (tools/train/README.md
says how they were found)."""

# Shared by every scheme; RECIPES below overrides per scheme.
BASE = {
    "arch": {"d": 64, "heads": 4, "d_ff": 128, "layers": 4, "activation": "gelu", "max_length": 514},
    "train": {
        "seed": 1,
        "steps": 2500,
        "batch": 64,
        "lr": 3e-3,
        "warmup": 100,
        "min_lr_ratio": 0.05,
        "weight_decay": 0.01,
        "clip": 1.0,
        "init_std": 0.02,
        "pos_std": 0.02,
        "start_n": 4,
        "ramp": 0.6,
        "log_every": 100,
    },
}

RECIPES = {scheme: {} for scheme in ("none", "learned", "sinusoidal", "rope", "alibi", "t5")}


def recipe_for(scheme):
    """-> (arch kwargs for model.encoder_config, training recipe)"""
    override = RECIPES[scheme]
    return {**BASE["arch"], **override.get("arch", {})}, {**BASE["train"], **override.get("train", {})}
