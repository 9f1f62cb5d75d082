"""hf_rope.py: an independent transcription of Hugging Face transformers' RoPE and ALiBi
formulas, and of how transformers reads a model's config.json for them.

Source: huggingface/transformers at commit c49429ed1f8b89749de77c0ec930ef19685c9ae5
(main, version 5.16.0.dev0). v4.57.6 (753d61104116eefc8ffc977327b441ee0c8d599f) was
read for comparison; where the two differ the docstring says so. Every function names
the file and function it transcribes. The formulas are re-expressed here in numpy
float64, not copied; hf_float32_* re-runs the float32 operations transformers performs,
with torch, to measure how far its float32 pipeline is from the exact values.
"""

import math

import numpy as np

TRANSFORMERS_COMMIT = "c49429ed1f8b89749de77c0ec930ef19685c9ae5"


class ConfigError(ValueError):
    """A config.json that transformers would refuse, or that has no RoPE."""


# ---------------------------------------------------------------- inverse frequencies
# modeling_rope_utils.py and each model's <Model>RotaryEmbedding.compute_default_rope_parameters.


def default_inv_freq(dim, base):
    """compute_default_rope_parameters (e.g. models/llama/modeling_llama.py):
    inv_freq[k] = 1 / base^(2k / dim), k < dim / 2."""
    k = np.arange(0, dim, 2, dtype=np.float64)
    return 1.0 / np.power(float(base), k / dim)


def linear_inv_freq(dim, base, factor):
    """modeling_rope_utils.py _compute_linear_scaling_rope_parameters: default / factor."""
    return default_inv_freq(dim, base) / factor


def dynamic_inv_freq(dim, base, factor, max_position_embeddings, seq_len=None):
    """modeling_rope_utils.py _compute_dynamic_ntk_parameters. seq_len is raised to
    max_position_embeddings (the value at init); the forward pass (dynamic_rope_update)
    passes max(position_ids) + 1 when it grows past the cached length."""
    seq = max_position_embeddings if seq_len is None else max(seq_len, max_position_embeddings)
    base2 = base * ((factor * seq / max_position_embeddings) - (factor - 1)) ** (dim / (dim - 2))
    return default_inv_freq(dim, base2)


def yarn_get_mscale(scale, mscale=1.0):
    """_compute_yarn_parameters.get_mscale: 1 for scale <= 1, else 0.1 * mscale * ln(scale) + 1."""
    if scale <= 1:
        return 1.0
    return 0.1 * mscale * math.log(scale) + 1.0


