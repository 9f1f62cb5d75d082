"""stubs.py: what transformers (main, 5.x) needs from its environment that Debian's
python3-torch (1.13) and python3 do not have, as stand-ins. Nothing here changes a
transformers file or a formula of it:

- import stubs for packages transformers imports at start-up but never uses on this
  path (huggingface_hub, safetensors, tokenizers, httpx): modules whose every attribute
  exists, and the version numbers transformers' start-up check asks for;
- torch >= 2.4 reported as torch's version, so that transformers enables its torch
  code, and the few torch 2.x names that code touches at import or in the rotary and
  attention paths run here: register_pytree_node, the float8 / uint dtype names,
  torch.compiler and torch._dynamo decorators (no-ops), @torch.no_grad without
  parentheses, torch.is_autocast_enabled(device_type), torch.get_default_device,
  Module.named_parameters / named_buffers(remove_duplicate=...), LayerNorm(bias=...),
  Embedding(_freeze=...), nn.RMSNorm and F.scaled_dot_product_attention (as torch's
  documentation defines them);
- float64_mode(): transformers' float32 tensors made float64 (torch.float,
  torch.float32, Tensor.float and the default dtype), so that its own lines evaluate
  their formulas in double precision, the precision posenc's frequencies are held to.

Call install(transformers_src) before importing transformers.
"""

import importlib
import importlib.abc
import importlib.machinery
import importlib.metadata
import sys
import types

STUB_ROOTS = {"huggingface_hub", "safetensors", "tokenizers", "httpx"}
STUB_VERSIONS = {"huggingface-hub": "1.3.0", "huggingface_hub": "1.3.0", "safetensors": "0.4.3",
                 "tokenizers": "0.22.0", "httpx": "0.28.0"}
TORCH_STUBS = {"torch.distributed.tensor"}  # torch 2.x packages imported at start-up only


class StubModule(types.ModuleType):
    """A package transformers imports but never needs here: every attribute exists
    (UPPER_CASE constants as strings, CamelCase names as empty classes, the rest as
    callable sub-stubs returning None)."""

    def __call__(self, *args, **kwargs):
        return None

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if name.isupper():
            value = "/nonexistent/stub-" + name.lower()
        elif name[:1].isupper():
            bases = (Exception,) if name.endswith(("Error", "Exception", "Warning")) else (object,)
            value = type(name, bases, {"__init__": lambda self, *a, **k: None})
        else:
            value = StubModule(self.__name__ + "." + name)
        setattr(self, name, value)
        return value


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        stubbed = name.split(".")[0] in STUB_ROOTS or any(name == t or name.startswith(t + ".") for t in TORCH_STUBS)
        return importlib.machinery.ModuleSpec(name, self, is_package=True) if stubbed else None

    def create_module(self, spec):
        module = StubModule(spec.name)
        module.__path__ = []
        module.__version__ = STUB_VERSIONS.get(spec.name, "1.0.0")
        return module

    def exec_module(self, module):
        pass


class _MissingDtype:
    """A dtype name torch 1.13 lacks (float8, uint16, ...): transformers lists them in
    tables; nothing on the rotary path uses them."""

    def __init__(self, name):
        self.name = name
        self.itemsize = 1
        self.is_floating_point = False

    def __repr__(self):
        return "torch." + self.name


def _shim(module, name, value):
    if not hasattr(module, name):
        setattr(module, name, value)


