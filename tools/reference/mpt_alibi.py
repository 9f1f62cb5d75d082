"""MPT's ALiBi (slopes with alibi_bias_max, and the bias), as MosaicML's llm-foundry builds it.

Source: mosaicml/llm-foundry, llmfoundry/models/layers/attention.py
at commit 11d3d7066fa22766b8f9ce5f72372a90a9b25a82:
  gen_slopes        -> gen_slopes
  build_alibi_bias  -> build_alibi_bias
(Hugging Face's port, transformers src/transformers/models/mpt/modeling_mpt.py
build_mpt_alibi_tensor at 4352620161a5f53911ddc19dbfa1bd76d92c93be, computes the
same slopes and the full=False row.) Transcribed operation for operation (same
torch calls, dtypes and order); names and comments are ours.
"""
import math

import torch


def gen_slopes(n_heads, alibi_bias_max=8):
    """[1][n_heads][1][1] float32 slopes."""
    # the next power of two; its slopes are 2^(-k * alibi_bias_max / n), k = 1..n, in float32
    n = 2 ** math.ceil(math.log2(n_heads))
    m = torch.arange(1, n + 1, dtype=torch.float32)
    m = m.mul(alibi_bias_max / n)
    slopes = 1.0 / torch.pow(2, m)
    if n != n_heads:
        # not a power of two: the odd-indexed slopes (those of n / 2), then the even-indexed ones
        slopes = torch.concat([slopes[1::2], slopes[::2]])[:n_heads]
    return slopes.view(1, n_heads, 1, 1)


def build_alibi_bias(n_heads, seq_len, full=False, alibi_bias_max=8, dtype=None):
    """full=False: [1][n_heads][1][seq_len], m * (j - (seq_len - 1)), one row broadcast to every
    query (a causal model: softmax does not see the per-row constant); full=True:
    [1][n_heads][seq_len][seq_len], -m * |i - j| (a bidirectional one)."""
    bias = torch.arange(1 - seq_len, 1, dtype=torch.int32).view(1, 1, 1, seq_len)
    if full:
        bias = bias - torch.arange(1 - seq_len, 1, dtype=torch.int32).view(1, 1, seq_len, 1)
        bias = bias.abs().mul(-1)
    slopes = gen_slopes(n_heads, alibi_bias_max)
    bias = bias * slopes
    return bias.to(dtype=dtype)
