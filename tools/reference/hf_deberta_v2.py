"""DeBERTa-v2's log-bucketed relative positions, as Hugging Face transformers runs them.

Source: huggingface/transformers, src/transformers/models/deberta_v2/modeling_deberta_v2.py
at commit 967ed0db036766dc1e9a964eca66a8c07df1b902:
  make_log_bucket_position  -> make_log_bucket_position
  build_relative_position   -> build_relative_position
Transcribed operation for operation (same torch calls, dtypes and order); names and
comments are ours. Note the sign: query - key (T5 takes key - query).
"""
import torch


def make_log_bucket_position(relative_pos, bucket_size, max_position):
    sign = torch.sign(relative_pos)
    mid = bucket_size // 2
    # |rel| < mid is replaced by mid - 1 so that the log below never sees 0
    abs_pos = torch.where(
        (relative_pos < mid) & (relative_pos > -mid),
        torch.tensor(mid - 1).type_as(relative_pos),
        torch.abs(relative_pos),
    )
    # int64 / int -> float32 (true division); log, ceil and products in float32
    log_pos = (
        torch.ceil(torch.log(abs_pos / mid) / torch.log(torch.tensor((max_position - 1) / mid)) * (mid - 1)) + mid
    )
    return torch.where(abs_pos <= mid, relative_pos.type_as(log_pos), log_pos * sign)


def build_relative_position(query_size, key_size, bucket_size=-1, max_position=-1):
    """[1][query_size][key_size] int64: query index - key index, bucketed when both sizes are > 0."""
    q_ids = torch.arange(0, query_size)
    k_ids = torch.arange(0, key_size)
    rel = q_ids[:, None] - k_ids[None, :]
    if bucket_size > 0 and max_position > 0:
        rel = make_log_bucket_position(rel, bucket_size, max_position)
    rel = rel.to(torch.long)
    rel = rel[:query_size, :]
    return rel.unsqueeze(0)