def install(transformers_src):
    sys.meta_path.insert(0, _Finder())
    real_version = importlib.metadata.version

    def version(name):
        if name == "torch":
            return "2.4.0"
        return STUB_VERSIONS.get(name) or real_version(name)

    importlib.metadata.version = version
    sys.path.insert(0, transformers_src)

    import torch
    import torch.utils._pytree as pytree

    _shim(pytree, "register_pytree_node", lambda *a, **k: None)
    for name in ("float8_e4m3fn", "float8_e5m2", "float8_e8m0fnu", "float8_e4m3fnuz", "float8_e5m2fnuz",
                 "uint16", "uint32", "uint64", "float4_e2m1fn_x2"):
        _shim(torch, name, _MissingDtype(name))

    no_grad = torch.no_grad

    class NoGrad(no_grad):
        """@torch.no_grad without parentheses (torch >= 2)."""

        def __new__(cls, func=None):
            return no_grad()(func) if func is not None else super().__new__(cls)

        def __init__(self, func=None):
            super().__init__()

    torch.no_grad = NoGrad

    compiler = types.ModuleType("torch.compiler")
    compiler.disable = lambda fn=None, recursive=True: fn if callable(fn) else (lambda f: f)
    compiler.is_compiling = lambda: False
    compiler.is_dynamo_compiling = lambda: False
    compiler.allow_in_graph = lambda fn: fn
    _shim(torch, "compiler", compiler)
    sys.modules.setdefault("torch.compiler", compiler)

    dynamo = types.ModuleType("torch._dynamo")
    dynamo.allow_in_graph = lambda fn: fn
    dynamo.is_compiling = lambda: False
    dynamo.disable = compiler.disable
    dynamo.mark_static_address = lambda *a, **k: None
    dynamo.config = types.SimpleNamespace()
    _shim(torch, "_dynamo", dynamo)
    sys.modules.setdefault("torch._dynamo", dynamo)

    _shim(torch, "get_default_device", lambda: torch.device("cpu"))
    _torch2_modules(torch)

    autocast_enabled = torch.is_autocast_enabled
    torch.is_autocast_enabled = lambda device_type=None: autocast_enabled()


def _torch2_modules(torch):
    """nn and functional names of torch >= 2 that model classes build or call."""
    nn, F = torch.nn, torch.nn.functional
    for name in ("named_parameters", "named_buffers"):
        real = getattr(nn.Module, name)
        if "remove_duplicate" not in real.__code__.co_varnames:
            def without(self, prefix="", recurse=True, remove_duplicate=True, _real=real):
                return _real(self, prefix=prefix, recurse=recurse)
            setattr(nn.Module, name, without)

    if "bias" not in nn.LayerNorm.__init__.__code__.co_varnames:
        class LayerNorm(nn.LayerNorm):
            """LayerNorm(bias=False) (torch >= 2.1)."""

            def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, device=None, dtype=None):
                super().__init__(normalized_shape, eps=eps, elementwise_affine=elementwise_affine, device=device, dtype=dtype)
                if not bias:
                    self.register_parameter("bias", None)

        nn.LayerNorm = LayerNorm

    if not hasattr(nn, "RMSNorm"):
        class RMSNorm(nn.Module):
            """nn.RMSNorm (torch >= 2.4): x / sqrt(mean(x^2) + eps) * weight."""

            def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None, dtype=None):
                super().__init__()
                shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
                self.normalized_shape, self.eps = shape, eps
                self.weight = nn.Parameter(torch.ones(shape)) if elementwise_affine else None

            def forward(self, x):
                eps = self.eps if self.eps is not None else torch.finfo(x.dtype).eps
                dims = tuple(range(-len(self.normalized_shape), 0))
                y = x * torch.rsqrt(x.pow(2).mean(dims, keepdim=True) + eps)
                return y * self.weight if self.weight is not None else y

        nn.RMSNorm = RMSNorm

    if "_freeze" not in nn.Embedding.__init__.__code__.co_varnames:
        class Embedding(nn.Embedding):
            """Embedding(_freeze=...) (torch >= 2)."""

            def __init__(self, *args, _freeze=False, **kwargs):
                super().__init__(*args, **kwargs)

        nn.Embedding = Embedding

    if not hasattr(F, "scaled_dot_product_attention"):
        def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False):
            """torch >= 2.0's attention, as its documentation defines it (no dropout)."""
            scale = scale if scale is not None else query.shape[-1] ** -0.5
            if enable_gqa and key.shape[-3] != query.shape[-3]:
                repeat = query.shape[-3] // key.shape[-3]
                key, value = key.repeat_interleave(repeat, -3), value.repeat_interleave(repeat, -3)
            scores = query @ key.transpose(-2, -1) * scale
            if is_causal:
                scores = scores.masked_fill(torch.ones(scores.shape[-2:], dtype=torch.bool).tril().logical_not(), float("-inf"))
            if attn_mask is not None:
                scores = scores.masked_fill(attn_mask.logical_not(), float("-inf")) if attn_mask.dtype == torch.bool else scores + attn_mask
            return scores.softmax(-1) @ value

        F.scaled_dot_product_attention = scaled_dot_product_attention


def float64_mode():
    """transformers' float32 arithmetic in float64: its own lines, evaluated in double."""
    import torch

    torch.set_default_dtype(torch.float64)
    torch.float = torch.float64
    torch.float32 = torch.float64
    torch.Tensor.float = lambda self, *a, **k: self.to(torch.float64)
