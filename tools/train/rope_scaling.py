"""RoPE frequencies under the scalings applied at inference, in double, as
Hugging Face transformers defines them (src/transformers/modeling_rope_utils.py,
read at commit 0044e3b3facff1a1ad60b235c69d5b45beae75a4; the same formulas as
include/posenc.h's POSENC_ROPE_* and tools/reference/hf_rope.py):

- default  f_k = base^(-2k / r)      (_compute_default_rope_parameters)
- linear   f_k / factor              (_compute_linear_scaling_rope_parameters)
- dynamic  base' = base * (factor L / M - (factor - 1))^(r / (r - 2)),
           L = max(seq_len, M), M = max_position_embeddings; f_k from base'
           (_compute_dynamic_ntk_parameters)
- yarn     f_k / factor * ramp_k + f_k * (1 - ramp_k), ramp over the
           correction range of beta_fast = 32, beta_slow = 1 (floor / ceil);
           cos and sin multiplied by 0.1 ln(factor) + 1 (_compute_yarn_parameters)

Each returns (inverse frequencies [r / 2] float64, attention factor).
`scaling` is posenc's option object: {type, factor, maxPositionEmbeddings}
(dynamic) or {type, factor, originalMaxPositionEmbeddings} (yarn)."""
import math

import torch


def default_inv_freq(rotary_dim, base):
    # the expression of model.rope_cos_sin, so unscaled RoPE gives the same bits
    k = torch.arange(rotary_dim // 2, dtype=torch.float64)
    return base ** (-2 * k / rotary_dim)


def yarn_inv_freq(rotary_dim, base, factor, original):
    def correction_dim(rotations):
        return rotary_dim * math.log(original / (rotations * 2 * math.pi)) / (2 * math.log(base))

    low = max(math.floor(correction_dim(32)), 0)
    high = min(math.ceil(correction_dim(1)), rotary_dim - 1)
    if low == high:
        high += 0.001
    k = torch.arange(rotary_dim // 2, dtype=torch.float64)
    ramp = ((k - low) / (high - low)).clamp(0, 1)  # 1 - HF's extrapolation factor
    f = default_inv_freq(rotary_dim, base)
    return f / factor * ramp + f * (1 - ramp)


def inv_freq(rotary_dim, base, scaling=None, seq_len=None):
    """-> (inverse frequencies, attention factor) for a sequence of seq_len
    tokens (dynamic only reads it)."""
    kind = scaling["type"] if scaling else "default"
    if kind == "default":
        return default_inv_freq(rotary_dim, base), 1.0
    factor = scaling["factor"]
    if kind == "linear":
        return default_inv_freq(rotary_dim, base) / factor, 1.0
    if kind == "dynamic":
        m = scaling["maxPositionEmbeddings"]
        length = max(seq_len or m, m)
        scaled = base * ((factor * length / m) - (factor - 1)) ** (rotary_dim / (rotary_dim - 2))
        return default_inv_freq(rotary_dim, scaled), 1.0
    if kind == "yarn":
        attention = 0.1 * math.log(factor) + 1.0 if factor > 1 else 1.0
        return yarn_inv_freq(rotary_dim, base, factor, scaling["originalMaxPositionEmbeddings"]), attention
    raise ValueError(f"unknown RoPE scaling {kind!r}")


def cos_sin(positions, frequencies, attention=1.0):
    """A cos(p f_k), A sin(p f_k) [...positions' shape][r / 2]: angles and
    products in double, rounded once to float (model.rope_cos_sin's precision)."""
    angle = torch.as_tensor(positions, dtype=torch.float64)[..., None] * frequencies
    return (attention * torch.cos(angle)).float(), (attention * torch.sin(angle)).float()
