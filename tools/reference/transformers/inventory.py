"""inventory.py: every model_type of transformers' CONFIG_MAPPING, and what its model uses
for positions, found by running and reading transformers itself.

For each model_type: its configuration class; the text config get_text_config(decoder=True)
returns for the class defaults (its class, model_type, and the attribute it sits under
in a composite config); whether a text_config naming another model_type is read as
that model (CONFIG_MAPPING[text_config.model_type], as Llava does) or always as the
composite's own text class (as Gemma 3 does); and the position scheme of that text
model:

- 'rope' when its attention, run by harness.py on the class defaults, calls its RoPE
  apply function (or, where transformers cannot run those defaults, when its modeling
  file defines the text config's own rotary embedding class: builds_text_rotary);
- else what its modeling file builds, read from the file's source (the first that
  matches): 'alibi', 't5-buckets' (T5's relative_attention_bias buckets),
  'deberta-buckets' (make_log_bucket_position / build_relative_position),
  'relative' (another relative scheme: Transformer-XL, XLNet, Funnel, ...),
  'rope-vision' / 'rope-audio' (rotary embeddings that rotate by other coordinates
  than a token's index: 2-D patch grids, conformer audio), 'learned' (a learned table
  of absolute positions), 'sinusoidal' (a fixed sinusoidal table), 'convolutional'
  (a convolution over the sequence as its position signal), or 'none'.

SCHEME_OVERRIDES lists where reading the source gets it wrong, each with the reason.
"""

import importlib
import inspect
import re
import sys

# model types whose scheme the source patterns below misread, with why
SCHEME_OVERRIDES = {
    # encoder-decoder wrappers: the text model is whatever their sub-configs name
    "encoder-decoder": ("composite", "EncoderDecoderConfig wraps any encoder and decoder"),
    "vision-encoder-decoder": ("composite", "wraps any vision encoder and text decoder"),
    "speech-encoder-decoder": ("composite", "wraps any speech encoder and text decoder"),
    "vision-text-dual-encoder": ("composite", "wraps any vision and text encoder"),
    "rag": ("composite", "wraps a question encoder and a generator"),
    "nougat": ("composite", "a vision-encoder-decoder configuration"),
    # found by reading the modeling file where its distinctive names mislead the patterns
    "openai-gpt": ("learned", "positions_embed = nn.Embedding(n_positions, n_embd)"),
    "ibert": ("learned", "QuantEmbedding of max_position_embeddings positions"),
    "dpr": ("learned", "a BERT encoder"),
    "bark": ("learned", "position_embeds_layer = nn.Embedding(block_size, hidden_size)"),
    "layoutxlm": ("learned", "a LayoutLMv2 model"),
    "audioflamingo3_encoder": ("learned", "embed_positions = nn.Embedding (Whisper-style)"),
    "qwen2_audio_encoder": ("learned", "embed_positions = nn.Embedding (Whisper-style)"),
    "voxtral_encoder": ("learned", "embed_positions = nn.Embedding (Whisper-style)"),
    "vits": ("relative", "emb_rel_k / emb_rel_v windowed relative attention"),
    "mpt": ("alibi", "build_mpt_alibi_tensor (attn_config.alibi, default true)"),
    "falcon_mamba": ("none", "a Mamba model"),
    "jamba": ("none", "Mamba layers and attention without positions"),
    "zamba": ("none", "Mamba layers and a shared attention without positions"),
    "esm": ("rope-or-learned", "position_embedding_type: 'absolute' (learned) or 'rotary'"),
    "reformer": ("learned", "AxialPositionEmbeddings (learned, factorized)"),
    "pixtral": ("rope-vision", "PixtralRotaryEmbedding over the patch grid"),
    "lightglue": ("rope-vision", "rotary embeddings of keypoint coordinates"),
    "efficientloftr": ("rope-vision", "2-D rotary embeddings of feature-map coordinates"),
    "eomt_dinov3": ("rope-vision", "DINOv3's 2-D rotary embeddings of patch coordinates"),
    "dinov3_vit": ("rope-vision", "DINOv3's 2-D rotary embeddings of patch coordinates"),
    "sam3_video": ("rope-vision", "SAM 3 vision rotary embeddings"),
    "sam3_tracker": ("rope-vision", "SAM 3 vision rotary embeddings"),
    "sam3_vision_model": ("rope-vision", "SAM 3 vision rotary embeddings"),
    "sam3_vit_model": ("rope-vision", "SAM 3 vision rotary embeddings"),
    "glm_image_vision": ("rope-vision", "vision rotary embeddings"),
    "glm_image_vqmodel": ("rope-vision", "vision tokenizer of GLM-Image"),
    "lasr_ctc": ("rope-audio", "LASR's encoder with rotary embeddings over audio frames"),
    "moonshine_streaming_encoder": ("rope-audio", "a streaming speech encoder"),
    "pe_audio_video": ("rope-audio", "Perception Encoder audio-video (needs timm here)"),
    "pe_audio_video_encoder": ("rope-audio", "Perception Encoder audio-video (needs timm here)"),
    "pe_video": ("rope-audio", "Perception Encoder video (needs timm here)"),
    "pe_video_encoder": ("rope-audio", "Perception Encoder video (needs timm here)"),
}


def module_of(model_type, configuration_auto):
    name = configuration_auto.model_type_to_module_name(model_type)
    try:
        return importlib.import_module(f"transformers.models.{name}.modeling_{name.split('.')[-1]}")
    except Exception:  # noqa: BLE001 - a model without a torch modeling file (tokenizer only, timm, ...)
        return None


