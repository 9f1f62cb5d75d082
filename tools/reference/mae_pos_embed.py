"""MAE's fixed 2-D sine-cosine position table (ViT / MAE / DiT).

Source: facebookresearch/mae, util/pos_embed.py
at commit be47fef7a727943547afb0c670cf1b26034c3c89:
  get_2d_sincos_pos_embed            -> get_2d_sincos_pos_embed
  get_2d_sincos_pos_embed_from_grid  -> get_2d_sincos_pos_embed_from_grid
  get_1d_sincos_pos_embed_from_grid  -> get_1d_sincos_pos_embed_from_grid
Transcribed operation for operation (same numpy calls, dtypes and order); names and
comments are ours. One change: MAE writes dtype=np.float, an alias of np.float64
that numpy 1.24 (Debian's) removed; np.float64 is what it meant.
"""
import numpy as np


def get_2d_sincos_pos_embed(embed_dim, grid_size, cls_token=False):
    """A square grid_size x grid_size grid -> [(1 if cls_token) + grid_size^2][embed_dim] float64."""
    grid_h = np.arange(grid_size, dtype=np.float32)
    grid_w = np.arange(grid_size, dtype=np.float32)
    grid = np.meshgrid(grid_w, grid_h)  # the column coordinate first
    grid = np.stack(grid, axis=0)
    grid = grid.reshape([2, 1, grid_size, grid_size])
    pos_embed = get_2d_sincos_pos_embed_from_grid(embed_dim, grid)
    if cls_token:
        pos_embed = np.concatenate([np.zeros([1, embed_dim]), pos_embed], axis=0)
    return pos_embed


def get_2d_sincos_pos_embed_from_grid(embed_dim, grid):
    assert embed_dim % 2 == 0
    # the first half of each row encodes grid[0] (the column), the second grid[1] (the row)
    emb_h = get_1d_sincos_pos_embed_from_grid(embed_dim // 2, grid[0])
    emb_w = get_1d_sincos_pos_embed_from_grid(embed_dim // 2, grid[1])
    return np.concatenate([emb_h, emb_w], axis=1)


def get_1d_sincos_pos_embed_from_grid(embed_dim, pos):
    assert embed_dim % 2 == 0
    omega = np.arange(embed_dim // 2, dtype=np.float64)
    omega /= embed_dim / 2.
    omega = 1. / 10000**omega
    pos = pos.reshape(-1)
    out = np.einsum('m,d->md', pos, omega)  # float32 positions times float64 omega: float64
    return np.concatenate([np.sin(out), np.cos(out)], axis=1)


def grid_of(height, width):
    """The grid get_2d_sincos_pos_embed builds, for a height x width grid (MAE's own entry takes
    squares only; DiT and others call get_2d_sincos_pos_embed_from_grid with such a grid)."""
    grid_h = np.arange(height, dtype=np.float32)
    grid_w = np.arange(width, dtype=np.float32)
    grid = np.stack(np.meshgrid(grid_w, grid_h), axis=0)
    return grid.reshape([2, 1, height, width])
