#!/usr/bin/env python3
"""Writes tests/fixtures/reference-torch/*.json: the real reference implementations
(tools/reference/*.py, each transcribed from its source, or torch's own modules) run
on the cases posenc's tests replay. Deterministic; not run by `make test`.

    /usr/bin/python3 tools/reference/make_fixtures.py      (or: make reference)

Needs Debian's python3-torch (1.13) and python3-numpy. See tools/reference/README.md.
"""
import json
import math
import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import diffusers_embeddings  # noqa: E402
import hf_bloom  # noqa: E402
import hf_deberta_v2  # noqa: E402
import hf_qwen2_vl  # noqa: E402
import hf_t5  # noqa: E402
import mae_pos_embed  # noqa: E402
import mpt_alibi  # noqa: E402
import torch_encoder  # noqa: E402

OUT = os.path.join(HERE, "..", "..", "tests", "fixtures", "reference-torch")
VERSIONS = {"torch": torch.__version__, "numpy": np.__version__, "python": sys.version.split()[0]}


# ---------------------------------------------------------------- writing

class F32:
    """A float32 tensor written with the shortest decimals that read back as the same float32:
    the reader rounds them with Float32Array.from or Math.fround (a third of the bytes of the
    doubles' decimals)."""

    def __init__(self, tensor):
        self.values = tensor.detach().to(torch.float32).reshape(-1).tolist()
        if not all(math.isfinite(v) for v in self.values):
            raise ValueError("a non-finite float32 in a fixture")


def number(v):
    if isinstance(v, bool) or isinstance(v, int):
        return json.dumps(v)
    if math.isinf(v):
        return json.dumps("-Infinity" if v < 0 else "Infinity")
    if math.isnan(v):
        raise ValueError("NaN in a fixture")
    if v == int(v) and abs(v) < 2 ** 53:
        return str(int(v)) if not (v == 0 and math.copysign(1, v) < 0) else "-0"
    return repr(float(v))  # the shortest decimal that reads back as the same double


def serialise(value, indent=""):
    """JSON with objects indented and arrays of numbers on one line."""
    nxt = indent + "  "
    if isinstance(value, F32):
        return "[" + ",".join(np.format_float_positional(np.float32(v), unique=True, trim="-") for v in value.values) + "]"
    if isinstance(value, torch.Tensor):
        value = value.tolist()
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        if all(not isinstance(v, (list, tuple, dict, torch.Tensor, np.ndarray, F32)) for v in value):
            return "[" + ",".join(number(v) if not isinstance(v, str) else json.dumps(v) for v in value) + "]"
        return "[\n" + ",\n".join(nxt + serialise(v, nxt) for v in value) + "\n" + indent + "]"
    if isinstance(value, dict):
        return "{\n" + ",\n".join(nxt + json.dumps(k) + ": " + serialise(v, nxt) for k, v in value.items()) + "\n" + indent + "}"
    if isinstance(value, str):
        return json.dumps(value)
    if value is None:
        return "null"
    return number(value)


def write(name, meta, body):
    path = os.path.join(OUT, name)
    numbers = ("integers exact; float64 results in the shortest decimals of the double; float32 tensors in the "
               "shortest decimals that read back as the same float32 (read them with Float32Array.from or Math.fround)")
    header = {**meta, "generator": "tools/reference/make_fixtures.py", "versions": VERSIONS, "numbers": numbers}
    text = serialise({"meta": header, **body}) + "\n"
    json.loads(text)
    with open(path, "w") as f:
        f.write(text)
    print(f"{os.path.relpath(path)}: {len(text)} bytes")


def sweep(limit):
    """0 .. 70 one by one, then about 1.37 times the previous, then limit itself."""
    out = list(range(71))
    n = 70
    while True:
        n = int(n * 1.37) + 1
        if n >= limit:
            break
        out.append(n)
    return out + [limit]


# ---------------------------------------------------------------- T5

T5_SOURCE = {"file": "huggingface/transformers src/transformers/models/t5/modeling_t5.py",
             "commit": "6b8b757dfcb582379a64f013cdce46c43629f2b0",
             "functions": "T5Attention._relative_position_bucket, T5Attention.compute_bias"}
T5_CONFIGS = [(True, 32, 128), (False, 32, 128), (True, 16, 64), (False, 16, 64), (False, 15, 64), (True, 31, 128)]


