"""harness.py: one config.json through transformers' own code, layer by layer.

For a config dict it runs, from the transformers checkout given to make_fixtures.py:
- the configuration class of its model_type (CONFIG_MAPPING[model_type].from_dict: the
  class defaults, the v4 -> v5 renames, standardize_rope_params and validation), and
  get_text_config(decoder=True) for a composite config;
- the text model's rotary embedding class (the one its model class builds as
  self.rotary_emb), constructed from that config, and its forward at given positions
  (with the layer's type where the class takes one), which also runs
  dynamic_rope_update for the 'dynamic' and 'longrope' types;
- the attention class of the layer (the one its decoder layer builds), constructed for
  that layer index, and its forward on a few positions with the rotary embedding's
  cos/sin as the model passes them. While it is built, nn.Linear is replaced by a
  stand-in whose output is a fixed vector per feature, the same at every position (no
  weights are allocated); the module-level RoPE apply functions of its modeling file
  (apply_rotary_pos_emb and kin) are wrapped: the wrapper hands the real function the
  fixed vector fixture_x(W, APPLY_SEED) at every position and head (W the width the
  attention passes) and records what the real function returns. The attention's own
  code decides which features it passes (partial rotary, DeepSeek's rope part) and
  whether it calls the function at all (NoPE layers). A stand-in attention function,
  registered through transformers' AttentionInterface as 'probe', records the query
  the attention hands on: its ratio position by position is any per-position query
  scale (Llama 4's temperature tuning, Ministral 3's beta scale).

Everything is computed in float64 (stubs.float64_mode).
"""

import copy
import inspect
import re
import sys

import numpy as np

import torch
from torch import nn

# cos/sin samples; dynamic and LongRoPE see seq_len = max + 1 = 131072 (the long regime)
POSITIONS = [0, 1, 2, 7, 100, 4095, 131071]
# the short regime of dynamic and LongRoPE (seq_len 101)
SHORT_POSITIONS = [0, 1, 2, 7, 100]
# M-RoPE: three axes; columns text-like (all equal) and vision-like (the axes differ)
MROPE_POSITIONS = [[0, 7, 100, 131071], [0, 7, 3, 131071], [0, 7, 5, 131071]]
# rows of the attention's rotated vectors (one sequence, the long regime)
APPLY_POSITIONS = [0, 8191, 131071]
APPLY_SEED = 19


def fixture_x(n, seed):
    """float32(2 * ((i * 2654435761 + seed * 40503) mod 2^32) / 2^32 - 1), i < n: the
    tests' fixtureX, which the JS side rebuilds from the seed."""
    i = np.arange(n, dtype=np.uint64)
    v = 2 * ((i * np.uint64(2654435761) + np.uint64(seed * 40503)) % np.uint64(2**32)).astype(np.float64) / 2**32 - 1
    return torch.from_numpy(v.astype(np.float32).astype(np.float64))


class TransformersFailed(Exception):
    """transformers itself raised: the case records the stage and the error."""

    def __init__(self, stage, error):
        super().__init__(f"{stage}: {type(error).__name__}: {error}")
        self.stage = stage


_linear_count = [0]


class ShapeLinear(nn.Module):
    """Stands in for nn.Linear while an attention module is built: no weight matrix; its
    output is one fixed vector over the output features, the same at every position."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        self.weight = nn.Parameter(torch.zeros(1))
        self.bias = nn.Parameter(torch.zeros(1)) if bias else None
        _linear_count[0] += 1
        self.vector = fixture_x(out_features, 1000 + _linear_count[0])

    def forward(self, x):
        return self.vector.expand(*x.shape[:-1], self.out_features).clone()


_FACTORIES = ("empty", "zeros", "ones", "randn", "rand")


def _meta_when_large(factory):
    def make(*size, **kwargs):
        shape = size[0] if len(size) == 1 and isinstance(size[0], (tuple, list, torch.Size)) else size
        count = 1
        for d in shape:
            count *= int(d)
        if count > 1 << 16 and "device" not in kwargs:
            kwargs["device"] = "meta"
        return factory(*size, **kwargs)

    return make


class MetaEmbedding(nn.Module):
    """Stands in for nn.Embedding while a model is built: its table on the meta device."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, *args, **kwargs):
        super().__init__()
        self.num_embeddings, self.embedding_dim, self.padding_idx = num_embeddings, embedding_dim, padding_idx
        self.weight = nn.Parameter(torch.empty(num_embeddings, embedding_dim, device="meta"))

    def forward(self, ids):
        return torch.zeros(*ids.shape, self.embedding_dim)


