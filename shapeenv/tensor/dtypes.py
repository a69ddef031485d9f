"""Tensor dtypes for fake tensors, with torch's names and type promotion.

>>> promote(float32, int64).name, promote(int32, int64).name, promote(bool_, int8).name
('float32', 'int64', 'int8')
"""

from __future__ import annotations

from dataclasses import dataclass

from shapeenv.errors import ShapeEnvTypeError

__all__ = [
    "DType",
    "bool_",
    "uint8",
    "int8",
    "int16",
    "int32",
    "int64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "as_dtype",
    "promote",
    "DTYPES",
]


@dataclass(frozen=True, slots=True)
class DType:
    """A dtype: its name, its category (``bool``/``int``/``float``) and its width in bits."""

    name: str
    kind: str
    bits: int

    @property
    def is_floating_point(self) -> bool:
        """Whether this is a floating-point dtype."""
        return self.kind == "float"

    @property
    def short(self) -> str:
        """The abbreviation graph listings and program metadata print (``f32[s0, 4]``).

        >>> float32.short, int64.short, bool_.short, bfloat16.short
        ('f32', 'i64', 'b8', 'bf16')
        """
        if self.name == "bfloat16":
            return "bf16"
        return f"{self.kind[0]}{self.bits}"

    def __repr__(self) -> str:
        return self.name


bool_ = DType("bool", "bool", 8)
uint8 = DType("uint8", "int", 8)
int8 = DType("int8", "int", 8)
int16 = DType("int16", "int", 16)
int32 = DType("int32", "int", 32)
int64 = DType("int64", "int", 64)
float16 = DType("float16", "float", 16)
bfloat16 = DType("bfloat16", "float", 16)
float32 = DType("float32", "float", 32)
float64 = DType("float64", "float", 64)

DTYPES: dict[str, DType] = {d.name: d for d in (bool_, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64)}
DTYPES.update({"float": float32, "double": float64, "long": int64, "int": int32, "half": float16})

_KIND_ORDER = {"bool": 0, "int": 1, "float": 2}


def as_dtype(value: "DType | str | object") -> DType:
    """A DType from a DType, a name (``"float32"``) or an object with a ``.dtype``/torch/numpy dtype.

    >>> as_dtype("float").name, as_dtype(int64).name
    ('float32', 'int64')
    """
    if isinstance(value, DType):
        return value
    name = str(value).replace("torch.", "")
    if name in DTYPES:
        return DTYPES[name]
    raise ShapeEnvTypeError(f"unknown dtype {value!r}; use one of {', '.join(sorted(DTYPES))}")


def promote(a: DType, b: DType) -> DType:
    """The dtype of an elementwise op on ``a`` and ``b`` (the higher category, then the wider type).

    ``float16`` with ``bfloat16`` promotes to ``float32``, as in torch.
    """
    if a == b:
        return a
    ka, kb = _KIND_ORDER[a.kind], _KIND_ORDER[b.kind]
    if ka != kb:
        return a if ka > kb else b
    if {a, b} == {float16, bfloat16}:
        return float32
    if {a, b} == {uint8, int8}:
        return int16
    return a if a.bits >= b.bits else b