def scheme_from_source(source):
    """The position scheme a modeling file's source builds, by its distinctive names."""
    s = source
    checks = [
        ("alibi", r"alibi"),
        ("t5-buckets", r"_relative_position_bucket|relative_attention_num_buckets"),
        ("deberta-buckets", r"make_log_bucket_position|build_relative_position"),
        ("rope-vision", r"VisionRotaryEmbedding|RopePositionEmbedding|rotary_pos_emb_2d|apply_rotary_pos_emb_vision|rotate_pairwise|RopeAttention"),
        ("rope-audio", r"RotaryPositionalEmbedding"),
        ("relative", r"rel_shift|relative_positional|RelPositionalEncoding|RelativePositionBias|relative_position_bias|relative_key|_relative_shift"),
        ("learned", r"nn\.Embedding\(\s*config\.max_position_embeddings|LearnedPositionalEmbedding|LearnedPositionEmbedding"
                    r"|position_embeddings?\s*=\s*nn\.(Embedding|Parameter)|pos_embed\w*\s*=\s*nn\.Parameter|wpe\s*=\s*nn\.Embedding"),
        ("sinusoidal", r"Sinusoidal|sinusoid|SinePositionEmbedding|def sinusoids|PositionalEncoding"),
        ("convolutional", r"PositionalConvEmbedding"),
    ]
    for scheme, pattern in checks:
        if re.search(pattern, s):
            return scheme
    return "none"


def builds_text_rotary(module, text):
    """Whether a modeling file defines the rotary embedding class of this text config
    (<Name>RotaryEmbedding or <Name>TextRotaryEmbedding for <Name>[Text]Config): used
    where transformers cannot run the class defaults, to tell a RoPE text model from
    the other schemes its file may also mention (a vision tower's 2-D rotary, ...)."""
    if module is None or text is None:
        return False
    name = re.sub(r"(Text)?Config$", "", type(text).__name__)
    if "Vision" in name or "Audio" in name:
        return False
    return any(hasattr(module, f"{name}{tail}RotaryEmbedding") for tail in ("", "Text"))


def text_key(config, text):
    """The path of attributes from a composite config to its text config: 'text_config',
    'thinker_config.text_config', ...; None for the config itself, '(flat)' for the
    decoder-only copy get_text_config makes of a flat encoder-decoder config."""
    if text is config:
        return None

    def search(obj, path, depth):
        for key, value in vars(obj).items():
            if value is text:
                return path + [key]
            if depth and hasattr(value, "to_dict") and hasattr(value, "model_type"):
                found = search(value, path + [key], depth - 1)
                if found:
                    return found
        return None

    found = search(config, [], 2)
    return ".".join(found) if found else "(flat)"


def fixed_text_class(cls, key, default_text, config_mapping):
    """True when the composite reads its text config always as one class, whatever
    model_type the text config names; False when it reads the named model_type."""
    other = "llama" if default_text.model_type != "llama" else "mistral"
    try:
        config = cls(**{key: {"model_type": other}})
        return type(getattr(config, key)) is not config_mapping[other]
    except Exception:  # noqa: BLE001
        return None


def inventory(harness, configuration_auto, completions):
    rows = {}
    for model_type, class_name in configuration_auto.CONFIG_MAPPING_NAMES.items():
        row = {"config": class_name}
        rows[model_type] = row
        if model_type in SCHEME_OVERRIDES:
            row["scheme"], row["why"] = SCHEME_OVERRIDES[model_type]
            continue
        try:
            config, text = harness.read({"model_type": model_type})
        except Exception as error:  # noqa: BLE001
            row["defaultsError"] = str(error)[:200]
            config = text = None
        if text is not None:
            row["text"] = text.model_type
            key = text_key(config, text)
            if key is not None:
                row["textKey"] = key
                if "." not in key and key != "(flat)":
                    row["textFixed"] = fixed_text_class(type(config), key, text, harness.CONFIG_MAPPING)
        if text is not None:
            errors = []
            tries = [{"model_type": model_type}]
            if model_type in completions:
                tries.append({"model_type": model_type, **completions[model_type]})
            for d in tries:
                try:
                    config_d, text_d = harness.read(d)
                    model = harness.build(text_d, config_d)
                    for layer in harness.layers_of(text_d, model):
                        try:
                            if "apply" in harness.layer(text_d, model, layer):
                                row["scheme"] = "rope"
                                break
                        except Exception as error:  # noqa: BLE001 - defaults transformers cannot run
                            errors.append(str(error)[:200])
                except Exception as error:  # noqa: BLE001
                    errors.append(str(error)[:200])
                if row.get("scheme") == "rope":
                    break
            if "scheme" not in row and errors:
                row["ropeError"] = errors[0]
        if not row.get("scheme"):
            module = module_of(model_type, configuration_auto)
            if text is not None:
                module = sys.modules.get(type(text).__module__.replace(".configuration_", ".modeling_")) or module
            source = inspect.getsource(module) if module is not None else ""
            if "ropeError" in row and builds_text_rotary(module, text):
                row["scheme"] = "rope"  # transformers could not run its defaults: its text model's own rotary class
                row["why"] = f"{type(text).__name__}'s modeling file builds its rotary embedding"
            else:
                row["scheme"] = scheme_from_source(source)
    return rows
