"""T5's relative position buckets and bias, as Hugging Face transformers runs them.

Source: huggingface/transformers, src/transformers/models/t5/modeling_t5.py
at commit 6b8b757dfcb582379a64f013cdce46c43629f2b0:
  T5Attention._relative_position_bucket   -> relative_position_bucket
  T5Attention.compute_bias                 -> compute_bias
Transcribed operation for operation (same torch calls, dtypes and order, so the
float32 rounding is the reference's); names and comments are ours.
"""
import math

import torch


def relative_position_bucket(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    """relative_position = key position - query position (int64 tensor) -> bucket ids (int64)."""
    buckets = 0
    if bidirectional:
        # half the buckets for keys after the query, half for keys before it
        num_buckets //= 2
        buckets += (relative_position > 0).to(torch.long) * num_buckets
        distance = torch.abs(relative_position)
    else:
        # a decoder: keys after the query never happen; they share bucket 0
        distance = -torch.min(relative_position, torch.zeros_like(relative_position))
    # distances below max_exact are their own bucket
    max_exact = num_buckets // 2
    is_small = distance < max_exact
    # the others: log-spaced up to max_distance, in float32 (.float()), truncated (.to(long))
    if_large = max_exact + (
        torch.log(distance.float() / max_exact)
        / math.log(max_distance / max_exact)
        * (num_buckets - max_exact)
    ).to(torch.long)
    if_large = torch.min(if_large, torch.full_like(if_large, num_buckets - 1))
    buckets += torch.where(is_small, distance, if_large)
    return buckets


def bucket_matrix(query_length, key_length, bidirectional, num_buckets, max_distance, cache_position=None):
    """compute_bias up to the embedding lookup: buckets [query_length][key_length].
    With cache_position (the positions of the query rows), query row r sits at
    cache_position[r]; otherwise at r."""
    if cache_position is None:
        query_position = torch.arange(query_length, dtype=torch.long)[:, None]
    else:
        query_position = cache_position[:, None]
    key_position = torch.arange(key_length, dtype=torch.long)[None, :]
    relative_position = key_position - query_position
    return relative_position_bucket(relative_position, bidirectional=bidirectional,
                                    num_buckets=num_buckets, max_distance=max_distance)


def compute_bias(weight, query_length, key_length, bidirectional, num_buckets, max_distance, cache_position=None):
    """compute_bias: the learned table nn.Embedding(num_buckets, heads) gathered by bucket,
    permuted to [1][heads][query_length][key_length]."""
    table = torch.nn.Embedding(num_buckets, weight.shape[1])
    with torch.no_grad():
        table.weight.copy_(weight)
    buckets = bucket_matrix(query_length, key_length, bidirectional, num_buckets, max_distance, cache_position)
    values = table(buckets)  # [query][key][heads]
    return values.permute([2, 0, 1]).unsqueeze(0)
