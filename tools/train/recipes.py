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

RECIPES = {"rope": {}}
# Without positions a causal model must count before it can copy (README.md
# beside this file): two layers never got past loss 2.05, four learn.
RECIPES["none"] = {"arch": {"layers": 4}, "train": {"steps": 2500, "ramp": 0.6}}
# ALiBi's steepest head (slope 1/4 with 4 heads) weighs distance 2 only e^-0.25
# below distance 1: no sharp previous-token head, and with two layers the loss
# stayed at 1.96 after 1,500 steps, as NoPE's did. Four layers, as NoPE.
RECIPES["alibi"] = {"arch": {"layers": 4}, "train": {"steps": 2000, "ramp": 0.6}}

# T5's learned bias starts at 0 (no position at all) and left the loss plateau
# late: 1,500 steps gave 0.984 / 0.969 / 0.894 at n = 8 / 16 / 32.
RECIPES["t5"] = {"train": {"steps": 3000}}
# Sinusoidal, 1,500 steps: 0.994 / 0.995 / 0.762 at n = 8 / 16 / 32.
RECIPES["sinusoidal"] = {"train": {"steps": 3000}}
# Learned, 1,500 steps with positions drawn N(0, 0.02): 0.662 / 0.387 / 0.227;
# rows that small next to the unit-scale E * sqrt(d) give attention almost no
# position to start from: sinusoidal scale (0.5) and twice the steps.
RECIPES["learned"] = {"train": {"steps": 3000, "pos_std": 0.5}}


def recipe_for(scheme):
    """-> (arch kwargs for model.encoder_config, training recipe)"""
    override = RECIPES[scheme]
    return {**BASE["arch"], **override.get("arch", {})}, {**BASE["train"], **override.get("train", {})}