def t5_fixture():
    configs = []
    for bidirectional, nb, md in T5_CONFIGS:
        # one query at position 1000 against keys 0 .. 2000: key - query = -1000 .. 1000
        table = hf_t5.bucket_matrix(1, 2001, bidirectional, nb, md, cache_position=torch.tensor([1000]))[0]
        matrices = []
        for q, k, offset in [(1, 300, 0), (4, 20, 0), (3, 300, 150)]:
            b = hf_t5.bucket_matrix(q, k, bidirectional, nb, md, cache_position=torch.arange(offset, offset + q))
            matrices.append({"queryLength": q, "keyLength": k, "queryOffset": offset, "buckets": b.reshape(-1)})
        far = sweep(2 ** 31 - 1)
        near = sweep(2 ** 20)
        rel = torch.tensor([-n for n in far] + near, dtype=torch.long)
        configs.append({
            "bidirectional": bidirectional, "numBuckets": nb, "maxDistance": md,
            "relativePositionStart": -1000, "table": table,
            "matrices": matrices,
            "sweep": {"relativePositions": rel, "buckets": hf_t5.relative_position_bucket(rel, bidirectional, nb, md)},
        })
    biases = []
    generator = torch.Generator().manual_seed(5)
    for bidirectional, nb, md, heads, q, k, offset in [(True, 32, 128, 3, 5, 40, 2), (False, 32, 128, 2, 4, 200, 150)]:
        weight = (torch.rand(nb, heads, generator=generator) * 4 - 2).to(torch.float32)
        bias = hf_t5.compute_bias(weight, q, k, bidirectional, nb, md, cache_position=torch.arange(offset, offset + q))
        biases.append({"bidirectional": bidirectional, "numBuckets": nb, "maxDistance": md, "heads": heads,
                       "queryLength": q, "keyLength": k, "queryOffset": offset,
                       "weights": F32(weight), "bias": F32(bias)})
    write("t5.json", {
        "source": T5_SOURCE,
        "conventions": {
            "table": "buckets of key - query = relativePositionStart + i (bucket_matrix(1, 2001) with cache_position [1000])",
            "matrices": "bucket_matrix(queryLength, keyLength, cache_position = queryOffset + arange(queryLength)), row-major",
            "sweep": "_relative_position_bucket on the listed relative positions (key - query)",
            "bias": "compute_bias(...)[0], [heads][query][key] row-major, from weights [numBuckets][heads] (float32, shortest decimals)",
        },
    }, {"configs": configs, "bias": biases})


# ---------------------------------------------------------------- DeBERTa-v2

DEBERTA_SOURCE = {"file": "huggingface/transformers src/transformers/models/deberta_v2/modeling_deberta_v2.py",
                  "commit": "967ed0db036766dc1e9a964eca66a8c07df1b902",
                  "functions": "make_log_bucket_position, build_relative_position"}


def deberta_fixture():
    configs = []
    for bucket_size, max_position in [(256, 512), (8, 16), (64, 1024)]:
        # query - key = -2000 .. 0 (one query, 2001 keys) and 0 .. 2000 (2001 queries, one key)
        below = hf_deberta_v2.build_relative_position(1, 2001, bucket_size, max_position)[0, 0].flip(0)
        above = hf_deberta_v2.build_relative_position(2001, 1, bucket_size, max_position)[0, :, 0]
        table = torch.cat([below, above[1:]])
        matrices = [{"queryLength": q, "keyLength": k,
                     "relativePositions": hf_deberta_v2.build_relative_position(q, k, bucket_size, max_position)[0].reshape(-1)}
                    for q, k in [(5, 24), (24, 3)]]
        far = sweep(2 ** 20)
        rel = torch.tensor([-n for n in far] + far, dtype=torch.long)
        configs.append({
            "bucketSize": bucket_size, "maxPosition": max_position, "relativePositionStart": -2000, "table": table,
            "matrices": matrices,
            "sweep": {"relativePositions": rel,
                      "buckets": hf_deberta_v2.make_log_bucket_position(rel, bucket_size, max_position).to(torch.long)},
        })
    unbucketed = hf_deberta_v2.build_relative_position(3, 5)[0].reshape(-1)
    write("deberta.json", {
        "source": DEBERTA_SOURCE,
        "conventions": {
            "table": "bucket of query - key = relativePositionStart + i (build_relative_position(1, 2001) and (2001, 1))",
            "matrices": "build_relative_position(queryLength, keyLength, bucketSize, maxPosition)[0], row-major",
            "sweep": "make_log_bucket_position on the listed relative positions (query - key), then .to(long)",
            "unbucketed": "build_relative_position(3, 5) without buckets: query - key",
        },
    }, {"configs": configs, "unbucketed": {"queryLength": 3, "keyLength": 5, "relativePositions": unbucketed}})


