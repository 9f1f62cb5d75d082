"""A causal transformer with posenc's encoder semantics (include/posenc.h,
posenc_encoder_forward), so that its state_dict loads into posenc's
createEncoder unchanged and gives the same logits.

    x = E[t] * embed_scale (+ PE[p] for sinusoidal, + pos_embed[p] for learned)
    per layer (pre-norm, Xiong et al. 2020):
        x = x + out_proj(MHA(LN1(x)))        q, k, v = linear projections;
                                             RoPE rotates q and k, ALiBi / T5
                                             add a bias to the scores
        x = x + linear2(act(linear1(LN2(x))))
    x = LN(x)  (final norm);   logits = x lm_head^T

Scores are q.k / sqrt(head_dim) + bias, masked causally. Tensor names are
posenc's (README, "tensor names"): embed.weight, pos_embed.weight,
relative_attention_bias.weight, layers.{i}.self_attn.{q,k,v,out}_proj.*,
layers.{i}.{norm1,linear1,linear2,norm2}.*, norm.*, lm_head.weight.
"""
import math

import torch
from torch import nn
import torch.nn.functional as F

SCHEMES = ("none", "learned", "sinusoidal", "rope", "alibi", "t5")


def sinusoidal_table(length, d, base, positions=None):
    """Vaswani 3.5, interleaved: PE[p][2i] = sin(p w_i), PE[p][2i+1] = cos(p w_i),
    w_i = base^(-2i/d), in double, rounded once to float (posenc_sinusoidal).
    Rows p = 0..length-1, or the rows of `positions` (a long tensor [...]:
    -> [..., d])."""
    p = (torch.arange(length) if positions is None else positions).to(torch.float64)[..., None]
    i = torch.arange(d, dtype=torch.float64)
    w = base ** (-(2 * torch.div(i, 2, rounding_mode="floor")) / d)
    angle = p * w
    return torch.where(i % 2 == 0, torch.sin(angle), torch.cos(angle)).float()


