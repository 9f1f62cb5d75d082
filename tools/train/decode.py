"""Incremental decoding of a CopyDecoder (model.py) with a KV cache, the way
Hugging Face transformers' generate() runs a causal language model: the
prompt goes through once (prefill), then each new token alone, its query
attending to the keys and values of every earlier token, kept from the steps
that computed them.

Per scheme, a chunk of new tokens at absolute positions P .. P + S - 1 (P =
tokens already cached):

- none:       nothing positional;
- learned, sinusoidal: the table's rows P .. P + S - 1 added to E[t] sqrt(d);
- rope:       each new query and key rotated at its absolute position (HF
              apply_rotary_pos_emb with position_ids = P + i); cached keys
              are stored rotated and never touched again;
- alibi:      the bias row of each new query i against every cached and new
              key j <= i: -m_h (i - j) (Press et al. 2022);
- t5:         the same rows of the learned bucket bias,
              table[bucket(i - j)] (HF T5Attention.compute_bias with
              query_length = P + S, keeping its last S rows).

RoPE scaling applied at inference (rope_scaling.py): linear and YaRN have
fixed frequencies, so the cache changes nothing. Dynamic NTK depends on the
sequence length, and transformers (modeling_rope_utils.py dynamic_rope_update,
its dynamic_frequency_update) handles it per forward call: with seq_len =
max(position_ids) + 1 of the call's tokens, it recomputes the frequencies
when seq_len grows past the longest length seen so far (which starts at
max_position_embeddings M), and restores the original ones when seq_len
falls back below M after having grown. The new tokens' queries and keys are
rotated with the frequencies of the call; keys already in the cache keep the
rotation of the call that made them. So a cached generation is not the full
forward of the same tokens once the sequence passes M: `Decoder(...,
dynamic='cache')` follows transformers; `dynamic='recompute'` instead runs
the whole sequence again at every step with the frequencies of its length
(what posenc's logits(tokens) computes, every key at the current base).
"""
import math

import torch

import rope_scaling
from model import alibi_slopes, rope_rotate_half, sinusoidal_table, t5_buckets