# ---------------------------------------------------------------- ALiBi

MPT_SOURCE = {"file": "mosaicml/llm-foundry llmfoundry/models/layers/attention.py",
              "commit": "11d3d7066fa22766b8f9ce5f72372a90a9b25a82", "functions": "gen_slopes, build_alibi_bias"}
BLOOM_SOURCE = {"file": "huggingface/transformers src/transformers/models/bloom/modeling_bloom.py",
                "commit": "9d97831a1cbb420edac062c2e8454ce9ac1c4b79", "functions": "build_alibi_tensor"}
HEADS = list(range(1, 17)) + [20, 24, 32, 48, 64]


def alibi_fixture():
    mpt_slopes = []
    for heads, bias_max in [(h, 8) for h in HEADS] + [(h, 16) for h in (4, 6, 8, 12)] + [(h, 4) for h in (8, 12)]:
        mpt_slopes.append({"heads": heads, "maxBias": bias_max,
                           "slopes": F32(mpt_alibi.gen_slopes(heads, bias_max))})
    mpt_bias = []
    for heads, seq, full, bias_max in [(3, 6, True, 8), (12, 9, True, 8), (5, 7, True, 16), (12, 9, False, 8), (3, 6, False, 8)]:
        b = mpt_alibi.build_alibi_bias(heads, seq, full=full, alibi_bias_max=bias_max, dtype=torch.float32)
        mpt_bias.append({"heads": heads, "seqLength": seq, "full": full, "maxBias": bias_max, "bias": F32(b)})
    bloom = []
    for heads in HEADS:
        seq = 9
        alibi = hf_bloom.build_alibi_tensor(torch.ones(1, seq, dtype=torch.long), heads, torch.float32)
        bloom.append({"heads": heads, "seqLength": seq, "alibi": F32(alibi)})
    write("alibi.json", {
        "source": {"mpt": MPT_SOURCE, "bloom": BLOOM_SOURCE},
        "conventions": {
            "mptSlopes": "gen_slopes(heads, alibi_bias_max), float32",
            "mptBias": "build_alibi_bias(heads, seqLength, full, alibi_bias_max, float32)[0]: full [heads][seq][seq] = "
                       "-m|i - j|; not full [heads][1][seq] = m (j - (seq - 1)), one row for every query",
            "bloom": "build_alibi_tensor(ones(1, seqLength), heads, float32): [heads][1][seq] = m_h * j, one row for every "
                     "query; m_h = alibi[h][1]",
        },
    }, {"mptSlopes": mpt_slopes, "mptBias": mpt_bias, "bloom": bloom})


# ---------------------------------------------------------------- timestep embeddings

DIFFUSERS_SOURCE = {"file": "huggingface/diffusers src/diffusers/models/embeddings.py",
                    "commit": "0002117e9fa1351a3c0ee988d9c13e683cfb273b"}
TIMESTEPS_INT = [0, 1, 2, 10, 999]
TIMESTEPS_FRACTIONAL = [0, 0.5, 1.25, 12.345, 999.9, -3.75]
TIMESTEP_CASES = [
    ("defaults-dim8", TIMESTEPS_INT, dict(embedding_dim=8)),
    ("odd-dim7", TIMESTEPS_INT, dict(embedding_dim=7)),
    ("flip", TIMESTEPS_INT, dict(embedding_dim=8, flip_sin_to_cos=True)),
    ("shift0", TIMESTEPS_INT, dict(embedding_dim=8, downscale_freq_shift=0)),
    ("shift0-flip-odd-dim9", TIMESTEPS_FRACTIONAL, dict(embedding_dim=9, flip_sin_to_cos=True, downscale_freq_shift=0)),
    ("sd-unet-dim32", [981, 961.5, 0], dict(embedding_dim=32, flip_sin_to_cos=True, downscale_freq_shift=0)),
    ("scale1000-unit-interval", [0, 0.001, 0.25, 0.5, 1], dict(embedding_dim=16, scale=1000)),
    ("fractional", TIMESTEPS_FRACTIONAL, dict(embedding_dim=10)),
    ("max-period-5000-shift0.5", TIMESTEPS_FRACTIONAL, dict(embedding_dim=12, downscale_freq_shift=0.5, max_period=5000)),
    ("dit-dim256", [0, 1, 500, 999], dict(embedding_dim=256, flip_sin_to_cos=True, downscale_freq_shift=0)),
]
OPTION_NAMES = {"embedding_dim": "dim", "flip_sin_to_cos": "flipSinToCos", "downscale_freq_shift": "downscaleFreqShift",
                "scale": "scale", "max_period": "maxPeriod"}


