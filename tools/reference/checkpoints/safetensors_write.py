"""safetensors_write.py: Hugging Face's safetensors format written by hand
(the package is not installed here): an 8-byte little-endian header length,
the JSON header padded with spaces to a multiple of 8, the raw little-endian
data. F32, F16 and BF16 tensors."""
import json
import struct

import torch


def write_safetensors(path, tensors):
    """Hugging Face's format by hand: u64 LE header length, JSON header, raw data."""
    names = sorted(tensors)
    header, blobs, offset = {"__metadata__": {"format": "pt"}}, [], 0
    for name in names:
        t = tensors[name]
        if t.dtype == torch.float32:
            dtype, data = "F32", t.numpy().astype("<f4").tobytes()
        elif t.dtype == torch.float16:
            dtype, data = "F16", t.numpy().astype("<f2").tobytes()
        elif t.dtype == torch.bfloat16:
            dtype, data = "BF16", t.view(torch.int16).numpy().astype("<i2").tobytes()
        else:
            raise ValueError(f"{name}: {t.dtype}")
        header[name] = {"dtype": dtype, "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)
