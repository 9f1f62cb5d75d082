"""The one model shape and training recipe every scheme shares
(tools/train/README.md says how it was chosen). Only the positional scheme
differs between the six models: same layers, same steps, same schedule, and
for a given seed the same batches and the same initial weights for every
parameter the schemes share."""

ARCH = {"d": 64, "heads": 4, "d_ff": 128, "layers": 4, "activation": "gelu", "max_length": 514}

RECIPE = {
    "steps": 3000,
    "batch": 64,
    # The batch's sequences, longest first, run as this many groups, each
    # padded to its own longest (the loss is the mean over the whole batch).
    "chunks": 2,
    "lr": 3e-3,
    "warmup": 100,
    "min_lr_ratio": 0.05,
    "weight_decay": 0.01,
    "clip": 1.0,
    "init_std": 0.02,
    # Learned position rows start at the scale of the sinusoidal table's
    # entries: drawn N(0, 0.02) they were too small next to the unit-scale
    # E * sqrt(d) to give attention a position to start from (README).
    "pos_std": 0.5,
    # The longest n grows from start_n to 32 over the first `ramp` of the steps.
    "start_n": 4,
    "ramp": 0.6,
    "log_every": 100,
}

# The page's models are seed 1's; `make models` trains seeds 1..SEEDS.
PAGE_SEED = 1


def recipe_for(seed):
    """-> (arch kwargs for model.encoder_config, training recipe with its seed)"""
    return dict(ARCH), {**RECIPE, "seed": seed}

# The schemes also trained (and scored) at randomized positions (Ruoss et
# al. 2023, tasks.train_positions): the two whose positions are ids a model
# reads directly, an absolute table and a rotation.
RANDOMIZED_SCHEMES = ("learned", "rope")