def timestep_fixture():
    cases = []
    for name, timesteps, options in TIMESTEP_CASES:
        t = torch.tensor(timesteps, dtype=torch.float32)
        emb = diffusers_embeddings.get_timestep_embedding(t, **options)
        cases.append({"name": name, "timesteps": timesteps, "timesteps32": F32(t),
                      **{OPTION_NAMES[k]: v for k, v in options.items()}, "embedding": F32(emb)})
    write("timestep.json", {
        "source": {**DIFFUSERS_SOURCE, "functions": "get_timestep_embedding"},
        "conventions": {"embedding": "[timesteps][dim] row-major, float32; timesteps32: the float32 timesteps torch saw "
                                     "(torch.tensor(timesteps, dtype=float32))"},
    }, {"cases": cases})


# ---------------------------------------------------------------- 2-D sine-cosine tables

MAE_SOURCE = {"file": "facebookresearch/mae util/pos_embed.py", "commit": "be47fef7a727943547afb0c670cf1b26034c3c89",
              "functions": "get_2d_sincos_pos_embed, get_2d_sincos_pos_embed_from_grid, get_1d_sincos_pos_embed_from_grid"}


def sincos2d_fixture():
    cases = []
    for d, n, cls in [(16, 4, True), (8, 3, False), (24, 5, True)]:
        cases.append({"source": "mae", "height": n, "width": n, "dModel": d, "clsToken": cls,
                      "table": mae_pos_embed.get_2d_sincos_pos_embed(d, n, cls_token=cls).reshape(-1)})
    for d, h, w in [(12, 3, 5), (8, 2, 7)]:
        table = mae_pos_embed.get_2d_sincos_pos_embed_from_grid(d, mae_pos_embed.grid_of(h, w))
        cases.append({"source": "mae-from-grid", "height": h, "width": w, "dModel": d, "clsToken": False,
                      "table": table.reshape(-1)})
    for d, h, w, base_size, scale, cls in [(8, 3, 6, 4, 2, False), (8, 5, 2, 16, 1, False), (16, 4, 4, 4, 1, True),
                                           (12, 6, 3, 2, 0.5, False)]:
        table = diffusers_embeddings.get_2d_sincos_pos_embed(d, (h, w), cls_token=cls, extra_tokens=1 if cls else 0,
                                                             interpolation_scale=scale, base_size=base_size)
        cases.append({"source": "diffusers", "height": h, "width": w, "dModel": d, "clsToken": cls,
                      "baseSize": base_size, "interpolationScale": scale, "table": table.reshape(-1)})
    write("sincos2d.json", {
        "source": {"mae": MAE_SOURCE, "diffusers": {**DIFFUSERS_SOURCE, "functions": "get_2d_sincos_pos_embed, "
                                                    "get_2d_sincos_pos_embed_from_grid, get_1d_sincos_pos_embed_from_grid"}},
        "conventions": {
            "table": "[(clsToken ? 1 : 0) + height * width][dModel] row-major, float64 as numpy returns it (the "
                     "models round it to float32 when they copy it into pos_embed)",
            "mae-from-grid": "get_2d_sincos_pos_embed_from_grid on the grid get_2d_sincos_pos_embed builds, height x width",
            "diffusers": "coordinates arange(n) / (n / baseSize) / interpolationScale in float32; a cls row needs "
                         "extra_tokens = 1",
        },
    }, {"cases": cases})


# ---------------------------------------------------------------- M-RoPE positions