def _materialize(module):
    """Zeros for the meta tensors of the one module that runs (an attention with its own
    expert weights, as JetMoe's)."""
    for owner in module.modules():
        for name, p in list(owner.named_parameters(recurse=False)):
            if p.is_meta:
                setattr(owner, name, nn.Parameter(torch.zeros(p.shape)))
        for name, b in list(owner.named_buffers(recurse=False)):
            if b is not None and b.is_meta:
                owner.register_buffer(name, torch.zeros(b.shape), persistent=False)


def _source(fn):
    try:
        return inspect.getsource(fn)
    except (OSError, TypeError):
        return ""


def _positions_tensor(positions):
    if isinstance(positions[0], list):  # M-RoPE: [3][seq] -> [3][batch 1][seq]
        return torch.tensor(positions)[:, None, :]
    return torch.tensor([positions])


class Harness:
    def __init__(self):
        from transformers.modeling_utils import AttentionInterface
        from transformers.models.auto import configuration_auto, modeling_auto

        self.CONFIG_MAPPING = configuration_auto.CONFIG_MAPPING
        self.MODEL_MAPPING = modeling_auto.MODEL_MAPPING
        self.captured = {}
        captured = self.captured

        def probe_attention(module, query, key, value, *args, **kwargs):
            captured["query"] = query
            b, h, s, _ = query.shape
            return torch.zeros(b, s, h, value.shape[-1]), None

        AttentionInterface.register("probe", probe_attention)

    # ------------------------------------------------------------------ configs

    def read(self, d):
        """The configuration class's reading of a config.json dict, and its text config."""
        try:
            cls = self.CONFIG_MAPPING[d.get("model_type")]
            config = cls.from_dict(copy.deepcopy(d))
            text = config.get_text_config(decoder=True)
        except Exception as error:  # noqa: BLE001 - a refusal by transformers is a result
            raise TransformersFailed("config", error)
        return config, text

    # ------------------------------------------------------------------ the model

    def build(self, text, config=None):
        """The text model, built by its own class from the config, with no weights: its
        nn.Linear layers are ShapeLinear, its embeddings and every tensor of more than
        2^16 values are on torch's 'meta' device, and transformers' no_init_weights
        skips initialisation. Its rotary embeddings and attention modules are the real
        ones."""
        from transformers.initialization import no_init_weights

        if config is not None and config is not text and type(config) is type(text):
            text = config  # a flat encoder-decoder config: get_text_config made a decoder-only copy
        cls = type(text)
        module_name = cls.__module__.replace(".configuration_", ".modeling_")
        __import__(module_name)
        module = sys.modules[module_name]
        model_cls = self.MODEL_MAPPING[cls] if cls in self.MODEL_MAPPING else None
        if model_cls is None or model_cls.__module__ != module_name:
            candidates = [v for v in vars(module).values()
                          if inspect.isclass(v) and v.__module__ == module_name
                          and getattr(v, "config_class", None) is cls and "For" not in v.__name__]
            candidates.sort(key=lambda c: (not c.__name__.endswith("Model"), len(c.__name__)))
            model_cls = candidates[0] if candidates else None
            # a text model class whose config_class is its composite's (PaddleOCRTextModel): by its name
            if model_cls is None and inspect.isclass(getattr(module, re.sub(r"Config$", "Model", cls.__name__), None)):
                model_cls = getattr(module, re.sub(r"Config$", "Model", cls.__name__))
        if model_cls is None and config is not None and config is not text and type(config) in self.MODEL_MAPPING:
            # a text config only its composite's model builds (Emu3, Dia, T5Gemma): that model
            model_cls, text = self.MODEL_MAPPING[type(config)], config
        if model_cls is None:
            raise TransformersFailed("model", LookupError(f"no model class for {cls.__name__}"))
        saved = {name: getattr(torch, name) for name in _FACTORIES}
        saved_linear, saved_embedding = nn.Linear, nn.Embedding
        try:
            for name in _FACTORIES:
                setattr(torch, name, _meta_when_large(saved[name]))
            nn.Linear, nn.Embedding = ShapeLinear, MetaEmbedding
            with no_init_weights():
                model = model_cls(text)
        except Exception as error:  # noqa: BLE001
            raise TransformersFailed("model", error)
        finally:
            for name, fn in saved.items():
                setattr(torch, name, fn)
            nn.Linear, nn.Embedding = saved_linear, saved_embedding
        return model

    @staticmethod
    def decoder_layers(model, text):
        """The module holding the model's stack of num_hidden_layers layers, and the stack
        (a decoder's, in an encoder-decoder model)."""
        found = []
        # LongCat Flash: num_layers blocks of two attentions each (num_hidden_layers counts attentions)
        counts = {text.num_hidden_layers, getattr(text, "num_layers", None)} - {None}
        for path, owner in model.named_modules():
            for name, child in owner.named_children():
                if isinstance(child, nn.ModuleList) and len(child) in counts:
                    found.append((f"{path}.{name}", owner, child))
        if not found:
            raise TransformersFailed("model", LookupError("no ModuleList of num_hidden_layers layers"))
        found.sort(key=lambda f: ("decoder" not in f[0], len(f[2]) != text.num_hidden_layers))
        return found[0][1], found[0][2]

    @staticmethod
    def rotary_class(model):
        """The class of the text model's rotary embedding (self.rotary_emb of the module
        that holds the layers)."""
        rotary = getattr(model, "rotary_emb", None)
        if rotary is not None:
            return type(rotary)
        found = {type(m) for m in model.modules() if re.search(r"Rotary\w*Embedding$", type(m).__name__)
                 and "Vision" not in type(m).__name__}
        return found.pop() if len(found) == 1 else None

    @staticmethod
    def rope_attention(layer):
        """The attention module of a layer that takes cos/sin (or position ids) for RoPE, or
        None (a layer without one: Mamba, convolution, cross-attention)."""
        for child in layer.modules():
            name = type(child).__name__
            # (LongCat Flash's attention is LongcatFlashMLA)
            if name.endswith(("Attention", "MLA")) and re.search(r"position_embeddings|apply_\w*rot|rotary", _source(child.forward)):
                return child
        return None

    # ------------------------------------------------------------------ rotary

    def rotary(self, text, rotary_cls, layer_type, positions):
        """A fresh rotary embedding's forward at positions: its module, what the forward
        returns (cos and sin, or Llama 4's complex freqs_cis), and the inv_freq and
        attention scaling the module holds after it."""
        rotary = rotary_cls(config=text)
        position_ids = _positions_tensor(positions)
        x = torch.zeros(1, position_ids.shape[-1], 8)
        if layer_type is not None and "layer_type" in inspect.signature(rotary.forward).parameters:
            embeddings = rotary(x, position_ids, layer_type)
            prefix = f"{layer_type}_"
        else:
            embeddings = rotary(x, position_ids)
            prefix = ""
        inv = getattr(rotary, f"{prefix}inv_freq", None)
        if inv is None:
            inv = getattr(rotary, "inv_freq", None)
        scaling = getattr(rotary, f"{prefix}attention_scaling", getattr(rotary, "attention_scaling", None))
        return rotary, embeddings, inv, scaling

    # ------------------------------------------------------------------ attention

    def attention(self, text, attention, position_embeddings, positions, layer):
        """One attention module run on positions: the rotated vectors its apply function
        returned ({'function', 'width', 'rows': [seq][width]}), or None when it applied
        no RoPE, and the query scale of each position (None when all are equal)."""
        positions_1d = positions[0] if isinstance(positions[0], list) else positions
        attention_module = sys.modules[type(attention).__module__]
        calls = []
        names = [n for n, v in vars(attention_module).items()
                 if callable(v) and re.search(r"^apply_.*rot|^apply_rope|rotary_pos_emb|^_apply_rotary", n)]
        saved = {n: getattr(attention_module, n) for n in names}
        if "BlockMask" in _source(attention_module) and not hasattr(attention_module, "BlockMask"):
            # torch 2.x's flex-attention mask class, imported only where flex attention exists (Doge tests
            # isinstance against it): a stand-in class that no mask here is an instance of
            attention_module.BlockMask = type("BlockMask", (), {})
        for name, real in saved.items():
            setattr(attention_module, name, self._wrap(real, calls, len(positions_1d)))
        self.captured.clear()
        text._attn_implementation = "probe"
        if getattr(attention, "config", None) is not None:
            attention.config._attn_implementation = "probe"
        try:
            hidden = torch.zeros(1, len(positions_1d), text.hidden_size)
            attention(hidden, **self._forward_kwargs(attention, position_embeddings, positions_1d, layer))
        finally:
            for name, real in saved.items():
                setattr(attention_module, name, real)
        rotated = calls[0] if calls else None
        return rotated, self._query_scales(rotated)

    @staticmethod
    def _forward_kwargs(attention, position_embeddings, positions, layer):
        params = inspect.signature(attention.forward).parameters
        position_ids = torch.tensor([positions])
        seq = position_ids.shape[-1]
        offered = {
            "position_embeddings": position_embeddings,
            # additive and all zero: nothing masked (the probe ignores it; Falcon's eager path adds it)
            "attention_mask": torch.zeros(1, 1, seq, seq),
            "position_ids": position_ids,
            "cache_position": position_ids[0],
            # Falcon's attention takes it: FalconModel passes None when it uses RoPE, and its
            # ALiBi tensor ([batch * heads][1][seq]; zeros here) when config.alibi is set
            "alibi": torch.zeros(attention.num_heads, 1, seq) if getattr(getattr(attention, "config", None), "alibi", False) is True else None,
            "layer_idx": layer,  # Zamba2's shared attention takes its layer at call time
            # T5Gemma 2's decoder attends to itself and the encoder in one: two encoder tokens
            "encoder_hidden_states": torch.zeros(1, 2, attention.config.hidden_size) if hasattr(attention, "config") else None,
            "merged_attention_mask": torch.zeros(1, 1, seq, seq + 2),
        }
        return {k: v for k, v in offered.items() if k in params}

    @staticmethod
    def _wrap(real, calls, seq):
        """The real apply function, handed a fixed vector at every row and head."""

        def wrapper(*args, **kwargs):
            args = list(args)
            width = args[0].shape[-1]
            vector = fixture_x(width, APPLY_SEED)
            shape = args[0].shape
            for i in (0, 1):  # the query, and the key when it is passed alongside (same shape)
                if i < len(args) and torch.is_tensor(args[i]) and args[i].shape == shape:
                    args[i] = vector.expand(*shape).clone()
            out = real(*args, **kwargs)
            first = out[0] if isinstance(out, (tuple, list)) else out
            shape = list(first.shape)
            # the sequence axis: the one of length seq that is not the last
            axis = next((a for a in range(len(shape) - 2, -1, -1) if shape[a] == seq), None)
            rows = first.movedim(axis, 0).reshape(seq, -1, width)[:, 0, :] if axis is not None else None
            calls.append({"function": real.__name__, "width": width, "rows": rows})
            return out

        return wrapper

    def _query_scales(self, rotated):
        query = self.captured.get("query")
        if query is None:
            return None
        rows = query[0, 0]  # [seq][head_dim]: the attention interface's [batch, heads, seq, head_dim]
        if rotated is None:  # no RoPE: every row is the same projection, but for a scale
            ratio = (rows * rows[0]).sum(-1) / (rows[0] * rows[0]).sum(-1)
            if torch.allclose(rows, ratio[:, None] * rows[0], rtol=1e-12, atol=1e-12):
                scales = ratio.tolist()
                return None if all(abs(s - 1) < 1e-14 for s in scales) else scales
            return None
        if rotated["rows"] is None:
            return None
        width = rotated["width"]
        for part in (rows[:, :width], rows[:, -width:]):
            if part.shape[-1] != width:
                continue
            ratio = (part * rotated["rows"]).sum(-1) / (rotated["rows"] * rotated["rows"]).sum(-1)
            if torch.allclose(part, ratio[:, None] * rotated["rows"], rtol=1e-12, atol=1e-12):
                scales = (ratio / ratio[0]).tolist()
                return None if all(abs(s - 1) < 1e-14 for s in scales) else scales
        return None

    # ------------------------------------------------------------------ one layer

    def layers_of(self, text, model):
        """The layers a config is run at: the first, second, fourth and last, the first of
        each layer type, and the first with and the first without an attention that
        takes positions (hybrid models: Mamba, convolution and cross-attention layers)."""
        _, stack = self.decoder_layers(model, text)
        n = len(stack)
        picks = {0, 1, 3, n - 1} & set(range(n))
        types = getattr(text, "layer_types", None) or []
        for t in dict.fromkeys(types):
            if types.index(t) < n:
                picks.add(types.index(t))
        kinds = [self.rope_attention(layer) is not None for layer in stack]
        for kind in (True, False):
            if kind in kinds:
                picks.add(kinds.index(kind))
        return sorted(picks)

    def layer(self, text, model, layer):
        """What transformers computes for one layer of a text model: {'noRope': True},
        or {'tables', 'short'?, 'apply', 'queryScales'?}. Raises TransformersFailed."""
        owner, stack = self.decoder_layers(model, text)
        attention = self.rope_attention(stack[layer])
        rotary_cls = self.rotary_class(owner)
        if attention is None:
            return {"noRope": True, "why": "no attention module taking positions in this layer"}
        _materialize(attention)
        layer_types = getattr(text, "layer_types", None)
        layer_type = layer_types[layer] if layer_types and layer < len(layer_types) else None
        axes = self.axes(text, rotary_cls, layer_type) if rotary_cls is not None else 1
        try:
            return self._layer(text, attention, rotary_cls, layer_type, axes, POSITIONS, SHORT_POSITIONS, APPLY_POSITIONS, layer)
        except TransformersFailed as error:
            # a model whose positions stop at max_position_embeddings (GPT-J's and CodeGen's
            # sin/cos table, Pixtral's): the same samples within its range
            if not re.search(r"out of bounds|out of range", str(error)):
                raise
            limit = getattr(text, "max_position_embeddings", None) or getattr(text, "n_positions", None)
            within = lambda ps, top: sorted({min(p, top - 1) for p in ps})
            if limit:
                try:
                    return self._layer(text, attention, rotary_cls, layer_type, axes, within(POSITIONS, limit),
                                       within(SHORT_POSITIONS, limit), within([0, limit // 2 + 1, limit - 1], limit), layer)
                except TransformersFailed as again:
                    if not re.search(r"out of bounds|out of range", str(again)):
                        raise
            # IDEFICS builds cos/sin for the tokens it is given only: positions 0, 1, 2
            return self._layer(text, attention, rotary_cls, layer_type, axes, [0, 1, 2], [0, 1, 2], [0, 1, 2], layer)

    def _layer(self, text, attention, rotary_cls, layer_type, axes, positions, short_positions, apply_positions, layer):
        if axes == 3:
            apply_positions = _mrope_apply_positions()
        emb = None
        if rotary_cls is not None:
            try:
                _, emb, _, _ = self.rotary(text, rotary_cls, layer_type, apply_positions)
            except Exception as error:  # noqa: BLE001
                raise TransformersFailed("rotary", error)
        try:
            rotated, scales = self.attention(text, attention, emb, apply_positions, layer)
        except Exception as error:  # noqa: BLE001
            raise TransformersFailed("attention", error)
        flat = apply_positions[0] if axes == 3 else apply_positions
        if rotated is None:
            return {"noRope": True, **({"queryScales": {"positions": flat, "values": scales}} if scales else {})}
        result = {"apply": {"positions": apply_positions, "width": rotated["width"], "seed": APPLY_SEED,
                            "rows": rotated["rows"].tolist()}}
        order = output_order(rotated["rows"][0], rotated["width"])
        if order is not None:
            result["apply"]["outputOrder"] = order
        if scales:
            result["queryScales"] = {"positions": flat, "values": scales}
        if rotary_cls is not None:
            result["tables"] = self.tables(text, rotary_cls, layer_type, positions, axes)
            short = self.tables(text, rotary_cls, layer_type, short_positions, axes)
        else:
            result["tables"] = buffer_tables(attention, positions)
            short = buffer_tables(attention, short_positions)
        if short and (short["invFreq"] != result["tables"]["invFreq"] or short["attentionFactor"] != result["tables"]["attentionFactor"]):
            result["short"] = short
        return result

    def axes(self, text, rotary_cls, layer_type):
        """1, or 3 for a rotary embedding that takes M-RoPE's [3][batch][seq] positions
        (its code names mrope, or it refuses a single axis)."""
        try:
            self.rotary(text, rotary_cls, layer_type, [0, 1])
            one = True
        except Exception:  # noqa: BLE001
            one = False
        mrope = "mrope" in _source(rotary_cls) or (isinstance(getattr(text, "rope_parameters", None), dict)
                                                    and "mrope_section" in text.rope_parameters)
        return 3 if (not one or mrope) else 1

    def tables(self, text, rotary_cls, layer_type, positions, axes):
        """inv_freq, the attention factor, and cos/sin per frequency at positions (one
        value per frequency k: the rotary output's pair layout undone)."""
        try:
            rotary, emb, inv, scaling = self.rotary(text, rotary_cls, layer_type, _on_axes(positions, axes))
        except Exception as error:  # noqa: BLE001
            raise TransformersFailed("rotary", error)
        cos, sin, pairing = per_frequency(emb, len(inv) if inv is not None else None)
        angle1 = torch.atan2(sin[positions.index(1)], cos[positions.index(1)])
        if inv is None or inv.shape[-1] != cos.shape[-1] or not torch.allclose(inv.double(), angle1, rtol=1e-12, atol=0):
            # the module's buffer is not what its forward used (PhiMoE computes inv_freq
            # inside forward): the frequencies are the angles at position 1
            inv_freq, source = angle1, "angle"
        else:
            inv_freq, source = inv.double(), "buffer"
        factor = cos[positions.index(0)]
        return {"positions": positions, "seqLength": max(positions) + 1, "invFreq": inv_freq.tolist(),
                "invFreqFrom": source, "attentionFactor": float(factor[0]),
                "pairing": pairing, "cos": cos.tolist(), "sin": sin.tolist()}


def output_order(row0, width):
    """Where the apply function puts each input feature, read at position 0 (where it only
    scales by the attention factor): None when in place; else out[i] = in[order[i]]
    (DeepSeek V3's apply_rotary_pos_emb_interleave returns the pairs (2k, 2k + 1) at
    (k, k + r/2))."""
    v = fixture_x(width, APPLY_SEED)
    scale = float(row0.norm() / v.norm())
    if torch.allclose(row0, v * scale, rtol=1e-12, atol=1e-12):
        return None
    order = []
    for value in (row0 / scale).tolist():
        matches = [j for j in range(width) if abs(float(v[j]) - value) <= 1e-12 * max(1.0, abs(value))]
        if len(matches) != 1:
            return None
        order.append(matches[0])
    return order


def buffer_tables(attention, positions):
    """GPT-J's and CodeGen's tables: the attention's own embed_positions buffer, [sin | cos]
    per position (create_sinusoidal_positions)."""
    table = getattr(attention, "embed_positions", None)
    own = getattr(attention, "rotary_emb", None)
    if table is not None:
        rows = table[torch.tensor(positions)].double()
        half = rows.shape[-1] // 2
        sin, cos = rows[:, :half], rows[:, half:]
        pairing = "sincos-buffer"
    elif own is not None:  # IDEFICS: the attention's own module, tables for positions 0 .. seq_len - 1
        cos, sin = own(torch.zeros(1, 1, 1, 8), seq_len=max(positions) + 1)
        cos, sin, pairing = per_frequency((cos[torch.tensor(positions)], sin[torch.tensor(positions)]), None)
    else:
        raise TransformersFailed("rotary", LookupError("no rotary embedding module and no embed_positions buffer"))
    angle1 = torch.atan2(sin[positions.index(1)], cos[positions.index(1)])
    return {"positions": positions, "seqLength": max(positions) + 1, "invFreq": angle1.tolist(), "invFreqFrom": "angle",
            "attentionFactor": float(cos[positions.index(0)][0]), "pairing": pairing,
            "cos": cos.tolist(), "sin": sin.tolist()}


def _on_axes(positions, axes):
    return positions if axes == 1 else [positions] * 3


def _mrope_apply_positions():
    # temporal, height, width of three tokens: a text-like one, an image patch, a far one
    return [[0, 8191, 131071], [0, 5, 131071], [0, 9, 131071]]


def per_frequency(emb, n):
    """cos and sin [seq][r/2] from what a rotary embedding returns: (cos, sin) with the
    frequencies repeated as cat(f, f) ('half') or repeat_interleave(f, 2)
    ('interleaved'), or once ('single'), or a complex freqs_cis ('complex')."""
    if torch.is_tensor(emb):  # Llama 4, DeepSeek V2: complex [batch][seq][r/2]
        return emb.real.reshape(-1, emb.shape[-1]).double(), emb.imag.reshape(-1, emb.shape[-1]).double(), "complex"
    cos, sin = emb
    cos = cos.reshape(-1, cos.shape[-2], cos.shape[-1])[0].double()
    sin = sin.reshape(-1, sin.shape[-2], sin.shape[-1])[0].double()
    width = cos.shape[-1]
    if n is not None and width == n:
        return cos, sin, "single"
    half = width // 2
    if torch.equal(cos[:, :half], cos[:, half:]) and torch.equal(sin[:, :half], sin[:, half:]):
        return cos[:, :half], sin[:, :half], "half"
    if torch.equal(cos[:, 0::2], cos[:, 1::2]) and torch.equal(sin[:, 0::2], sin[:, 1::2]):
        return cos[:, 0::2], sin[:, 0::2], "interleaved"
    return cos, sin, "unknown"
