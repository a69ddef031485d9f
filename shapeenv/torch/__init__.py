"""``shapeenv.torch``: trace real torch code (``nn.Module`` s and functions) with this library's shape rules.

Optional: it needs torch (``pip install shapeenv[torch]``); nothing else in shapeenv imports it.

* :func:`export` ``(model, args, kwargs=None, dynamic_shapes=...)`` -> this library's
  :class:`~shapeenv.program.program.ExportedProgram`, with ``torch.export.Dim`` specs;
* :func:`compile` ``(model, backend=None, dynamic=None)`` -> the guarded cache over real
  torch tensors, running the model in torch (or the backend's artifact);
* :func:`register_torch_op` ``(torch_callable, op)`` maps a torch callable to a
  :mod:`shapeenv.ops` op, a registered shape rule or an adapter function;
* ``torch.cond``, ``torch._higher_order_ops.scan`` / ``map`` and ``torch._check`` are
  this library's ``switch`` / ``scan`` / ``map`` / ``check`` while tracing (:mod:`shapeenv.torch.hops`);
* ``nn.MultiheadAttention`` and ``nn.LSTM`` / ``GRU`` / ``RNN`` go through adapters built from
  :mod:`shapeenv.ops` (:mod:`shapeenv.torch.composites`);
* ``torch.compiler.is_compiling()`` / ``is_exporting()`` answer as under torch's compile / export on
  the tracing thread, so libraries (transformers) take their traced paths (:mod:`shapeenv.torch.hops`);
* objects registered as torch pytree nodes (transformers' ``DynamicCache``) are inputs and outputs
  by their children, as in torch.export (:mod:`shapeenv.torch.pytrees`).

How torch code reaches the shape rules (Note [Why a TorchFunctionMode] in
:mod:`shapeenv.torch.mode`): the model runs under a ``torch.overrides.TorchFunctionMode``
that intercepts every torch function, Tensor method, operator and property *before*
torch's kernels and maps ``(func, args, kwargs)`` to the op of the same name through a
dispatch table (:mod:`shapeenv.torch.table`). Inputs are ``torch.Tensor`` wrapper
subclasses on the meta device (:mod:`shapeenv.torch.tensor`) carrying this library's fake
tensors, so torch's ``isinstance`` checks pass. ``x.shape`` is a ``torch.Size`` of
``torch.SymInt`` s whose node is this library's SymInt (:mod:`shapeenv.torch.symbolic`):
torch's argument parser accepts them (``torch.arange(T)``, ``x * T``), their arithmetic is
this library's, and Python control flow on them records guards in the ShapeEnv.
Parameters and buffers are static inputs named as torch names them
(``L['self']._modules['fc']._parameters['weight']``, :mod:`shapeenv.torch.program`).
This works with torch 2.13's public extension points only: no torch internals are
subclassed, and nothing runs torch's kernels on the traced tensors.

>>> from shapeenv.torch import register_torch_op, UnsupportedTorchOpError
>>> issubclass(UnsupportedTorchOpError, NotImplementedError)
True
"""

from ..errors import UnsupportedTorchOpError
from . import composites as _composites  # noqa: F401  (registers the adapters of composite torch functions)
from . import handlers as _handlers  # noqa: F401  (registers the built-in table entries)
from .api import TorchCompiled, compile, export
from .dims import translate as translate_dynamic_shapes
from .mode import ShapeTraceMode
from .program import TorchFunction, module_state
from .table import DEFAULT as DEFAULT_TABLE
from .table import TorchOpTable, register_torch_op
from .tensor import TracedTensor

__all__ = [
    "export",
    "compile",
    "TorchCompiled",
    "register_torch_op",
    "TorchOpTable",
    "DEFAULT_TABLE",
    "UnsupportedTorchOpError",
    "ShapeTraceMode",
    "TracedTensor",
    "TorchFunction",
    "module_state",
    "translate_dynamic_shapes",
]