QWEN_SOURCE = {
    "qwen2-vl": {"file": "huggingface/transformers src/transformers/models/qwen2_vl/modeling_qwen2_vl.py",
                 "commit": "928b5565ecea2852ac5a41701c90589321548522",
                 "functions": "Qwen2VLForConditionalGeneration.get_rope_index"},
    "qwen2.5-vl": {"file": "huggingface/transformers src/transformers/models/qwen2_5_vl/modeling_qwen2_5_vl.py",
                   "commit": "efa7189c5546a94e8c1194b2ccc6669e0f7ad65e",
                   "functions": "Qwen2_5_VLForConditionalGeneration.get_rope_index"},
}
MROPE_CASES = [
    ("text-image-text", [{"text": 12}, {"image": [1, 28, 42]}, {"text": 5}], 2, None),
    ("two-images-and-a-video", [{"text": 3}, {"image": [1, 4, 6]}, {"text": 2}, {"image": [1, 8, 2]}, {"text": 1},
                                {"video": [3, 4, 4]}, {"text": 4}], 2, None),
    ("text-only", [{"text": 7}], 2, None),
    ("video-first", [{"text": 1}, {"video": [2, 4, 6]}, {"text": 3}], 2, None),
    ("merge-1", [{"text": 1}, {"image": [2, 3, 5]}, {"text": 2}], 1, None),
    ("video-qwen2.5-vl-2s", [{"text": 2}, {"video": [4, 2, 2], "secondsPerGrid": 2}, {"text": 2}], 2, 25),
    ("video-qwen2.5-vl-0.5s-image", [{"text": 2}, {"video": [5, 4, 2], "secondsPerGrid": 0.5}, {"text": 1},
                                     {"image": [1, 2, 2]}, {"text": 3}], 2, 2),
    ("video-qwen2.5-vl-fractional", [{"text": 1}, {"video": [7, 2, 2], "secondsPerGrid": 2 / 3}, {"text": 1}], 2, 3),
    ("image-qwen2.5-vl", [{"text": 4}, {"image": [1, 6, 4]}, {"text": 2}], 2, 2),
]