def rope_cos_sin(length, rotary_dim, base, positions=None):
    """RoPE (Su et al. 2021) caches: f_k = base^(-2k / rotary_dim), angles p f_k
    in double, cos and sin rounded once to float (posenc's float64 precision).
    Rows p = 0..length-1, or the rows of `positions` ([...] -> [..., r/2])."""
    k = torch.arange(rotary_dim // 2, dtype=torch.float64)
    inv_freq = base ** (-2 * k / rotary_dim)
    p = torch.arange(length) if positions is None else positions
    angle = p.to(torch.float64)[..., None] * inv_freq
    return torch.cos(angle).float(), torch.sin(angle).float()


def rope_rotate_half(x, cos, sin):
    """The 'half' layout (GPT-NeoX, Hugging Face rotate_half): pairs (k, k + r/2).
    x [B][H][S][head_dim]; cos, sin [S][r/2]; features past r are untouched."""
    half = cos.shape[-1]
    a, b, rest = x[..., :half], x[..., half:2 * half], x[..., 2 * half:]
    return torch.cat([a * cos - b * sin, b * cos + a * sin, rest], dim=-1)


def alibi_slopes(heads, max_bias=8.0):
    """Press et al. 2022 (fairseq get_slopes, max_bias generalised): posenc_alibi_slopes."""
    p = 1 << (heads.bit_length() - 1)
    slopes = [2.0 ** (-max_bias * (h + 1) / p) for h in range(p)]
    slopes += [2.0 ** (-max_bias * (2 * h + 1) / (2 * p)) for h in range(heads - p)]
    return torch.tensor(slopes, dtype=torch.float64)


def alibi_bias(heads, length, max_bias):
    """The causal form -m_h (i - j) for j <= i (posenc_alibi_bias, causal), [H][S][S];
    the positions j > i are masked separately."""
    i = torch.arange(length, dtype=torch.float64)
    distance = (i[:, None] - i[None, :]).clamp(min=0)
    return (-alibi_slopes(heads, max_bias)[:, None, None] * distance).float()


def t5_buckets(length, num_buckets, max_distance, positions=None):
    """Hugging Face T5Attention._relative_position_bucket, bidirectional=False
    (the decoder's), for relative_position = key - query: [S][S] long. With
    `positions` [..., S], the positions' differences: [..., S][S] (a key at a
    later position than its query, possible only with permuted ids, falls in
    bucket 0, as the unidirectional bucketing clamps it)."""
    pos = torch.arange(length) if positions is None else positions
    return t5_bucket_of(pos[..., :, None] - pos[..., None, :], num_buckets, max_distance)


def t5_bucket_of(distance, num_buckets, max_distance):
    """The unidirectional bucket of query position - key position (a long
    tensor), clamped at 0 (HF _relative_position_bucket, bidirectional=False)."""
    n = distance.clamp(min=0)
    max_exact = num_buckets // 2
    is_small = n < max_exact
    large = max_exact + (
        torch.log(n.float() / max_exact) / math.log(max_distance / max_exact) * (num_buckets - max_exact)
    ).to(torch.long)
    large = torch.min(large, torch.full_like(large, num_buckets - 1))
    return torch.where(is_small, n, large)


class SelfAttention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.q_proj = nn.Linear(d, d)
        self.k_proj = nn.Linear(d, d)
        self.v_proj = nn.Linear(d, d)
        self.out_proj = nn.Linear(d, d)

    def forward(self, x, bias, rope):
        B, S, d = x.shape
        split = lambda t: t.view(B, S, self.heads, d // self.heads).transpose(1, 2)
        q, k, v = split(self.q_proj(x)), split(self.k_proj(x)), split(self.v_proj(x))
        if rope is not None:
            q, k = rope_rotate_half(q, *rope), rope_rotate_half(k, *rope)
        scores = q @ k.transpose(-1, -2) / math.sqrt(d // self.heads) + bias
        ctx = torch.softmax(scores, dim=-1) @ v
        return self.out_proj(ctx.transpose(1, 2).reshape(B, S, d))


class Layer(nn.Module):
    def __init__(self, d, heads, d_ff, activation):
        super().__init__()
        self.self_attn = SelfAttention(d, heads)
        self.norm1 = nn.LayerNorm(d)
        self.linear1 = nn.Linear(d, d_ff)
        self.linear2 = nn.Linear(d_ff, d)
        self.norm2 = nn.LayerNorm(d)
        self.act = {"relu": F.relu, "gelu": F.gelu}[activation]

    def forward(self, x, bias, rope):
        x = x + self.self_attn(self.norm1(x), bias, rope)
        return x + self.linear2(self.act(self.linear1(self.norm2(x))))


class CopyDecoder(nn.Module):
    """config: the createEncoder options (vocabSize, dModel, heads, dFF, layers,
    positional, norm 'pre', activation, finalNorm true, embedScale)."""

    def __init__(self, config):
        super().__init__()
        c = config
        self.config = c
        d, self.positional = c["dModel"], c["positional"]
        self.embed = nn.Embedding(c["vocabSize"], d)
        kind = self.positional["type"]
        if kind == "learned":
            self.pos_embed = nn.Embedding(self.positional["maxLength"], d)
        if kind == "t5":
            self.relative_attention_bias = nn.Embedding(self.positional["numBuckets"], c["heads"])
        self.layers = nn.ModuleList(Layer(d, c["heads"], c["dFF"], c["activation"]) for _ in range(c["layers"]))
        self.norm = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, c["vocabSize"], bias=False)
        self._cache = {}

    def _positions(self, length):
        """The position pieces for `length` tokens: (embedding addend, score bias
        [H][S][S] with the causal mask, rope (cos, sin) or None). Constant ones
        are cached; the T5 bias is gathered each time (it is learned)."""
        p, c = self.positional, self.config
        if length not in self._cache:
            causal = torch.full((length, length), float("-inf")).triu(1)
            added = sinusoidal_table(length, c["dModel"], p["base"]) if p["type"] == "sinusoidal" else None
            rope = rope_cos_sin(length, c["dModel"] // c["heads"], p["base"]) if p["type"] == "rope" else None
            bias = causal + alibi_bias(c["heads"], length, p["maxBias"]) if p["type"] == "alibi" else causal
            buckets = t5_buckets(length, p["numBuckets"], p["maxDistance"]) if p["type"] == "t5" else None
            self._cache[length] = (added, bias, rope, buckets)
        added, bias, rope, buckets = self._cache[length]
        if buckets is not None:
            bias = bias + self.relative_attention_bias(buckets).permute(2, 0, 1)
        if p["type"] == "learned":
            if length > p["maxLength"]:
                raise ValueError(f"learned positions: {length} tokens > maxLength {p['maxLength']}")
            added = self.pos_embed.weight[:length]
        return added, bias, rope

    def _explicit_positions(self, positions):
        """The position pieces for explicit position ids [B][S] (randomized
        positions, Ruoss et al. 2023; posenc's `positions` option): the
        table rows and RoPE angles of the ids; ALiBi's -m_h (p_i - p_j) and
        T5's bucket of p_j - p_i for every query i and key j <= i (the causal
        mask stays by token order). Scores depend on the ids' differences
        only, so the row constant that makes -m_h (p_i - p_j) equal to BLOOM's
        m_h p_j (transformers build_alibi_tensor) leaves the softmax as it is.
        -> (addend [B][S][d] or None, bias [B][H][S][S], rope or None)."""
        p, c = self.positional, self.config
        B, S = positions.shape
        causal = torch.full((S, S), float("-inf")).triu(1)
        added, rope, bias = None, None, causal.expand(B, c["heads"], S, S)
        if p["type"] == "sinusoidal":
            added = sinusoidal_table(S, c["dModel"], p["base"], positions)
        elif p["type"] == "learned":
            if int(positions.max()) >= p["maxLength"]:
                raise ValueError(f"learned positions: position id {int(positions.max())} >= maxLength {p['maxLength']}")
            added = self.pos_embed(positions)
        elif p["type"] == "rope":
            cos, sin = rope_cos_sin(S, c["dModel"] // c["heads"], p["base"], positions)
            rope = (cos[:, None], sin[:, None])  # [B][1][S][r/2], broadcast over heads
        elif p["type"] == "alibi":
            distance = (positions[:, :, None] - positions[:, None, :]).to(torch.float64)
            bias = causal + (-alibi_slopes(c["heads"], p["maxBias"])[None, :, None, None] * distance[:, None]).float()
        elif p["type"] == "t5":
            buckets = t5_buckets(S, p["numBuckets"], p["maxDistance"], positions)
            bias = causal + self.relative_attention_bias(buckets).permute(0, 3, 1, 2)
        return added, bias, rope

    def forward(self, tokens, positions=None):
        """tokens [B][S] -> logits [B][S][vocabSize]; positions: [B][S] long
        position ids, or None for 0..S-1."""
        if positions is None:
            added, bias, rope = self._positions(tokens.shape[1])
        else:
            added, bias, rope = self._explicit_positions(positions)
        x = self.embed(tokens) * self.config["embedScale"]
        if added is not None:
            x = x + added
        for layer in self.layers:
            x = layer(x, bias, rope)
        return self.lm_head(self.norm(x))


def encoder_config(scheme, d=64, heads=4, d_ff=256, layers=2, activation="gelu", max_length=514):
    """createEncoder options for a scheme (posenc's defaults written out)."""
    positional = {
        "none": {"type": "none"},
        "learned": {"type": "learned", "maxLength": max_length},
        "sinusoidal": {"type": "sinusoidal", "base": 10000, "layout": "interleaved"},
        "rope": {"type": "rope", "base": 10000, "layout": "half"},
        "alibi": {"type": "alibi", "maxBias": 8},
        "t5": {"type": "t5", "numBuckets": 32, "maxDistance": 128, "bidirectional": False},
    }[scheme]
    return {
        "vocabSize": 18, "dModel": d, "heads": heads, "dFF": d_ff, "layers": layers,
        "positional": positional, "norm": "pre", "activation": activation, "finalNorm": True,
        "embedScale": math.sqrt(d), "lmHead": True,
    }
