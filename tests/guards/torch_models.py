"""Six small real models, their call sequences, and capturing what torch 2.13 logs for them.

Used by ``benchmarks/capture_torch_dumps.py`` (writes the checked-in sample dumps under
``tests/guards/data/torch_dumps/``) and by the torch-marked agreement test. torch is
imported inside the functions only: this module imports without torch.

Each model is compiled with ``backend="eager"`` and called with a fixed sequence of
inputs chosen to produce several cache entries: a static first entry, an automatic-dynamic
entry, and (for some) a recompile on non-contiguous strides. :func:`capture` returns the
``TORCH_LOGS=guards,recompiles,+dynamic`` text exactly as torch's log formatter prints it.

>>> sorted(MODELS)
['cnn', 'lstm', 'pad_pool', 'patchify', 'router', 'transformer']
"""

from __future__ import annotations

import io
import logging
import random
import sys
from typing import Any, Callable

__all__ = ["MODELS", "build", "calls", "capture", "random_inputs", "LOG_ARTIFACTS"]

#: What the dumps hold: the guard trees, the recompile reasons and the +dynamic symbol log.
LOG_ARTIFACTS = "guards,recompiles,+dynamic"


def _modules():
    import torch
    import torch.nn.functional as F
    from torch import nn

    class Transformer(nn.Module):
        def __init__(self, d: int = 16, heads: int = 2):
            super().__init__()
            self.heads = heads
            self.qkv = nn.Linear(d, 3 * d)
            self.out = nn.Linear(d, d)
            self.ln = nn.LayerNorm(d)

        def forward(self, x):
            b, s, d = x.shape
            q, k, v = self.qkv(self.ln(x)).chunk(3, dim=-1)
            q = q.view(b, s, self.heads, d // self.heads).transpose(1, 2)
            k = k.view(b, s, self.heads, d // self.heads).transpose(1, 2)
            v = v.view(b, s, self.heads, d // self.heads).transpose(1, 2)
            att = torch.softmax(q @ k.transpose(-1, -2) / (d // self.heads) ** 0.5, dim=-1)
            y = (att @ v).transpose(1, 2).reshape(b, s, d)
            return x + self.out(y)

    class CNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 4, 3, padding=1)
            self.conv2 = nn.Conv2d(4, 8, 3, stride=2)
            self.fc = nn.Linear(8, 5)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.conv1(x)), 2)
            x = F.relu(self.conv2(x))
            return self.fc(x.mean(dim=(2, 3)))

    class LSTM(nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = nn.LSTM(6, 8, batch_first=True)
            self.head = nn.Linear(8, 2)

        def forward(self, x, lengths: dict):
            y, _ = self.rnn(x)
            return self.head(y[:, -1]) * lengths["scale"].sum()

    class Patchify(nn.Module):
        def __init__(self, p: int = 4, c: int = 3, d: int = 8):
            super().__init__()
            self.p = p
            self.proj = nn.Linear(c * p * p, d)
            self.cls = nn.Parameter(torch.zeros(1, 1, d))

        def forward(self, xs):
            img, extra = xs
            b, c, h, w = img.shape
            p = self.p
            patches = img.reshape(b, c, h // p, p, w // p, p).permute(0, 2, 4, 1, 3, 5).reshape(b, -1, c * p * p)
            tokens = torch.cat([self.cls.expand(b, -1, -1), self.proj(patches), extra], dim=1)
            return tokens.sum(dim=1)

    class Router(nn.Module):
        def __init__(self):
            super().__init__()
            self.small = nn.Linear(4, 4)
            self.big = nn.Linear(4, 4)

        def forward(self, x, n: int):
            def wide(t):
                return self.big(t).relu()

            def narrow(t):
                return self.small(t).tanh()

            y = torch.cond(x.shape[0] > 4, wide, narrow, (x,))
            return y * n

    class PadPool(nn.Module):
        def forward(self, x):
            x = F.pad(x, (1, 2))
            x = F.avg_pool1d(x, kernel_size=3, stride=2)
            return F.max_pool1d(x, 2)

    return {"transformer": Transformer, "cnn": CNN, "lstm": LSTM, "patchify": Patchify, "router": Router, "pad_pool": PadPool}


def _rand(*shape: int, transpose: tuple[int, int] | None = None, step: int | None = None):
    """A float32 tensor of ``shape``; non-contiguous through a transpose or a strided slice when asked."""
    import torch

    if transpose is not None:
        a, b = transpose
        full = list(shape)
        full[a], full[b] = full[b], full[a]
        return torch.randn(*full).transpose(a, b)
    if step is not None:
        full = list(shape)
        full[-1] *= step
        return torch.randn(*full)[..., ::step]
    return torch.randn(*shape)


#: name -> (the calls that build the cache, a sampler of random inputs); inputs are argument tuples.
def _calls(name: str) -> list[tuple]:
    import torch

    if name == "transformer":
        return [(_rand(2, 5, 16),), (_rand(3, 7, 16),), (_rand(3, 7, 16, transpose=(0, 1)),)]
    if name == "cnn":
        return [(_rand(2, 3, 16, 16),), (_rand(3, 3, 20, 24),)]
    if name == "lstm":
        return [(_rand(2, 5, 6), {"scale": torch.ones(3)}), (_rand(4, 9, 6), {"scale": torch.ones(5)})]
    if name == "patchify":
        return [([_rand(2, 3, 8, 8), _rand(2, 1, 8)],), ([_rand(3, 3, 12, 16), _rand(3, 2, 8)],)]
    if name == "router":
        return [(_rand(3, 4), 2), (_rand(6, 4), 3), (_rand(8, 4), 4)]
    if name == "pad_pool":
        return [(_rand(2, 3, 10),), (_rand(3, 4, 15),), (_rand(3, 4, 15, step=2),)]
    raise KeyError(name)


def _sample(name: str, rng: random.Random) -> tuple:
    """Random inputs for ``name``: sizes around the traced ones (1 and 0/1 edges included), some non-contiguous."""
    import torch

    def layout() -> dict:
        r = rng.random()
        return {} if r < 0.6 else {"step": 2} if r < 0.8 else {"transpose": None}

    def tensor(*shape: int):
        how = layout()
        if "transpose" in how:
            dims = [i for i, s in enumerate(shape)]
            if len(dims) >= 2:
                a, b = rng.sample(dims, 2)
                return _rand(*shape, transpose=(min(a, b), max(a, b)))
            return _rand(*shape)
        return _rand(*shape, **how)

    r = lambda lo, hi: rng.randint(lo, hi)  # noqa: E731
    if name == "transformer":
        return (tensor(r(1, 6), r(1, 9), 16),)
    if name == "cnn":
        return (tensor(r(1, 4), 3, r(6, 26), r(6, 26)),)
    if name == "lstm":
        return (tensor(r(1, 5), r(1, 10), 6), {"scale": tensor(r(1, 6))})
    if name == "patchify":
        b = r(1, 4)
        return ([tensor(b, 3, 4 * r(1, 4), 4 * r(1, 4)), tensor(b, r(1, 3), 8)],)
    if name == "router":
        return (tensor(r(1, 10), 4), r(1, 5))
    if name == "pad_pool":
        return (tensor(r(1, 4), r(1, 5), r(4, 20)),)
    raise KeyError(name)


MODELS: dict[str, str] = {
    "transformer": "attention block: LayerNorm, qkv Linear, view into heads, softmax, reshape back",
    "cnn": "two Conv2d with padding and stride, max_pool2d, mean over H and W, Linear",
    "lstm": "nn.LSTM over (batch, time, features) plus a dict input",
    "patchify": "reshape an image into patches (H, W divisible by 4), cat with a cls token and a list input",
    "router": "torch.cond on x.shape[0] > 4 between two Linear branches, times an int",
    "pad_pool": "F.pad then avg_pool1d then max_pool1d",
}


def build(name: str) -> Any:
    """A fresh, seeded instance of model ``name`` (needs torch)."""
    import torch

    torch.manual_seed(0)
    return _modules()[name]()


def calls(name: str) -> list[tuple]:
    """The seeded call sequence that builds ``name``'s cache entries (needs torch)."""
    import torch

    torch.manual_seed(1)
    return _calls(name)


def random_inputs(name: str, count: int, seed: int = 0) -> list[tuple]:
    """``count`` random argument tuples for ``name`` (needs torch)."""
    import torch

    torch.manual_seed(seed)
    rng = random.Random(seed)
    return [_sample(name, rng) for _ in range(count)]


def capture(name: str) -> tuple[str, Callable]:
    """Compile model ``name``, run its calls, and return (the log text, the compiled model).

    The text is what ``TORCH_LOGS="guards,recompiles,+dynamic"`` prints to stderr, line for
    line (torch's own formatter); the compiled model is returned so that a test can keep
    calling it under ``torch.compiler.set_stance("fail_on_recompile")``.
    """
    with torch_dynamo_patch():
        return capture_calls(build(name), calls(name))


def torch_dynamo_patch():
    """The dynamo config the captures run under (nn.LSTM frames are compiled, not left to eager)."""
    import torch

    return torch._dynamo.config.patch(allow_rnn=True)


def capture_calls(model: Any, call_args: Any) -> tuple[str, Callable]:
    """Compile ``model`` (after a dynamo reset), call it with each argument tuple; return (the log text, the compiled model)."""
    import torch

    torch._dynamo.reset()
    compiled = torch.compile(model, backend="eager")
    stream = io.StringIO()
    torch._logging.set_logs(guards=True, recompiles=True, dynamic=logging.DEBUG)
    # torch's own handlers (with torch's formatter) write to stderr: point them at ``stream``.
    redirected = []
    for logger in [logging.getLogger(n) for n in list(logging.Logger.manager.loggerDict) if n.startswith("torch")]:
        for handler in getattr(logger, "handlers", ()):
            if type(handler) is logging.StreamHandler and handler.stream is sys.stderr:
                redirected.append((handler, handler.setStream(stream)))
    try:
        for args in call_args:
            compiled(*args)
    finally:
        for handler, old in redirected:
            handler.setStream(old)
        torch._logging.set_logs()
    return stream.getvalue(), compiled


def capture_export(name: str = "transformer") -> tuple[str, Any]:
    """``print(torch.export.export(model, ...))`` for ``name`` with dynamic batch (max 64) and sequence dims.

    Returns (the printed program, the ExportedProgram).
    """
    import torch
    from torch.export import Dim, export

    model = build(name)
    if name != "transformer":
        raise KeyError(f"only the transformer is exported, not {name!r}")
    x = calls(name)[1][0]
    ep = export(model, (x,), dynamic_shapes=({0: Dim("batch", max=64), 1: Dim("seq", min=2, max=512)},))
    return str(ep), ep