def token_ids(spans, merge):
    """The token ids a chat template writes for spans: a text span of n tokens is n ordinary ids, the last of
    them <|vision_start|> when a grid follows; a grid is t * (h / m) * (w / m) image or video pad ids."""
    ids = []
    for i, span in enumerate(spans):
        if "text" in span:
            grid_next = i + 1 < len(spans) and "text" not in spans[i + 1]
            ids += [1000 + j if not (grid_next and j == span["text"] - 1) else hf_qwen2_vl.VISION_START_TOKEN_ID
                    for j in range(span["text"])]
        else:
            kind = "image" if "image" in span else "video"
            t, h, w = span[kind]
            ids += [hf_qwen2_vl.IMAGE_TOKEN_ID if kind == "image" else hf_qwen2_vl.VIDEO_TOKEN_ID] * (t * (h // merge) * (w // merge))
    return ids


def mrope_fixture():
    cases = []
    for name, spans, merge, tps in MROPE_CASES:
        ids = torch.tensor([token_ids(spans, merge)])
        images = [s["image"] for s in spans if "image" in s]
        videos = [s["video"] for s in spans if "video" in s]
        seconds = torch.tensor([s.get("secondsPerGrid", 1.0) for s in spans if "video" in s], dtype=torch.float32)
        positions, delta = hf_qwen2_vl.get_rope_index(
            ids, torch.tensor(images) if images else None, torch.tensor(videos) if videos else None,
            spatial_merge_size=merge, tokens_per_second=tps, second_per_grid_ts=seconds if tps is not None else None)
        posenc_spans = [s if "text" in s else
                        ({"image": s["image"]} if "image" in s else
                         {"video": {"t": s["video"][0], "h": s["video"][1], "w": s["video"][2],
                                    **({"secondsPerGrid": s["secondsPerGrid"]} if "secondsPerGrid" in s else {})}})
                        for s in spans]
        cases.append({"name": name, "model": "qwen2.5-vl" if tps is not None else "qwen2-vl", "spans": posenc_spans,
                      "spatialMergeSize": merge, **({"tokensPerSecond": tps} if tps is not None else {}),
                      "seq": ids.shape[1], "positions": positions[:, 0, :].reshape(-1), "ropeDelta": int(delta[0, 0])})
    write("mrope-positions.json", {
        "source": QWEN_SOURCE,
        "conventions": {
            "positions": "get_rope_index(input_ids)[0][:, 0, :], [3][seq] row-major (temporal, height, width)",
            "input_ids": "a text span of n tokens is n ordinary ids, the last <|vision_start|> (151652) when a grid "
                         "follows; a grid is t * (h / m) * (w / m) image (151655) or video (151656) ids; "
                         "second_per_grid_ts a float32 tensor (as the processor returns it)",
        },
    }, {"cases": cases})


# ---------------------------------------------------------------- nn.TransformerEncoder

ENCODER_CASES = [
    # what the trained copy-task models (pre-norm, GELU, final norm, causal) leave out
    ("post-norm-relu-padding", dict(norm="post", activation="relu", finalNorm=False, positional={"type": "none"}),
     False, [[1, 2, 3, 4, 5, 0, 0], [7, 7, 2, 9, 10, 3, 1]], [[1, 1, 1, 1, 1, 0, 0], [1, 1, 1, 1, 1, 1, 1]]),
    ("pre-norm-gelu-causal-padding", dict(norm="pre", activation="gelu", finalNorm=True, positional={"type": "none"}),
     True, [[4, 3, 2, 1, 0, 0], [9, 8, 8, 1, 2, 3]], [[1, 1, 1, 1, 0, 0], [1, 1, 1, 1, 1, 1]]),
    ("post-norm-gelu-tanh-alibi", dict(norm="post", activation="gelu_tanh", finalNorm=False,
                                       positional={"type": "alibi", "maxBias": 8}),
     False, [[3, 1, 4, 1, 5, 9, 2, 6]], [[1, 1, 1, 1, 1, 1, 0, 0]]),
    ("pre-norm-relu-causal-alibi", dict(norm="pre", activation="relu", finalNorm=True,
                                        positional={"type": "alibi", "maxBias": 8}),
     True, [[2, 7, 1, 8, 2, 8]], None),
    ("pre-norm-gelu-t5-bidirectional", dict(norm="pre", activation="gelu", finalNorm=True,
                                            positional={"type": "t5", "numBuckets": 16, "maxDistance": 20,
                                                        "bidirectional": True}),
     False, [[1, 6, 1, 8, 0, 3, 3, 9, 8]], [[1, 1, 1, 1, 1, 1, 1, 0, 0]]),
]


def encoder_fixture():
    cases = []
    for k, (name, shape, causal, tokens, masks) in enumerate(ENCODER_CASES):
        config = {"vocabSize": 11, "dModel": 8, "heads": 2, "dFF": 16, "layers": 2, "embedScale": 1.5, "normEps": 1e-5,
                  **shape}
        encoder, tensors = torch_encoder.build(config, seed=100 + k)
        out64 = torch_encoder.run(encoder, config, tensors, tokens, masks, causal, torch.float64)
        out32 = torch_encoder.run(encoder, config, tensors, tokens, masks, causal, torch.float32)
        cases.append({
            "name": name, "config": config, "causal": causal, "tokens": tokens, "masks": masks,
            "tensors": {n: {"shape": list(t.shape), "data": F32(t)} for n, t in tensors.items()},
            "output": out64.reshape(-1), "outputFloat32": F32(out32),
        })
    write("encoder.json", {
        "source": {"file": "torch/nn/modules/transformer.py (the installed torch)",
                   "modules": "nn.TransformerEncoder(nn.TransformerEncoderLayer(batch_first=True, dropout=0), norm)",
                   "alibi": MPT_SOURCE, "t5": T5_SOURCE},
        "conventions": {
            "config": "posenc's createEncoder options",
            "tensors": "the state_dict (PyTorch's names) and embed.weight (relative_attention_bias.weight [numBuckets]"
                       "[heads] for T5), float32 in shortest decimals",
            "input": "x = embed.weight[tokens] * embedScale; masks: src_key_padding_mask (0 = padding); the ALiBi or T5 "
                     "bias (tools/reference/torch_encoder.py) and the causal mask as the float src_mask",
            "output": "[batch][seq][dModel] row-major: the module run in float64 on the float32 weights",
            "outputFloat32": "the same module run in float32 (how far torch's own float32 run is from float64)",
        },
    }, {"cases": cases})


def main():
    torch.set_num_threads(1)
    os.makedirs(OUT, exist_ok=True)
    t5_fixture()
    deberta_fixture()
    alibi_fixture()
    timestep_fixture()
    sincos2d_fixture()
    mrope_fixture()
    encoder_fixture()


if __name__ == "__main__":
    main()
