"""Diffusion timestep embeddings and the 2-D sine-cosine table, as diffusers computes them.

Source: huggingface/diffusers, src/diffusers/models/embeddings.py
at commit 0002117e9fa1351a3c0ee988d9c13e683cfb273b:
  get_timestep_embedding              -> get_timestep_embedding   (torch, float32)
  get_2d_sincos_pos_embed             -> get_2d_sincos_pos_embed  (numpy)
  get_2d_sincos_pos_embed_from_grid   -> get_2d_sincos_pos_embed_from_grid
  get_1d_sincos_pos_embed_from_grid   -> get_1d_sincos_pos_embed_from_grid
Transcribed operation for operation (same torch / numpy calls, dtypes and order);
names and comments are ours.
"""
import math

import numpy as np
import torch


def get_timestep_embedding(timesteps, embedding_dim, flip_sin_to_cos=False, downscale_freq_shift=1,
                           scale=1, max_period=10000):
    """timesteps [N] -> [N][embedding_dim] float32."""
    assert len(timesteps.shape) == 1
    half_dim = embedding_dim // 2
    # every step in float32: the exponent, its exp, the angle t * w, its scale, sin and cos
    exponent = -math.log(max_period) * torch.arange(start=0, end=half_dim, dtype=torch.float32)
    exponent = exponent / (half_dim - downscale_freq_shift)
    emb = torch.exp(exponent)
    emb = timesteps[:, None].float() * emb[None, :]
    emb = scale * emb
    emb = torch.cat([torch.sin(emb), torch.cos(emb)], dim=-1)
    if flip_sin_to_cos:
        emb = torch.cat([emb[:, half_dim:], emb[:, :half_dim]], dim=-1)
    if embedding_dim % 2 == 1:
        emb = torch.nn.functional.pad(emb, (0, 1, 0, 0))
    return emb


def get_2d_sincos_pos_embed(embed_dim, grid_size, cls_token=False, extra_tokens=0, interpolation_scale=1.0,
                            base_size=16):
    """grid_size int or (height, width) -> [(extra_tokens if cls_token) + height * width][embed_dim] float64.
    Coordinates: arange(n) / (n / base_size) / interpolation_scale, in float32 (numpy keeps the
    float32 array's dtype when dividing by a Python float)."""
    if isinstance(grid_size, int):
        grid_size = (grid_size, grid_size)
    grid_h = np.arange(grid_size[0], dtype=np.float32) / (grid_size[0] / base_size) / interpolation_scale
    grid_w = np.arange(grid_size[1], dtype=np.float32) / (grid_size[1] / base_size) / interpolation_scale
    grid = np.meshgrid(grid_w, grid_h)  # the column coordinate first
    grid = np.stack(grid, axis=0)
    grid = grid.reshape([2, 1, grid_size[1], grid_size[0]])
    pos_embed = get_2d_sincos_pos_embed_from_grid(embed_dim, grid)
    if cls_token and extra_tokens > 0:
        pos_embed = np.concatenate([np.zeros([extra_tokens, embed_dim]), pos_embed], axis=0)
    return pos_embed


def get_2d_sincos_pos_embed_from_grid(embed_dim, grid):
    if embed_dim % 2 != 0:
        raise ValueError("embed_dim must be divisible by 2")
    # the first half of each row from grid[0] (columns), the second from grid[1] (rows)
    emb_h = get_1d_sincos_pos_embed_from_grid(embed_dim // 2, grid[0])
    emb_w = get_1d_sincos_pos_embed_from_grid(embed_dim // 2, grid[1])
    return np.concatenate([emb_h, emb_w], axis=1)


def get_1d_sincos_pos_embed_from_grid(embed_dim, pos):
    if embed_dim % 2 != 0:
        raise ValueError("embed_dim must be divisible by 2")
    # omega_k = 10000^(-k / (embed_dim / 2)) in float64; the outer product promotes pos to float64
    omega = np.arange(embed_dim // 2, dtype=np.float64)
    omega /= embed_dim / 2.0
    omega = 1.0 / 10000**omega
    pos = pos.reshape(-1)
    out = np.einsum("m,d->md", pos, omega)
    return np.concatenate([np.sin(out), np.cos(out)], axis=1)
