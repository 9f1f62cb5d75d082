"""The safetensors format (Hugging Face safetensors, docs "format"), written by
hand: an 8-byte little-endian header length N, N bytes of JSON
{name: {dtype, shape, data_offsets: [begin, end]}, "__metadata__": {str: str}},
then the tensors' raw little-endian bytes, back to back."""
import json
import struct
import sys

import torch

DTYPES = {torch.float32: "F32", torch.float16: "F16", torch.int32: "I32"}
TORCH_DTYPES = {v: k for k, v in DTYPES.items()}


def safetensors_bytes(tensors, metadata=None):
    """tensors: {name: tensor} (F32, F16 or I32), in the order given."""
    assert sys.byteorder == "little", "safetensors data is little-endian"
    header, blobs, offset = {}, [], 0
    if metadata:
        header["__metadata__"] = {k: str(v) for k, v in metadata.items()}
    for name, t in tensors.items():
        data = t.detach().contiguous().numpy().tobytes()  # native order: little-endian (asserted above)
        header[name] = {"dtype": DTYPES[t.dtype], "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # pad so the data starts 8-aligned (the format allows trailing spaces)
    return struct.pack("<Q", len(text)) + text + b"".join(blobs)


def write_safetensors(path, tensors, metadata=None):
    with open(path, "wb") as f:
        f.write(safetensors_bytes(tensors, metadata))


def read_safetensors(path):
    """-> ({name: tensor}, metadata)"""
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    metadata = header.pop("__metadata__", {})
    base = 8 + n
    tensors = {}
    for name, info in header.items():
        begin, end = info["data_offsets"]
        flat = torch.frombuffer(bytearray(raw[base + begin:base + end]), dtype=TORCH_DTYPES[info["dtype"]])
        tensors[name] = flat.reshape(info["shape"])
    return tensors, metadata
