"""PyTorch's own nn.TransformerEncoder, run on posenc's encoder tensors.

Source: the installed torch (Debian python3-torch), torch/nn/modules/transformer.py:
nn.TransformerEncoderLayer (norm_first False: post-norm, True: pre-norm; activation
relu, gelu or a callable) inside nn.TransformerEncoder (norm: the final layer norm).
Nothing is transcribed: the module itself runs. posenc's createEncoder reads its
state_dict names (layers.{i}.self_attn.in_proj_weight, ...) unchanged.

The positional schemes nn.TransformerEncoder has no notion of enter as what a model
built on it passes: x = embed.weight[tokens] * embed_scale, and the ALiBi or T5 bias
as the float attention mask [batch * heads][seq][seq] (src_mask), built by the
reference builders (mpt_alibi.build_alibi_bias, hf_t5.compute_bias); padding as
src_key_padding_mask; causal attention as -inf above the diagonal.
"""
import torch
from torch import nn
import torch.nn.functional as F

import hf_t5
import mpt_alibi


def gelu_tanh(x):
    """nn.GELU('tanh') as a callable (TransformerEncoderLayer names only 'relu' and 'gelu')."""
    return F.gelu(x, approximate="tanh")


ACTIVATIONS = {"relu": "relu", "gelu": "gelu", "gelu_tanh": gelu_tanh}


def build(config, seed):
    """An nn.TransformerEncoder for posenc's encoder options, every parameter drawn at random
    (layer-norm weights near 1) and rounded to float32, plus the embedding table."""
    d, heads = config["dModel"], config["heads"]
    layer = nn.TransformerEncoderLayer(
        d, heads, dim_feedforward=config["dFF"], dropout=0.0, activation=ACTIVATIONS[config["activation"]],
        layer_norm_eps=1e-5, batch_first=True, norm_first=config["norm"] == "pre",
    )
    final = nn.LayerNorm(d, eps=1e-5) if config["finalNorm"] else None
    encoder = nn.TransformerEncoder(layer, config["layers"], norm=final, enable_nested_tensor=False)
    generator = torch.Generator().manual_seed(seed)
    tensors = {"embed.weight": torch.empty(config["vocabSize"], d).uniform_(-1, 1, generator=generator)}
    positional = config["positional"]
    if positional["type"] == "t5":
        tensors["relative_attention_bias.weight"] = torch.empty(positional["numBuckets"], heads).uniform_(
            -2, 2, generator=generator)
    with torch.no_grad():
        for name, p in encoder.named_parameters():
            if "norm" in name and name.endswith("weight"):
                p.copy_(1 + 0.2 * (torch.rand(p.shape, generator=generator) - 0.5))
            else:
                p.copy_((torch.rand(p.shape, generator=generator) * 2 - 1) * (0.5 if p.dim() == 2 else 0.2))
    tensors.update({name: p.detach().clone() for name, p in encoder.state_dict().items()})
    encoder.eval()
    return encoder, tensors


def attention_bias(config, tensors, seq, causal):
    """The float mask [heads][seq][seq] a model built on nn.TransformerEncoder adds to the scores."""
    heads, positional = config["heads"], config["positional"]
    bias = torch.zeros(heads, seq, seq, dtype=torch.float64)
    if positional["type"] == "alibi":
        # MPT: -m|i-j| (full) for a bidirectional model; the key-only row m (j - (seq - 1)) for a causal one
        bias = mpt_alibi.build_alibi_bias(heads, seq, full=not causal, alibi_bias_max=positional["maxBias"],
                                          dtype=torch.float64)[0].expand(heads, seq, seq)
    elif positional["type"] == "t5":
        bias = hf_t5.compute_bias(tensors["relative_attention_bias.weight"], seq, seq, positional["bidirectional"],
                                  positional["numBuckets"], positional["maxDistance"])[0].to(torch.float64)
    if causal:
        bias = bias + torch.full((seq, seq), float("-inf"), dtype=torch.float64).triu(1)
    return bias


def run(encoder, config, tensors, tokens, masks, causal, dtype):
    """tokens [batch][seq] ints, masks [batch][seq] (1 = token) or None -> output [batch][seq][d]."""
    model = encoder.to(dtype)
    x = tensors["embed.weight"].to(dtype)[torch.tensor(tokens)] * config["embedScale"]
    batch, seq = len(tokens), len(tokens[0])
    bias = attention_bias(config, tensors, seq, causal).to(dtype)
    src_mask = bias.repeat(batch, 1, 1)  # [batch * heads][seq][seq], batch-major as MultiheadAttention reads it
    padding = None if masks is None else torch.tensor(masks) == 0
    with torch.no_grad():
        return model(x, mask=src_mask, src_key_padding_mask=padding)
