"""BLOOM's ALiBi tensor, as Hugging Face transformers builds it.

Source: huggingface/transformers, src/transformers/models/bloom/modeling_bloom.py
at commit 9d97831a1cbb420edac062c2e8454ce9ac1c4b79:
  build_alibi_tensor -> build_alibi_tensor
Transcribed operation for operation (same torch calls, dtypes and order); names and
comments are ours.
"""
import math

import torch


def build_alibi_tensor(attention_mask, num_heads, dtype):
    """attention_mask [batch][seq] (1 = token) -> [batch * num_heads][1][seq]: m_h * (position of
    key j), the same row for every query (softmax ignores the per-row constant -m_h * i)."""
    batch_size, seq_length = attention_mask.shape
    closest_power_of_2 = 2 ** math.floor(math.log2(num_heads))
    # slopes as powers of a float32 base 2^(-8 / p): base^1, base^2, ..., base^p
    base = torch.tensor(2 ** (-(2 ** -(math.log2(closest_power_of_2) - 3))), dtype=torch.float32)
    powers = torch.arange(1, 1 + closest_power_of_2, dtype=torch.int32)
    slopes = torch.pow(base, powers)
    if closest_power_of_2 != num_heads:
        # the odd powers of 2^(-8 / 2p) for the remaining heads
        extra_base = torch.tensor(2 ** (-(2 ** -(math.log2(2 * closest_power_of_2) - 3))), dtype=torch.float32)
        num_remaining_heads = min(closest_power_of_2, num_heads - closest_power_of_2)
        extra_powers = torch.arange(1, 1 + 2 * num_remaining_heads, 2, dtype=torch.int32)
        slopes = torch.cat([slopes, torch.pow(extra_base, extra_powers)], dim=0)
    # key positions count only the tokens (left padding does not move them)
    arange_tensor = ((attention_mask.cumsum(dim=-1) - 1) * attention_mask)[:, None, :]
    alibi = slopes[..., None] * arange_tensor
    return alibi.reshape(batch_size * num_heads, 1, seq_length).to(dtype)
