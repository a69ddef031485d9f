"""Eight real torch models, written as torch users write them, with their dynamic dims and input makers.

Each model is plain ``nn.Module`` code: no shapeenv import inside. torch is imported inside the
functions only, so this module imports without torch (the differential tests, the trace-time
benchmark ``benchmarks/torch_models_trace.py`` and notebook 07 use it).

A :class:`Case` says how to build the model (seeded, in eval mode), which input dims are dynamic
(``torch.export.Dim`` specs with the bounds torch needs), the example sizes the programs are traced
with, and how to make real inputs of any sizes: :meth:`Case.args` takes one value per named dim.

>>> sorted(CASES)
['audio', 'gpt2', 'lstm', 'moe', 'resnet', 'text', 'unet', 'vit']
>>> CASES["gpt2"].dims
('batch', 'seq', 'past')
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any, Mapping

__all__ = ["CASES", "Case", "modules"]


def modules() -> dict[str, type]:
    """The model classes, by case name (needs torch)."""
    import torch
    import torch.nn.functional as F
    import torch._higher_order_ops  # torch's scan: torch._higher_order_ops.scan(combine_fn, init, xs, dim=...)
    from torch import nn

    class GPT2Block(nn.Module):
        """A GPT-2 block: pre-LN causal self-attention over a KV cache, then an MLP with tanh-GELU."""

        def __init__(self, d: int = 32, heads: int = 4):
            super().__init__()
            self.heads = heads
            self.ln_1 = nn.LayerNorm(d)
            self.c_attn = nn.Linear(d, 3 * d)
            self.c_proj = nn.Linear(d, d)
            self.attn_dropout = nn.Dropout(0.1)
            self.ln_2 = nn.LayerNorm(d)
            self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(approximate="tanh"), nn.Linear(4 * d, d), nn.Dropout(0.1))

        def forward(self, x, past_key, past_value):
            b, t, d = x.size()
            q, k, v = self.c_attn(self.ln_1(x)).split(d, dim=2)
            q = q.view(b, t, self.heads, d // self.heads).transpose(1, 2)
            k = k.view(b, t, self.heads, d // self.heads).transpose(1, 2)
            v = v.view(b, t, self.heads, d // self.heads).transpose(1, 2)
            k = torch.cat([past_key, k], dim=2)  # the KV cache grows along the sequence dim
            v = torch.cat([past_value, v], dim=2)
            total = k.size(2)
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
            causal = torch.ones(t, total, dtype=torch.bool, device=x.device).tril(diagonal=total - t)
            att = att.masked_fill(~causal, float("-inf"))
            att = self.attn_dropout(F.softmax(att, dim=-1))
            y = (att @ v).transpose(1, 2).contiguous().view(b, t, d)
            x = x + self.c_proj(y)
            x = x + self.mlp(self.ln_2(x))
            return x, k, v

    class PatchEmbed(nn.Module):
        def __init__(self, patch: int = 4, channels: int = 3, d: int = 32):
            super().__init__()
            self.proj = nn.Conv2d(channels, d, kernel_size=patch, stride=patch)

        def forward(self, x):
            return self.proj(x).flatten(2).transpose(1, 2)  # (B, N, D)

    class EncoderBlock(nn.Module):
        def __init__(self, d: int = 32, heads: int = 4, mlp_ratio: int = 4):
            super().__init__()
            self.heads = heads
            self.norm1 = nn.LayerNorm(d, eps=1e-6)
            self.qkv = nn.Linear(d, 3 * d)
            self.proj = nn.Linear(d, d)
            self.norm2 = nn.LayerNorm(d, eps=1e-6)
            self.fc1 = nn.Linear(d, mlp_ratio * d)
            self.act = nn.GELU()
            self.fc2 = nn.Linear(mlp_ratio * d, d)

        def forward(self, x):
            b, n, c = x.shape
            qkv = self.qkv(self.norm1(x)).reshape(b, n, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
            q, k, v = qkv.unbind(0)
            y = F.scaled_dot_product_attention(q, k, v)
            x = x + self.proj(y.transpose(1, 2).reshape(b, n, c))
            return x + self.fc2(self.act(self.fc1(self.norm2(x))))

    class ViT(nn.Module):
        """ViT: patch embedding (conv with stride = patch), a class token, one encoder block, a head."""

        def __init__(self, d: int = 32, classes: int = 10):
            super().__init__()
            self.patch_embed = PatchEmbed(d=d)
            self.cls_token = nn.Parameter(torch.zeros(1, 1, d))
            self.block = EncoderBlock(d)
            self.norm = nn.LayerNorm(d, eps=1e-6)
            self.head = nn.Linear(d, classes)

        def forward(self, img):
            x = self.patch_embed(img)
            x = torch.cat((self.cls_token.expand(x.shape[0], -1, -1), x), dim=1)
            x = self.norm(self.block(x))
            return self.head(x[:, 0]), x

    class BasicBlock(nn.Module):
        """torchvision's ResNet BasicBlock with a strided downsample branch."""

        def __init__(self, inplanes: int = 8, planes: int = 16, stride: int = 2):
            super().__init__()
            self.conv1 = nn.Conv2d(inplanes, planes, 3, stride=stride, padding=1, bias=False)
            self.bn1 = nn.BatchNorm2d(planes)
            self.relu = nn.ReLU(inplace=True)
            self.conv2 = nn.Conv2d(planes, planes, 3, padding=1, bias=False)
            self.bn2 = nn.BatchNorm2d(planes)
            self.downsample = nn.Sequential(nn.Conv2d(inplanes, planes, 1, stride=stride, bias=False), nn.BatchNorm2d(planes))

        def forward(self, x):
            identity = self.downsample(x)
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            out += identity
            return self.relu(out)

    class DoubleConv(nn.Sequential):
        def __init__(self, cin: int, cout: int):
            super().__init__(
                nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
                nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
            )

    class UNetStep(nn.Module):
        """One UNet level: down (max-pool, double conv), up (bilinear x2, pad to the skip, concat, double conv)."""

        def __init__(self, channels: int = 3, width: int = 8, classes: int = 2):
            super().__init__()
            self.inc = DoubleConv(channels, width)
            self.down = nn.Sequential(nn.MaxPool2d(2), DoubleConv(width, 2 * width))
            self.conv = DoubleConv(3 * width, width)
            self.outc = nn.Conv2d(width, classes, kernel_size=1)

        def forward(self, x):
            x1 = self.inc(x)
            x2 = self.down(x1)
            up = F.interpolate(x2, scale_factor=2, mode="bilinear", align_corners=False)
            dy, dx = x1.size(2) - up.size(2), x1.size(3) - up.size(3)  # odd sizes: pad the upsampled map
            up = F.pad(up, [dx // 2, dx - dx // 2, dy // 2, dy - dy // 2])
            return self.outc(self.conv(torch.cat([x1, up], dim=1)))

    class ScanLSTM(nn.Module):
        """An LSTM over a variable-length sequence: one LSTMCell step per time step, through torch's scan."""

        def __init__(self, features: int = 6, hidden: int = 8, classes: int = 3):
            super().__init__()
            self.hidden = hidden
            self.cell = nn.LSTMCell(features, hidden)
            self.head = nn.Linear(hidden, classes)

        def forward(self, x):  # (B, T, F)
            h0 = x.new_zeros(x.size(0), self.hidden)
            c0 = x.new_zeros(x.size(0), self.hidden)

            def step(carry, xt):
                h, c = self.cell(xt, carry)
                return (h, c), h.clone()

            (h, _), hs = torch._higher_order_ops.scan(step, (h0, c0), x, dim=1)  # ys stacked along dim: (B, T, hidden)
            return self.head(h), hs

    class Expert(nn.Module):
        def __init__(self, d: int, hidden: int):
            super().__init__()
            self.fc1 = nn.Linear(d, hidden)
            self.fc2 = nn.Linear(hidden, d)

        def forward(self, x):
            return self.fc2(F.silu(self.fc1(x)))

    class MoERouter(nn.Module):
        """A top-1 router; torch.cond picks the wide expert for large token counts, the narrow one otherwise."""

        def __init__(self, d: int = 16, threshold: int = 32):
            super().__init__()
            self.threshold = threshold
            self.gate = nn.Linear(d, 2, bias=False)
            self.experts = nn.ModuleList([Expert(d, 4 * d), Expert(d, d)])

        def forward(self, x):  # (B, T, D)
            b, t, d = x.shape
            tokens = x.reshape(-1, d)
            weight, choice = F.softmax(self.gate(tokens), dim=-1).topk(1, dim=-1)

            def wide(h):
                return self.experts[0](h)

            def narrow(h):
                return self.experts[1](h)

            out = torch.cond(tokens.shape[0] > self.threshold, wide, narrow, (tokens,))
            return (out * weight).reshape(b, t, d), choice.reshape(b, t)

    class AudioFrontEnd(nn.Module):
        """A Whisper-style front end: conv1d stack over mel frames with GELU, strides and padding, then LayerNorm."""

        def __init__(self, mels: int = 16, d: int = 32):
            super().__init__()
            self.conv1 = nn.Conv1d(mels, d, kernel_size=3, padding=1)
            self.conv2 = nn.Conv1d(d, d, kernel_size=3, stride=2, padding=1)
            self.conv3 = nn.Conv1d(d, d, kernel_size=5, stride=2)
            self.ln = nn.LayerNorm(d)

        def forward(self, mel):  # (B, mels, T)
            x = F.gelu(self.conv1(mel))
            x = F.gelu(self.conv2(x))
            x = F.gelu(self.conv3(F.pad(x, (2, 2))))
            return self.ln(x.permute(0, 2, 1))  # (B, T', d)

    class TextClassifier(nn.Module):
        """Embedding + masked mean over non-pad tokens, plus an EmbeddingBag mean, then a linear head."""

        def __init__(self, vocab: int = 100, d: int = 16, classes: int = 4, pad: int = 0):
            super().__init__()
            self.pad = pad
            self.emb = nn.Embedding(vocab, d, padding_idx=pad)
            self.bag = nn.EmbeddingBag(vocab, d, mode="mean")
            self.dropout = nn.Dropout(0.2)
            self.fc = nn.Linear(d, classes)

        def forward(self, tokens):  # (B, S) int64
            mask = (tokens != self.pad).unsqueeze(-1).float()
            pooled = (self.emb(tokens) * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1.0)
            return self.fc(self.dropout(pooled + self.bag(tokens)))

    return {
        "gpt2": GPT2Block, "vit": ViT, "resnet": BasicBlock, "unet": UNetStep,
        "lstm": ScanLSTM, "moe": MoERouter, "audio": AudioFrontEnd, "text": TextClassifier,
    }


@dataclass(frozen=True)
class Case:
    """One model of the suite.

    Attributes:
        name: the case's key in :data:`CASES`.
        doc: what the model does, in a line.
        dims: the dynamic dims, by name (each is one ``torch.export.Dim``).
        bounds: name -> (min, max) of each dim as given to ``torch.export.Dim``. Every min is at least 2:
            torch's default ``min=0`` makes torch.export promise sizes 0 and 1, which our export
            specialises (see :data:`tests.torch_models.differences.ZERO_ONE`); above 2, the min is
            what torch.export needs to accept the model (its conv and pooling outputs guard ``!= 1``).
        example: name -> the size the programs are traced with.
        inputs: name -> (the input's size pattern): ints are static, strings name a dim.
        int_inputs: names of integer (token) inputs, drawn in [0, vocab).
        sample: name -> (lo, hi) of the sizes random draws take (edges and out-of-range included).
    """

    name: str
    doc: str
    dims: tuple[str, ...]
    bounds: Mapping[str, tuple[int | None, int | None]]
    example: Mapping[str, int]
    inputs: Mapping[str, tuple]
    sample: Mapping[str, tuple[int, int]]
    int_inputs: tuple[str, ...] = ()
    vocab: int = 100

    def build(self) -> Any:
        """A fresh model (seeded, eval mode, BatchNorm statistics not trivial). Needs torch."""
        import torch

        torch.manual_seed(0)
        model = modules()[self.name]()
        for m in model.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.5, 0.5)
                m.running_var.uniform_(0.5, 1.5)
        return model.eval()

    def shapes(self, sizes: Mapping[str, int]) -> dict[str, tuple[int, ...]]:
        """Each input's shape at these dim sizes.

        >>> CASES["vit"].shapes({"batch": 2, "height": 9, "width": 12})
        {'img': (2, 3, 9, 12)}
        """
        return {name: tuple(sizes[d] if isinstance(d, str) else d for d in pattern) for name, pattern in self.inputs.items()}

    def args(self, sizes: Mapping[str, int] | None = None, seed: int = 0) -> tuple:
        """Real inputs (seeded) at these dim sizes, the example sizes by default. Needs torch."""
        import torch

        gen = torch.Generator().manual_seed(seed)
        out = []
        for name, shape in self.shapes(self.example if sizes is None else sizes).items():
            if name in self.int_inputs:
                out.append(torch.randint(0, self.vocab, shape, generator=gen))
            else:
                out.append(torch.randn(shape, generator=gen))
        return tuple(out)

    def torch_dims(self, style: str = "bounded") -> dict[str, Any]:
        """name -> a ``torch.export.Dim`` spec (needs torch).

        ``style``: ``"bounded"``, a named Dim with the case's bounds; ``"default"``, a named Dim with
        torch's defaults (``[0, oo]``); ``"dynamic"``, ``Dim.DYNAMIC`` (no name: tracing may narrow it).
        """
        from torch.export import Dim

        made = {}
        for name in self.dims:
            if style == "dynamic":
                made[name] = Dim.DYNAMIC
                continue
            lo, hi = self.bounds.get(name, (None, None)) if style == "bounded" else (None, None)
            kwargs = {k: v for k, v in (("min", lo), ("max", hi)) if v is not None}
            made[name] = Dim(name, **kwargs)
        return made

    def dynamic_shapes(self, style: str = "bounded") -> tuple:
        """The ``dynamic_shapes`` argument of ``torch.export.export`` (one dict per input; see :meth:`torch_dims`)."""
        dims = self.torch_dims(style)
        return tuple({i: dims[d] for i, d in enumerate(pattern) if isinstance(d, str)} for pattern in self.inputs.values())

    def sizes_from(self, values: Mapping[str, int]) -> dict[str, int]:
        """Dim sizes from values keyed by input source text (``x.size()[0]``, as Z3 witnesses are); the example's otherwise.

        >>> CASES["lstm"].sizes_from({"x.size()[1]": 9})
        {'batch': 3, 'time': 9}
        """
        sizes = dict(self.example)
        for name in reversed(self.dims):
            for inp, pattern in self.inputs.items():
                for i, d in enumerate(pattern):
                    key = f"{inp}.size()[{i}]"
                    if d == name and key in values:
                        sizes[name] = int(values[key])
        return sizes

    def draw(self, rng: random.Random) -> dict[str, int]:
        """Random dim sizes: mostly in the case's sampling box, one in five at an edge (0, 1, min - 1, max, max + 1).

        >>> sizes = CASES["audio"].draw(random.Random(0))
        >>> sorted(sizes), all(0 <= v <= 3001 for v in sizes.values())
        (['batch', 'frames'], True)
        """
        out = {}
        for name in self.dims:
            lo, hi = self.bounds[name]
            edges = sorted({0, 1, lo - 1, hi, hi + 1} - {-1})
            out[name] = rng.choice(edges) if rng.random() < 0.2 else rng.randint(*self.sample[name])
        return out


_B = (2, 64)
CASES: dict[str, Case] = {
    c.name: c
    for c in [
        Case("gpt2", "GPT-2 block: causal mask, KV cache concatenated along the sequence", ("batch", "seq", "past"),
             {"batch": _B, "seq": (2, 512), "past": (2, 512)}, {"batch": 2, "seq": 5, "past": 3},
             {"x": ("batch", "seq", 32), "past_key": ("batch", 4, "past", 8), "past_value": ("batch", 4, "past", 8)},
             {"batch": (0, 6), "seq": (0, 12), "past": (0, 12)}),
        Case("vit", "ViT patch embedding (conv, stride = patch) + encoder block with SDPA and GELU", ("batch", "height", "width"),
             {"batch": _B, "height": (8, 64), "width": (8, 64)}, {"batch": 2, "height": 16, "width": 12},
             {"img": ("batch", 3, "height", "width")}, {"batch": (0, 4), "height": (1, 30), "width": (1, 30)}),
        Case("resnet", "ResNet BasicBlock, BatchNorm in eval mode, strided downsample branch", ("batch", "height", "width"),
             {"batch": _B, "height": (3, 256), "width": (3, 256)}, {"batch": 2, "height": 9, "width": 12},
             {"x": ("batch", 8, "height", "width")}, {"batch": (0, 4), "height": (0, 20), "width": (0, 20)}),
        Case("unet", "UNet down/up step: max-pool, bilinear interpolate x2, pad to the skip, concat", ("batch", "height", "width"),
             {"batch": _B, "height": (4, 256), "width": (4, 256)}, {"batch": 2, "height": 12, "width": 9},
             {"x": ("batch", 3, "height", "width")}, {"batch": (0, 3), "height": (0, 20), "width": (0, 20)}),
        Case("lstm", "LSTMCell steps over a variable-length sequence through scan", ("batch", "time"),
             {"batch": _B, "time": (2, 256)}, {"batch": 3, "time": 7},
             {"x": ("batch", "time", 6)}, {"batch": (0, 5), "time": (0, 12)}),
        Case("moe", "top-1 MoE router: softmax gate, topk, torch.cond on the token count", ("batch", "seq"),
             {"batch": _B, "seq": (2, 512)}, {"batch": 4, "seq": 10},
             {"x": ("batch", "seq", 16)}, {"batch": (0, 8), "seq": (0, 12)}),
        Case("audio", "conv1d audio front end: stride-2 convs, GELU, pad, LayerNorm", ("batch", "frames"),
             {"batch": _B, "frames": (5, 3000)}, {"batch": 2, "frames": 50},
             {"mel": ("batch", 16, "frames")}, {"batch": (0, 8), "frames": (0, 120)}),
        Case("text", "embedding + masked mean pooling and EmbeddingBag, a linear classifier", ("batch", "seq"),
             {"batch": _B, "seq": (2, 512)}, {"batch": 3, "seq": 11},
             {"tokens": ("batch", "seq")}, {"batch": (0, 8), "seq": (0, 20)}, int_inputs=("tokens",)),
    ]
}