def yarn_params(dim, base, factor, original_max_position_embeddings, max_position_embeddings=None,
                beta_fast=None, beta_slow=None, mscale=None, mscale_all_dim=None,
                attention_factor=None, truncate=True):
    """modeling_rope_utils.py _compute_yarn_parameters (main).
    - factor None (key present, null): max_position_embeddings / original.
      (v4.53-era releases replaced an explicit factor by that ratio whenever
      original_max_position_embeddings was given; v4.57.6 and main keep the explicit factor.)
    - attention factor: explicit, else get_mscale(factor, mscale) / get_mscale(factor, mscale_all_dim)
      when both mscale and mscale_all_dim are truthy, else get_mscale(factor).
    - beta_fast / beta_slow: `or 32` / `or 1` (so 0 also means the default).
    - correction range from original_max_position_embeddings; floor/ceil only when truncate.
    - ramp over k < dim/2: clamp((k - low) / (high - low), 0, 1), high += 0.001 when low == high.
    Returns (inv_freq, attention_factor)."""
    if factor is None:
        factor = max_position_embeddings / original_max_position_embeddings
    if attention_factor is None:
        if mscale and mscale_all_dim:
            attention_factor = float(yarn_get_mscale(factor, mscale) / yarn_get_mscale(factor, mscale_all_dim))
        else:
            attention_factor = yarn_get_mscale(factor)
    beta_fast = beta_fast or 32
    beta_slow = beta_slow or 1

    def correction_dim(rotations):
        return (dim * math.log(original_max_position_embeddings / (rotations * 2 * math.pi))) / (2 * math.log(base))

    low, high = correction_dim(beta_fast), correction_dim(beta_slow)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, dim - 1)
    if low == high:
        high += 0.001
    ramp = np.clip((np.arange(dim // 2, dtype=np.float64) - low) / (high - low), 0.0, 1.0)
    extrapolation_factor = 1.0 - ramp
    pos = np.power(float(base), np.arange(0, dim, 2, dtype=np.float64) / dim)
    inv_extrapolation = 1.0 / pos
    inv_interpolation = 1.0 / (factor * pos)
    inv = inv_interpolation * (1.0 - extrapolation_factor) + inv_extrapolation * extrapolation_factor
    return inv, attention_factor


def longrope_params(dim, base, short_factor, long_factor, original_max_position_embeddings,
                    max_position_embeddings, factor=None, attention_factor=None, seq_len=None):
    """modeling_rope_utils.py _compute_longrope_parameters (main).
    factor defaults to max_position_embeddings / original; attention factor defaults to
    1 when factor <= 1, else sqrt(1 + ln(factor) / ln(original)). The long factors apply
    when seq_len > original (the forward pass uses max(position_ids) + 1), else the short.
    inv_freq[k] = 1 / (ext[k] * base^(2k/dim)).
    (v4.57.6: a top-level original_max_position_embeddings overrode an explicit factor.)"""
    if factor is None:
        factor = max_position_embeddings / original_max_position_embeddings
    if attention_factor is None:
        attention_factor = 1.0 if factor <= 1.0 else math.sqrt(
            1 + math.log(factor) / math.log(original_max_position_embeddings))
    ext = np.asarray(long_factor if (seq_len and seq_len > original_max_position_embeddings) else short_factor,
                     dtype=np.float64)
    pos = np.power(float(base), np.arange(0, dim, 2, dtype=np.float64) / dim)
    return 1.0 / (ext * pos), attention_factor


def llama3_inv_freq(dim, base, factor, low_freq_factor, high_freq_factor, original_max_position_embeddings):
    """modeling_rope_utils.py _compute_llama3_parameters. wavelen = 2 pi / f;
    wavelen > orig / low: f / factor; wavelen < orig / high: f; otherwise the blend
    (1 - s) f / factor + s f with s = (orig / wavelen - low) / (high - low).
    low == high is accepted (validation only warns): then no wavelength is strictly inside
    the band and the blend is never selected."""
    inv = default_inv_freq(dim, base)
    low_wavelen = original_max_position_embeddings / low_freq_factor
    high_wavelen = original_max_position_embeddings / high_freq_factor
    out = np.empty_like(inv)
    for i, f in enumerate(inv):
        wavelen = 2 * math.pi / f
        if wavelen > low_wavelen:
            out[i] = f / factor
        elif wavelen < high_wavelen:
            out[i] = f
        else:
            s = (original_max_position_embeddings / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
            out[i] = (1 - s) * f / factor + s * f
    return out


def rope_frequencies(spec, seq_len=None):
    """(inv_freq float64, attention factor) for a resolved spec (see resolve_rope)."""
    dim, base, sc = spec["rotaryDim"], spec["base"], spec.get("scaling")
    t = sc["type"] if sc else "default"
    if t == "default":
        return default_inv_freq(dim, base), 1.0
    if t == "linear":
        return linear_inv_freq(dim, base, sc["factor"]), 1.0
    if t == "dynamic":
        return dynamic_inv_freq(dim, base, sc["factor"], sc["maxPositionEmbeddings"], seq_len), 1.0
    if t == "yarn":
        return yarn_params(dim, base, sc.get("factor"), sc["originalMaxPositionEmbeddings"],
                           sc.get("maxPositionEmbeddings"), sc.get("betaFast"), sc.get("betaSlow"),
                           sc.get("mscale"), sc.get("mscaleAllDim"), sc.get("attentionFactor"),
                           sc.get("truncate", True))
    if t == "llama3":
        return llama3_inv_freq(dim, base, sc["factor"], sc["lowFreqFactor"], sc["highFreqFactor"],
                               sc["originalMaxPositionEmbeddings"]), 1.0
    if t == "longrope":
        return longrope_params(dim, base, sc["shortFactor"], sc["longFactor"], sc["originalMaxPositionEmbeddings"],
                               sc["maxPositionEmbeddings"], sc.get("factor"), sc.get("attentionFactor"), seq_len)
    raise ConfigError(f"unknown rope type {t}")


# ---------------------------------------------------------------- cos/sin and rotation


def mrope_axis_of(half, section, interleaved):
    """Which position axis (0 temporal, 1 height, 2 width) drives frequency k.
    Sectioned (qwen2_vl modeling apply_multimodal_rotary_pos_emb): consecutive blocks of
    section[0], section[1], section[2] frequencies (the same split repeats on the second
    half of cat(freqs, freqs)). Interleaved (qwen3_vl modeling
    Qwen3VLTextRotaryEmbedding.apply_interleaved_mrope): every frequency starts on T;
    k = 1, 4, 7, ... < 3 * section[1] take H; k = 2, 5, 8, ... < 3 * section[2] take W."""
    axis = np.zeros(half, dtype=np.int64)
    if interleaved:
        for k in range(1, min(half, 3 * section[1]), 3):
            axis[k] = 1
        for k in range(2, min(half, 3 * section[2]), 3):
            axis[k] = 2
    else:
        k = 0
        for a, n in enumerate(section):
            axis[k:k + n] = a
            k += n
    return axis


def half_cache(inv_freq, attention_factor, positions, mrope_section=None, mrope_interleaved=False):
    """The half-width cos/sin caches [len][dim/2]: A * cos(p * f_k), A * sin(p * f_k).
    HF builds cat(freqs, freqs) (half layout) or repeat_interleave(freqs, 2) (Cohere) and
    multiplies by attention_scaling; these are its distinct columns. positions: [len], or
    [3][len] with mrope_section."""
    half = len(inv_freq)
    if mrope_section is None:
        p = np.asarray(positions, dtype=np.float64)[:, None]
        ang = p * inv_freq[None, :]
    else:
        pos3 = np.asarray(positions, dtype=np.float64)
        axis = mrope_axis_of(half, mrope_section, mrope_interleaved)
        ang = np.stack([pos3[axis[k]] * inv_freq[k] for k in range(half)], axis=1)
    return attention_factor * np.cos(ang), attention_factor * np.sin(ang)


def apply_rope(x, cos, sin, heads, head_dim, layout):
    """x: [seq][heads][head_dim] (float64 copy returned). Features >= rotary dim untouched.
    half (models/llama/modeling_llama.py rotate_half + apply_rotary_pos_emb): pairs (k, k + r/2),
      out_k = x_k c - x_{k+r/2} s, out_{k+r/2} = x_{k+r/2} c + x_k s.
    interleaved (gptj rotate_every_two, cohere/glm rotate_half on ::2, llama4 and deepseek_v2
      view_as_complex): pairs (2k, 2k+1), out_2k = x_2k c - x_2k+1 s, out_2k+1 = x_2k+1 c + x_2k s.
    DeepSeek-V3's apply_rotary_pos_emb_interleave reads the same pairs but writes the result
    in half order (cat of the rotated evens and odds); q and k are permuted alike, so the
    attention scores equal those of the in-place interleaved rotation returned here."""
    out = np.array(x, dtype=np.float64).reshape(len(cos), heads, head_dim)
    half = cos.shape[1]
    for t in range(len(cos)):
        for h in range(heads):
            v = out[t, h].copy()
            for k in range(half):
                c, s = cos[t, k], sin[t, k]
                i, j = (k, k + half) if layout == "half" else (2 * k, 2 * k + 1)
                out[t, h, i] = v[i] * c - v[j] * s
                out[t, h, j] = v[j] * c + v[i] * s
    return out


def fixture_x(n, seed):
    """The test input: x_i = float32(2 * ((i * 2654435761 + seed * 40503) mod 2^32) / 2^32 - 1).
    Integer arithmetic below 2^53, so JavaScript can regenerate it exactly."""
    i = np.arange(n, dtype=np.int64)
    h = (i * 2654435761 + seed * 40503) % (1 << 32)
    return (2.0 * h / float(1 << 32) - 1.0).astype(np.float32).astype(np.float64)


# ---------------------------------------------------------------- query scales


def llama4_query_scale(positions, floor_scale, attn_scale):
    """models/llama4/modeling_llama4.py Llama4TextAttention.forward, NoPE layers with
    attn_temperature_tuning: log1p(floor((p + 1) / floor_scale)) * attn_scale + 1, where p
    runs over cache positions (arange(seq) + past_seen_tokens)."""
    p = np.asarray(positions, dtype=np.float64)
    return np.log1p(np.floor((p + 1.0) / floor_scale)) * attn_scale + 1.0


def ministral3_query_scale(positions, beta, original_max_position_embeddings):
    """models/ministral3/modeling_ministral3.py get_llama_4_attn_scale:
    1 + beta * log(1 + floor(p / original_max_position_embeddings)) on position_ids,
    multiplied into the query after RoPE."""
    p = np.asarray(positions, dtype=np.float64)
    return 1.0 + beta * np.log(1.0 + np.floor(p / original_max_position_embeddings))


# ---------------------------------------------------------------- ALiBi


def alibi_slopes_paper(heads, max_bias=8.0):
    """models/bloom/modeling_bloom.py build_alibi_tensor (and the paper's get_slopes):
    p = 2^floor(log2 n); slopes 2^(-max_bias * i / p), i = 1..p; then for the remaining
    n - p heads the odd powers 2^(-max_bias/2 * i / p), i = 1, 3, 5, ... BLOOM hard-codes 8."""
    p = 2 ** int(math.floor(math.log2(heads)))
    slopes = [2.0 ** (-max_bias * i / p) for i in range(1, p + 1)]
    if p != heads:
        slopes += [2.0 ** (-max_bias / 2 * i / p) for i in range(1, 1 + 2 * (heads - p), 2)][: heads - p]
    return np.array(slopes, dtype=np.float64)


def alibi_slopes_mpt(heads, alibi_bias_max=8.0):
    """models/mpt/modeling_mpt.py build_mpt_alibi_tensor: q = 2^ceil(log2 n);
    m_i = 2^(-alibi_bias_max * i / q), i = 1..q; when q != n, the odd-indexed entries
    (i = 2, 4, ...) then the even-indexed (i = 1, 3, ...), first n kept. HF's MptModel calls
    it without alibi_bias_max (so always 8); MosaicML's own attention.py passes it."""
    q = 2 ** int(math.ceil(math.log2(heads)))
    m = np.array([2.0 ** (-alibi_bias_max * i / q) for i in range(1, q + 1)])
    if q != heads:
        m = np.concatenate([m[1::2], m[::2]])[:heads]
    return m


# ---------------------------------------------------------------- config reading

# Class defaults (models/<family>/configuration_<family>.py at the commit above).
DEFAULT_THETA = {
    "mixtral": 1e6, "llama4_text": 5e5, "qwen2_vl_text": 1e6, "qwen2_5_vl_text": 1e6, "qwen3_vl_text": 5e5,
    "cohere": 5e5, "smollm3": 2e6, "gpt_oss": 150000.0,
}
HEAD_DIM_DEFAULT = {"qwen3": 128, "qwen3_vl_text": 128, "gemma": 256, "gemma2": 256, "gemma3_text": 256,
                    "llama4_text": 128, "ministral3": 128, "glm": 128, "glm4": 128, "gpt_oss": 64}
MAX_POS_DEFAULT = {"llama": 2048, "mistral": 131072, "mixtral": 131072, "ministral3": 262144, "qwen2": 32768,
                   "qwen2_moe": 32768, "qwen3": 32768, "qwen2_vl_text": 32768, "qwen2_5_vl_text": 32768,
                   "qwen3_vl_text": 128000, "gemma": 8192, "gemma2": 8192, "gemma3_text": 131072,
                   "phi3": 4096, "deepseek_v2": 2048, "deepseek_v3": 4096, "glm": 131072, "glm4": 131072,
                   "gpt_neox": 2048, "gptj": 2048, "falcon": 2048, "stablelm": 4096, "cohere": 8192,
                   "cohere2": 8192, "olmo2": 2048, "smollm3": 32768, "gpt_oss": 131072, "modernbert": 8192,
                   "llama4_text": 131072, "internlm2": 2048, "chatglm": 8192, "baichuan": 4096}
INTERLEAVED = {"gptj", "cohere", "cohere2", "glm", "glm4", "chatglm", "deepseek_v2", "llama4_text"}
NO_ROPE = {
    "bloom": "ALiBi (BLOOM's build_alibi_tensor): use alibiFromConfig / alibiSlopes / alibiBias",
    "mpt": "ALiBi (MPT's build_mpt_alibi_tensor): use alibiFromConfig / alibiSlopes / alibiBias",
    "t5": "T5 relative position buckets: use t5Buckets",
    "bert": "learned absolute position embeddings (position_embedding_type)",
    "gpt2": "learned absolute position embeddings (wpe)",
}
# Text model_type inside a composite config (its sub_configs / CONFIG_MAPPING default).
TEXT_TYPE = {"llama4": "llama4_text", "gemma3": "gemma3_text", "qwen2_vl": "qwen2_vl_text",
             "qwen2_5_vl": "qwen2_5_vl_text", "qwen3_vl": "qwen3_vl_text", "mistral3": "mistral"}


def text_config(cfg):
    """(text config dict, model_type). configuration_utils.py get_text_config: a composite
    config's text model is its text_config; Qwen2-VL / Qwen2.5-VL configs of the old layout
    keep the text keys at top level (Qwen2VLConfig.__post_init__ moves them)."""
    top = cfg.get("model_type")
    tc = cfg.get("text_config")
    if isinstance(tc, dict):
        return tc, tc.get("model_type") or TEXT_TYPE.get(top, top)
    if top in ("qwen2_vl", "qwen2_5_vl"):
        return cfg, top + "_text"
    return cfg, top


def is_alibi(cfg, mt):
    if mt in ("bloom", "mpt"):
        return True
    if mt == "falcon" and cfg.get("alibi"):
        return True
    # Baichuan (remote code): the 13B models use ALiBi, the 7B RoPE; they differ by width.
    return mt == "baichuan" and cfg.get("hidden_size") != 4096


def alibi_from_config(cfg):
    """{heads, maxBias, slopes} as each modeling file reads them."""
    tc, mt = text_config(cfg)
    if mt == "bloom":
        h = tc.get("n_head", tc.get("num_attention_heads"))
        return {"heads": h, "maxBias": 8.0, "slopes": alibi_slopes_paper(h)}
    if mt == "mpt":
        h = tc.get("n_heads", 16)
        mb = float((tc.get("attn_config") or {}).get("alibi_bias_max", 8))
        return {"heads": h, "maxBias": mb, "slopes": alibi_slopes_mpt(h, mb)}
    if mt == "falcon":
        h = tc.get("num_attention_heads", tc.get("n_head"))
        return {"heads": h, "maxBias": 8.0, "slopes": alibi_slopes_paper(h)}
    if mt == "baichuan":
        h = tc["num_attention_heads"]
        return {"heads": h, "maxBias": 8.0, "slopes": alibi_slopes_paper(h)}
    raise ConfigError(f"{mt} does not use ALiBi")


def rope_dict(tc):
    """config.json's rope_parameters (v5) or rope_scaling (v4), or {}."""
    rp = tc.get("rope_parameters")
    if rp is None:
        rp = tc.get("rope_scaling")
    return dict(rp) if rp else {}


def layer_types(tc, mt):
    """The per-layer type list each configuration class builds when layer_types is absent."""
    n = tc.get("num_hidden_layers")
    if tc.get("layer_types"):
        return list(tc["layer_types"])
    if n is None:
        return None
    if mt == "gemma3_text":
        p = tc.get("sliding_window_pattern", 6)
        return ["sliding_attention" if (i + 1) % p else "full_attention" for i in range(n)]
    if mt == "gemma2":
        return ["sliding_attention" if (i + 1) % 2 else "full_attention" for i in range(n)]
    if mt == "cohere2":
        p = tc.get("sliding_window_pattern", 4)
        return ["sliding_attention" if (i + 1) % p else "full_attention" for i in range(n)]
    if mt == "modernbert":
        g = tc.get("global_attn_every_n_layers", 3)
        return ["sliding_attention" if i % g else "full_attention" for i in range(n)]
    if mt == "llama4_text":
        # Llama4TextConfig: chunked_attention where RoPE is used, full_attention on NoPE layers
        return ["chunked_attention" if r else "full_attention" for r in no_rope_layers(tc)]
    return None


def no_rope_layers(tc):
    """Llama4TextConfig / SmolLM3Config: no_rope_layers[i] is 1 where layer i USES RoPE;
    absent (or, for Llama 4, empty) -> every no_rope_layer_interval-th layer (default 4) is NoPE."""
    nr = tc.get("no_rope_layers")
    if nr:
        return list(nr)
    iv = tc.get("no_rope_layer_interval", 4)
    return [int((i + 1) % iv != 0) for i in range(tc["num_hidden_layers"])]


def _scaling(rp, mt, tc, max_pos, orig_top):
    """camelCase scaling of one rope_parameters dict (None for default)."""
    t = rp.get("rope_type", rp.get("type", "default"))
    if mt == "phi3" and t in ("su", "yarn"):
        t = "longrope"          # Phi3Config.convert_rope_params_to_dict
    if t == "mrope" and mt in ("qwen2_vl_text", "qwen2_5_vl_text"):
        t = "default"           # Qwen2VLTextConfig.convert_rope_params_to_dict
    if t == "default":
        return None
    if t not in ("linear", "dynamic", "yarn", "llama3", "longrope"):
        raise ConfigError(f"config.rope_scaling.rope_type {t!r} is not one of default, linear, dynamic, yarn, llama3, longrope")
    sc = {"type": t}
    if t in ("yarn", "llama3", "longrope"):
        # standardize_rope_params: a top-level original_max_position_embeddings wins (Phi-3),
        # else the dict's own, else max_position_embeddings.
        sc["originalMaxPositionEmbeddings"] = orig_top if orig_top is not None else rp.get(
            "original_max_position_embeddings", max_pos)
    names = {"factor": "factor", "beta_fast": "betaFast", "beta_slow": "betaSlow", "mscale": "mscale",
             "mscale_all_dim": "mscaleAllDim", "attention_factor": "attentionFactor", "truncate": "truncate",
             "low_freq_factor": "lowFreqFactor", "high_freq_factor": "highFreqFactor",
             "short_factor": "shortFactor", "long_factor": "longFactor"}
    for k, v in names.items():
        if k in rp and rp[k] is not None:
            sc[v] = rp[k]
    sc["maxPositionEmbeddings"] = max_pos
    if t == "yarn":
        sc.setdefault("truncate", True)
        sc.setdefault("betaFast", 32)
        sc.setdefault("betaSlow", 1)
        if sc.get("factor") is None:
            sc["factor"] = max_pos / sc["originalMaxPositionEmbeddings"]
    if t == "longrope" and sc.get("factor") is None:
        sc["factor"] = max_pos / sc["originalMaxPositionEmbeddings"]
    if t in ("linear", "dynamic", "llama3") and "factor" not in sc:
        raise ConfigError(f"config.rope_scaling.factor is required for rope_type {t}")
    return sc


def resolve_rope(cfg, layer=None, layer_type=None):
    """What transformers builds for one layer: None for a layer without RoPE, else
    {layout, rotaryDim, base, scaling, mropeSection, mropeInterleaved, headDim}."""
    tc, mt = text_config(cfg)
    if mt in NO_ROPE or is_alibi(tc, mt):
        raise ConfigError(f"{mt} does not use RoPE: " + NO_ROPE.get(mt, "ALiBi: use alibiFromConfig"))
    lts = layer_types(tc, mt)
    if layer is not None:
        n = tc.get("num_hidden_layers")
        if n is None or not (0 <= layer < n):
            raise ConfigError(f"layer {layer} is out of range for config.num_hidden_layers = {n}")
        if mt in ("llama4_text", "smollm3") and not no_rope_layers(tc)[layer]:
            return None
        layer_type = lts[layer] if lts else None
    if mt == "cohere2" and layer_type == "full_attention":
        return None             # Cohere2Attention: RoPE only where sliding_window is set
    if mt == "llama4_text" and layer_type == "full_attention":
        return None             # Llama4TextConfig: full_attention marks the NoPE layers

    max_pos = tc.get("max_position_embeddings", tc.get("n_positions", MAX_POS_DEFAULT.get(mt)))
    if mt == "chatglm":
        max_pos = tc.get("seq_length", 8192)
    heads = tc.get("num_attention_heads", tc.get("n_head"))
    hidden = tc.get("hidden_size", tc.get("n_embd"))
    head_dim = tc.get("head_dim") or HEAD_DIM_DEFAULT.get(mt) or hidden // heads
    if mt == "cohere2":
        head_dim = hidden // heads          # Cohere2Config.__post_init__ overwrites head_dim
    if mt in ("deepseek_v2", "deepseek_v3"):
        head_dim = tc.get("qk_rope_head_dim", 64)   # DeepseekV*Config: head_dim = qk_rope_head_dim
    partial = {"gpt_neox": tc.get("rotary_pct", 0.25), "stablelm": 0.25, "glm": 0.5, "glm4": 0.5,
               "phi": 0.5, "persimmon": 0.5}.get(mt, 1.0)
    partial = tc.get("partial_rotary_factor", partial) if mt != "gpt_neox" else partial
    rp = rope_dict(tc)
    if "partial_rotary_factor" in rp and mt != "gpt_neox":
        partial = rp["partial_rotary_factor"]
    rotary = int(head_dim * partial)
    if mt == "gptj":
        rotary = tc.get("rotary_dim") or head_dim
    if mt == "chatglm":
        rotary = (tc.get("kv_channels") or hidden // heads) // 2

    # bases and per-layer parameters
    base = rp.get("rope_theta", tc.get("rope_theta", DEFAULT_THETA.get(mt, 10000.0)))
    if mt == "gpt_neox":
        base = tc.get("rotary_emb_base", 10000.0)
    if mt == "gptj":
        base = 10000.0
    if mt == "chatglm":
        base = 10000.0 * tc.get("rope_ratio", 1)
    per_layer = None
    if mt == "gemma3_text":
        lt = layer_type or "full_attention"
        if "full_attention" in rp or "sliding_attention" in rp:
            per_layer = dict(rp.get(lt) or {})
        elif lt == "full_attention":
            per_layer = dict(rp)
        else:
            per_layer = {}
        default = tc.get("rope_theta", 1e6) if lt == "full_attention" else tc.get("rope_local_base_freq", 1e4)
        base = per_layer.get("rope_theta", default)
    elif mt == "modernbert":
        lt = layer_type or "full_attention"
        if "full_attention" in rp or "sliding_attention" in rp:
            per_layer = dict(rp.get(lt) or {})
        else:
            per_layer = dict(rp)
        default = tc.get("global_rope_theta", 160000.0) if lt == "full_attention" else tc.get("local_rope_theta", 1e4)
        base = per_layer.get("rope_theta", default)
    scaling_src = per_layer if per_layer is not None else rp
    orig_top = tc.get("original_max_position_embeddings", 4096) if mt == "phi3" else None
    scaling = _scaling(scaling_src, mt, tc, max_pos, orig_top)

    layout = "interleaved" if mt in INTERLEAVED else "half"
    if mt == "deepseek_v3" and tc.get("rope_interleave", True):
        layout = "interleaved"
    spec = {"layout": layout, "rotaryDim": rotary, "base": float(base), "scaling": scaling,
            "headDim": head_dim if mt not in ("deepseek_v2", "deepseek_v3") else rotary}
    if mt in ("qwen2_vl_text", "qwen2_5_vl_text", "qwen3_vl_text"):
        sec = rp.get("mrope_section", [24, 20, 20] if mt == "qwen3_vl_text" else None)
        if sec is not None:
            spec["mropeSection"] = list(sec)
            spec["mropeInterleaved"] = mt == "qwen3_vl_text"
    return spec


def query_scales(cfg, positions, layer=None, layer_type=None):
    """Per-position query multipliers (ones where none applies)."""
    tc, mt = text_config(cfg)
    ones = np.ones(len(positions))
    if mt == "llama4_text" and tc.get("attn_temperature_tuning", True):
        nope = False
        if layer is not None:
            nope = not no_rope_layers(tc)[layer]
        elif layer_type == "full_attention":
            nope = True
        if nope:
            return llama4_query_scale(positions, tc.get("floor_scale", 8192), tc.get("attn_scale", 0.1))
    if mt == "ministral3":
        rp = rope_dict(tc)
        beta = rp.get("llama_4_scaling_beta")
        if beta is not None:
            return ministral3_query_scale(positions, beta, rp.get("original_max_position_embeddings"))
    return ones


# ---------------------------------------------------------------- HF's float32 pipeline


def hf_float32_inv_freq(spec, seq_len=None):
    """transformers' own float32 arithmetic for inv_freq (torch, CPU): arange in float32,
    / dim in float32, python-float base ** float32 tensor (torch.pow in float32), 1 / that.
    Scaled types run their extra steps in float32 too (ramp, blend, / factor, ext * pow)."""
    import torch
    dim, base, sc = spec["rotaryDim"], spec["base"], spec.get("scaling")
    t = sc["type"] if sc else "default"
    shape = torch.arange(0, dim, 2, dtype=torch.int64).float() / dim
    if t == "dynamic":
        mp = sc["maxPositionEmbeddings"]
        seq = mp if seq_len is None else max(seq_len, mp)
        base = base * ((sc["factor"] * seq / mp) - (sc["factor"] - 1)) ** (dim / (dim - 2))
    inv = 1.0 / (base ** shape)
    if t == "linear":
        inv = inv / sc["factor"]
    elif t == "llama3":
        f, lo, hi, old = sc["factor"], sc["lowFreqFactor"], sc["highFreqFactor"], sc["originalMaxPositionEmbeddings"]
        wavelen = 2 * math.pi / inv
        inv_l = torch.where(wavelen > old / lo, inv / f, inv)
        smooth = (old / wavelen - lo) / (hi - lo) if hi != lo else torch.zeros_like(inv)
        smoothed = (1 - smooth) * inv_l / f + smooth * inv_l
        medium = ~(wavelen < old / hi) * ~(wavelen > old / lo)
        inv = torch.where(medium, smoothed, inv_l)
    elif t == "yarn":
        exact, _ = rope_frequencies(spec)
        pos = base ** shape
        f = sc["factor"]
        # ramp recomputed in float32 like linear_ramp_factor
        ref_low_high = _yarn_low_high(spec)
        low, high = ref_low_high
        ramp = torch.clamp((torch.arange(dim // 2, dtype=torch.float32) - low) / (high - low), 0, 1)
        e = 1 - ramp
        inv = (1.0 / (f * pos)) * (1 - e) + (1.0 / pos) * e
    elif t == "longrope":
        ext = sc["longFactor"] if (seq_len and seq_len > sc["originalMaxPositionEmbeddings"]) else sc["shortFactor"]
        inv = 1.0 / (torch.tensor(ext, dtype=torch.float32) * base ** shape)
    return inv


def _yarn_low_high(spec):
    sc, dim, base = spec["scaling"], spec["rotaryDim"], spec["base"]
    orig = sc["originalMaxPositionEmbeddings"]

    def cd(r):
        return (dim * math.log(orig / (r * 2 * math.pi))) / (2 * math.log(base))

    low, high = cd(sc.get("betaFast") or 32), cd(sc.get("betaSlow") or 1)
    if sc.get("truncate", True):
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, dim - 1)
    return (low, high + 0.001) if low == high else (low, high)


def hf_float32_cache(inv32, attention_factor, positions):
    """LlamaRotaryEmbedding.forward: float32 inv_freq @ float32 positions, cos/sin in
    float32, times attention_scaling (float32). Returns the half-width columns."""
    import torch
    p = torch.tensor(positions, dtype=torch.float32)[:, None]
    ang = p * inv32[None, :]
    return (ang.cos() * attention_factor).double().numpy(), (ang.sin() * attention_factor).double().numpy()