class Decoder:
    """A KV cache over one sequence (batch 1) of a CopyDecoder, eval mode.
    scaling: posenc's RoPE scaling object applied at inference, or None."""

    def __init__(self, model, scaling=None):
        self.model = model
        self.config = model.config
        self.positional = self.config["positional"]
        self.scaling = scaling
        if scaling is not None and self.positional["type"] != "rope":
            raise ValueError("RoPE scaling applies to the rope model only")
        self.keys = [None] * self.config["layers"]
        self.values = [None] * self.config["layers"]
        self.length = 0
        # dynamic_frequency_update's state: the longest seq_len seen, from M
        self.longest = scaling["maxPositionEmbeddings"] if scaling and scaling["type"] == "dynamic" else None

    def _rope(self, positions, seq_len):
        """(cos, sin) of the new tokens' positions, with the frequencies of this call."""
        r = self.config["dModel"] // self.config["heads"]
        base = self.positional["base"]
        sc = self.scaling
        if sc is not None and sc["type"] == "dynamic":
            m = sc["maxPositionEmbeddings"]
            if seq_len > self.longest:  # growth: recompute at this length
                self.longest = seq_len
            if seq_len < m and self.longest > m:  # reset to the original frequencies
                self.longest = m
            frequencies, attention = rope_scaling.inv_freq(r, base, sc, self.longest)
        else:
            frequencies, attention = rope_scaling.inv_freq(r, base, sc)
        return rope_scaling.cos_sin(positions, frequencies, attention)

    def _bias(self, total, new):
        """[H][new][total]: the score bias of the new queries (positions
        total - new .. total - 1) against every key 0 .. total - 1, the
        causal mask included."""
        heads = self.config["heads"]
        i = torch.arange(total - new, total)[:, None]
        j = torch.arange(total)[None, :]
        bias = torch.zeros(heads, new, total)
        kind = self.positional["type"]
        if kind == "alibi":
            distance = (i - j).clamp(min=0).to(torch.float64)
            bias = (-alibi_slopes(heads, self.positional["maxBias"])[:, None, None] * distance).float()
        elif kind == "t5":
            buckets = t5_buckets(total, self.positional["numBuckets"], self.positional["maxDistance"])[total - new:]
            bias = self.model.relative_attention_bias(buckets).permute(2, 0, 1)
        return bias.masked_fill(j > i, float("-inf"))

    @torch.no_grad()
    def feed(self, tokens):
        """Appends tokens (a list of ids) to the cache; -> their logits [S][vocab]."""
        m, c, kind = self.model, self.config, self.positional["type"]
        new = len(tokens)
        start, total = self.length, self.length + new
        positions = torch.arange(start, total)
        x = m.embed(torch.tensor(tokens)) * c["embedScale"]
        if kind == "sinusoidal":
            x = x + sinusoidal_table(total, c["dModel"], self.positional["base"])[start:]
        elif kind == "learned":
            if total > self.positional["maxLength"]:
                raise ValueError(f"learned positions: {total} tokens > maxLength {self.positional['maxLength']}")
            x = x + m.pos_embed.weight[start:total]
        rope = self._rope(positions, total) if kind == "rope" else None
        bias = self._bias(total, new)
        heads, d = c["heads"], c["dModel"]
        split = lambda t: t.view(new, heads, d // heads).transpose(0, 1)  # [H][S][hd]
        for n, layer in enumerate(m.layers):
            attn = layer.self_attn
            h = layer.norm1(x)
            q, k, v = split(attn.q_proj(h)), split(attn.k_proj(h)), split(attn.v_proj(h))
            if rope is not None:
                q, k = rope_rotate_half(q, *rope), rope_rotate_half(k, *rope)
            if self.keys[n] is not None:
                k = torch.cat([self.keys[n], k], dim=1)
                v = torch.cat([self.values[n], v], dim=1)
            self.keys[n], self.values[n] = k, v
            scores = q @ k.transpose(-1, -2) / math.sqrt(d // heads) + bias
            ctx = torch.softmax(scores, dim=-1) @ v
            x = x + attn.out_proj(ctx.transpose(0, 1).reshape(new, d))
            x = x + layer.linear2(layer.act(layer.linear1(layer.norm2(x))))
        self.length = total
        return m.lm_head(m.norm(x))


@torch.no_grad()
def generate(model, prompt, new_tokens, scaling=None, dynamic="cache"):
    """Greedy generation of new_tokens tokens after prompt. -> (generated ids,
    logits [new_tokens][vocab]: row i is the distribution token i was chosen
    from, row 0 the prefill's last position). dynamic='recompute' runs the
    whole sequence again at each step (dynamic NTK scaling only)."""
    if dynamic == "recompute":
        tokens, rows = list(prompt), []
        for _ in range(new_tokens):
            logits = Decoder(model, scaling).feed(tokens)[-1]
            rows.append(logits)
            tokens.append(int(logits.argmax()))
        return tokens[len(prompt):], torch.stack(rows)
    decoder = Decoder(model, scaling)
    logits = decoder.feed(list(prompt))[-1]
    generated, rows = [], []
    for i in range(new_tokens):
        rows.append(logits)
        generated.append(int(logits.argmax()))
        if i + 1 < new_tokens:
            logits = decoder.feed([generated[-1]])[-1]
    return generated, torch.stack(rows)


def full_logits(model, tokens, scaling=None):
    """The full causal forward of a whole sequence through the Decoder (one
    prefill), which unlike model.forward takes a RoPE scaling."""
    return Decoder(model, scaling).feed(list(tokens))


def max_relative_difference(a, b):
    """max over positions of max |a - b| / max |b| of the position (the bound
    tests/encoder/trained-models.test.js uses for logits)."""
    scale = b.abs().amax(dim=-1, keepdim=True)
    return ((a - b).abs() / scale).max().item()
