"""hf_stubs.py: import stubs for running transformers' modeling code offline on
Debian's torch 1.13 (import this before transformers). Nothing of transformers is
copied or patched: its files run as they are, and what they import or call that
this machine lacks is stood in for here.

The hub and tokenizer packages transformers imports at module level are not
installed, and nothing here downloads or tokenizes. Each stubbed name is a module that answers
any attribute: constants as a path string, other names as a callable stub (a
decorator given a function returns the function unchanged)."""
import importlib
import importlib.abc
import importlib.machinery
import sys
import types

STUBBED = ("huggingface_hub", "safetensors", "tokenizers", "httpx")


class _Stub(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if name.isupper():
            return "/tmp/posenc-hf-stub"
        return importlib.import_module(f"{self.__name__}.{name}")

    def __call__(self, *args, **kwargs):
        if len(args) == 1 and callable(args[0]) and not kwargs:
            return args[0]
        return self

    def __mro_entries__(self, bases):
        return (type(self.__name__.rsplit(".", 1)[-1], (), {}),)

    def __iter__(self):
        return iter(())

    def __or__(self, other):  # type annotations: Stub | str
        return self

    __ror__ = __or__


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path, target=None):
        if fullname.split(".")[0] in STUBBED:
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        m = _Stub(spec.name)
        m.__path__ = []
        m.__version__ = "1.0.0"
        return m

    def exec_module(self, module):
        pass


sys.meta_path.insert(0, _Finder())

# transformers checks its dependencies' installed versions at import: the stubbed
# packages have none (a module of that name, empty, stands in for the check)
_deps = types.ModuleType("transformers.dependency_versions_check")
_deps.dep_version_check = lambda *args, **kwargs: None
sys.modules["transformers.dependency_versions_check"] = _deps

# transformers enables its torch models for torch >= 2.4 only; Debian's is 1.13.
# The version it reads (importlib.metadata) answers 2.4.0 for torch, and the
# torch 2 names the modeling code touches are stubbed below as they are needed.
import importlib.metadata as _metadata

_real_version = _metadata.version


def _version(name):
    return "2.4.0" if name == "torch" else _real_version(name)


_metadata.version = _version

# torch 2 submodules that transformers imports at module level and that the
# forward pass of a small causal LM never calls
TORCH2_MODULES = ["torch.distributed.tensor", ]


class _TorchFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path, target=None):
        if fullname in TORCH2_MODULES:
            return importlib.machinery.ModuleSpec(fullname, _Finder(), is_package=True)
        return None


sys.meta_path.append(_TorchFinder())

import torch  # noqa: E402
import torch.utils._pytree as _pytree  # noqa: E402

if not hasattr(_pytree, "register_pytree_node"):
    _pytree.register_pytree_node = lambda *args, **kwargs: None

# dtypes of torch 2 that transformers lists in tables (never used by these models)
for _name in ("float8_e4m3fn", "float8_e5m2", "float8_e8m0fnu", "uint16", "uint32", "uint64", "float4_e2m1fn_x2"):
    if not hasattr(torch, _name):
        setattr(torch, _name, torch.float32 if _name.startswith("float") else torch.int32)

# torch 2 takes @torch.no_grad without parentheses; 1.13 wants no_grad()
_no_grad = torch.no_grad


class _NoGrad(_no_grad):
    def __new__(cls, func=None):
        if func is not None:
            return _no_grad()(func)
        return super().__new__(cls)

    def __init__(self, func=None):
        super().__init__()


torch.no_grad = _NoGrad

# torch.compiler (torch 2): its decorators leave the function as it is here
if not hasattr(torch, "compiler"):
    _compiler = types.ModuleType("torch.compiler")
    _compiler.disable = lambda fn=None, recursive=True: (fn if fn is not None else (lambda f: f))
    _compiler.is_compiling = lambda: False
    _compiler.is_dynamo_compiling = lambda: False
    torch.compiler = _compiler
    sys.modules["torch.compiler"] = _compiler

if not hasattr(torch, "_dynamo"):
    _dynamo = types.ModuleType("torch._dynamo")
    _dynamo.allow_in_graph = lambda fn: fn
    _dynamo.is_compiling = lambda: False
    torch._dynamo = _dynamo
    sys.modules["torch._dynamo"] = _dynamo

if not hasattr(torch, "get_default_device"):
    torch.get_default_device = lambda: torch.device("cpu")

# torch 2's init functions take generator=; 1.13's draw from the global generator
import functools  # noqa: E402
import inspect  # noqa: E402

for _name in dir(torch.nn.init):
    _fn = getattr(torch.nn.init, _name)
    if _name.endswith("_") and not _name.startswith("_") and callable(_fn) and "generator" not in inspect.signature(_fn).parameters:
        def _drop_generator(*args, _fn=_fn, generator=None, **kwargs):
            return _fn(*args, **kwargs)
        setattr(torch.nn.init, _name, functools.wraps(_fn)(_drop_generator))

# maybe_autocast calls torch.is_autocast_enabled(device_type) (torch 2.4's form)
_is_autocast_enabled = torch.is_autocast_enabled
torch.is_autocast_enabled = lambda device_type=None: _is_autocast_enabled()
