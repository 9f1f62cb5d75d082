"""The 3-D M-RoPE position ids of Qwen2-VL and Qwen2.5-VL, as Hugging Face transformers computes them.

Sources: huggingface/transformers
  src/transformers/models/qwen2_vl/modeling_qwen2_vl.py at 928b5565ecea2852ac5a41701c90589321548522:
    Qwen2VLForConditionalGeneration.get_rope_index     -> get_rope_index(..., tokens_per_second=None)
  src/transformers/models/qwen2_5_vl/modeling_qwen2_5_vl.py at efa7189c5546a94e8c1194b2ccc6669e0f7ad65e:
    Qwen2_5_VLForConditionalGeneration.get_rope_index  -> get_rope_index(..., tokens_per_second=n)
The two differ only in the temporal index of a grid: Qwen2-VL's arange(t); Qwen2.5-VL's
long(arange(t) * second_per_grid_t * tokens_per_second) (images: second_per_grid_t = 0).
Transcribed operation for operation (same torch calls, dtypes and order); the config
fields are arguments; names and comments are ours.
"""
import torch

# Qwen2-VL's and Qwen2.5-VL's config.json
IMAGE_TOKEN_ID = 151655
VIDEO_TOKEN_ID = 151656
VISION_START_TOKEN_ID = 151652


def get_rope_index(input_ids, image_grid_thw=None, video_grid_thw=None, attention_mask=None,
                   spatial_merge_size=2, tokens_per_second=None, second_per_grid_ts=None):
    """input_ids [batch][seq] -> (position_ids [3][batch][seq], deltas [batch][1])."""
    deltas = []
    if input_ids is not None and (image_grid_thw is not None or video_grid_thw is not None):
        all_ids = input_ids
        if attention_mask is None:
            attention_mask = torch.ones_like(all_ids)
        position_ids = torch.ones(3, input_ids.shape[0], input_ids.shape[1], dtype=input_ids.dtype)
        image_index, video_index = 0, 0
        for i, ids in enumerate(all_ids):
            ids = ids[attention_mask[i] == 1]
            # the token after each <|vision_start|> says what follows: an image or a video
            starts = torch.argwhere(ids == VISION_START_TOKEN_ID).squeeze(1)
            vision_tokens = ids[starts + 1]
            image_nums = (vision_tokens == IMAGE_TOKEN_ID).sum()
            video_nums = (vision_tokens == VIDEO_TOKEN_ID).sum()
            tokens = ids.tolist()
            blocks = []
            st = 0
            remain_images, remain_videos = image_nums, video_nums
            for _ in range(image_nums + video_nums):
                if IMAGE_TOKEN_ID in tokens and remain_images > 0:
                    ed_image = tokens.index(IMAGE_TOKEN_ID, st)
                else:
                    ed_image = len(tokens) + 1
                if VIDEO_TOKEN_ID in tokens and remain_videos > 0:
                    ed_video = tokens.index(VIDEO_TOKEN_ID, st)
                else:
                    ed_video = len(tokens) + 1
                if ed_image < ed_video:
                    t, h, w = image_grid_thw[image_index][0], image_grid_thw[image_index][1], image_grid_thw[image_index][2]
                    second_per_grid_t = 0
                    image_index += 1
                    remain_images -= 1
                    ed = ed_image
                else:
                    t, h, w = video_grid_thw[video_index][0], video_grid_thw[video_index][1], video_grid_thw[video_index][2]
                    second_per_grid_t = second_per_grid_ts[video_index] if second_per_grid_ts is not None else 1.0
                    video_index += 1
                    remain_videos -= 1
                    ed = ed_video
                grid_t, grid_h, grid_w = t.item(), h.item() // spatial_merge_size, w.item() // spatial_merge_size
                text_len = ed - st
                # text: one counter on all three axes, from the previous block's largest id + 1
                st_idx = blocks[-1].max() + 1 if len(blocks) > 0 else 0
                blocks.append(torch.arange(text_len).view(1, -1).expand(3, -1) + st_idx)
                if tokens_per_second is None:
                    # Qwen2-VL: the frame index
                    t_index = torch.arange(grid_t).view(-1, 1).expand(-1, grid_h * grid_w).flatten()
                else:
                    # Qwen2.5-VL: the frame's time in tokens (float32 product, truncated)
                    expanded = torch.arange(grid_t).view(-1, 1).expand(-1, grid_h * grid_w)
                    time = expanded * second_per_grid_t * tokens_per_second
                    t_index = time.long().flatten()
                h_index = torch.arange(grid_h).view(1, -1, 1).expand(grid_t, -1, grid_w).flatten()
                w_index = torch.arange(grid_w).view(1, 1, -1).expand(grid_t, grid_h, -1).flatten()
                blocks.append(torch.stack([t_index, h_index, w_index]) + text_len + st_idx)
                st = ed + grid_t * grid_h * grid_w
            if st < len(tokens):
                st_idx = blocks[-1].max() + 1 if len(blocks) > 0 else 0
                text_len = len(tokens) - st
                blocks.append(torch.arange(text_len).view(1, -1).expand(3, -1) + st_idx)
            positions = torch.cat(blocks, dim=1).reshape(3, -1)
            position_ids[..., i, attention_mask[i] == 1] = positions
            deltas.append(positions.max() + 1 - len(all_ids[i]))
        return position_ids, torch.tensor(deltas).unsqueeze(1)
    # no grid at all: text positions, the same on every axis
    if attention_mask is not None:
        position_ids = attention_mask.long().cumsum(-1) - 1
        position_ids.masked_fill_(attention_mask == 0, 1)
        position_ids = position_ids.unsqueeze(0).expand(3, -1, -1)
        max_position_ids = position_ids.max(0, keepdim=False)[0].max(-1, keepdim=True)[0]
        return position_ids, max_position_ids + 1 - attention_mask.shape[-1]
    position_ids = torch.arange(input_ids.shape[1]).view(1, 1, -1).expand(3, input_ids.shape[0], -1)
    return position_ids, torch.zeros([input_ids.shape[0], 1], dtype=input_ids.dtype)
