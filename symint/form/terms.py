"""The data of canonical integer forms: interned atoms, monomials and forms, and their value.

:mod:`symint.form` builds forms (``add``, ``mul``, ``floordiv``, ...) and is what callers
import; this module holds what those operations build on, so that nothing here needs
them: the three interned classes, the constructors that intern, the size limits and
evaluation on integers with Python semantics. The sympy view of a form is built by
:func:`symint.sympy_io.to_sympy` (Note [Forms import no sympy] in :mod:`symint.form`),
which caches it in the ``_sympy`` slot of the form; nothing here reads that slot.

>>> from symint.form import add, const, sym
>>> f = add(sym("x"), const(3))
>>> f, f.value({"x": 4}), f is add(const(3), sym("x"))
(Form(x + 3), 7, True)
"""

from __future__ import annotations

import gc
import hashlib
import itertools
import threading
import weakref
from typing import Any, Callable, Hashable, Mapping

from ..errors import ExpressionLimitError
from ..limits import MAX_EXPONENT, MAX_INTEGER_BITS
from .evaluate import evaluate_form
from .text import atom_text, form_text

#: Largest number of terms a form may have; past it construction raises FormLimitError.
MAX_TERMS = 4096
#: Largest bit length of a coefficient or constant (the limit of :mod:`symint.limits`).
MAX_BITS = MAX_INTEGER_BITS
MEMO_LIMIT = 1 << 17  # entries of one operation memo table before it is cleared

# Note [Keys the garbage collector skips]
#     A tuple holding an interned object (``(form_a, form_b)``, ``((mono, 3), ...)``) is tracked
#     by Python's cyclic garbage collector for as long as it lives, and the interning and memo
#     tables keep such keys for the life of the process: every full collection then walks them
#     all (measured on W1: two full collections were a third of a cold replay). So keys are built
#     from serial numbers (``uid``, an int given at creation): an int, or a tuple of ints, which
#     the collector stops tracking at its first look. Values are shared too: a monomial-coefficient
#     pair, a tuple of terms and a set of symbol names exist once, whatever number of forms hold
#     them. Interned objects are never freed, so a serial number always names the same object.
#     A binary operation's memo key packs two serial numbers into one int (``a.uid << 32 | b.uid``):
#     exact while fewer than 2**32 objects are interned, far beyond what memory holds.
_SERIALS = itertools.count(1)

# Note [Interning from several threads]
#     A guard set is simplified in a worker thread while tracing goes on (shapeenv.core.deferred),
#     and both build forms. An interned object is built first and then published with
#     ``table.setdefault(key, new)``: if another thread published an equal one first, that one is
#     returned and the new one dropped, so equal structures stay one object. ``setdefault`` is one
#     atomic step when hashing and comparing the key run no Python code (ints, strings, tuples of
#     them, objects with the default hash), which holds for every key here but an opaque atom's
#     (it holds the wrapped expression, whose hash may run Python code): those are published under a lock. A tuple of terms gets its
#     number the same way, stored under the number before the number is published.
_OPAQUE_LOCK = threading.Lock()


class FormLimitError(ExpressionLimitError):
    """A construction would build an unreasonably large form (too many terms, huge integers or exponents)."""


_SYMBOL_SETS: dict[frozenset, frozenset] = {}


def symbol_set(names: frozenset) -> frozenset:
    """The shared frozenset equal to ``names`` (see Note [Keys the garbage collector skips]).

    >>> symbol_set(frozenset({"a"})) is symbol_set(frozenset(["a"]))
    True
    """
    found = _SYMBOL_SETS.get(names)
    if found is None:
        found = _SYMBOL_SETS.setdefault(names, names)  # atomic: Note [Interning from several threads]
    return found


def _digest(*parts: bytes) -> bytes:
    return hashlib.blake2b(b"\x00".join(parts), digest_size=8).digest()


# -- atoms --------------------------------------------------------------------------------------------
#: How an opaque atom or boolean is evaluated: ``value(wrapped, values)`` with ``values`` symbol name -> int.
OpaqueValue = Callable[[Any, Mapping[str, int]], Any]


class Atom:
    """An interned indivisible integer quantity: a symbol or an opaque function of forms.

    ``kind`` is one of ``sym``, ``floordiv``, ``ceildiv``, ``mod``, ``max``, ``min``,
    ``pow`` (symbolic exponent) and ``opaque`` (a wrapped expression of another
    representation, in practice sympy: Note [Opaque atoms carry their own meaning]).

    >>> sym("s0").terms[0][0].factors[0][0].name
    's0'
    """

    __slots__ = ("kind", "args", "name", "key", "digest", "symbols", "opaque_value", "_sympy", "uid", "__weakref__")

    def __init__(self, kind: str, args: tuple, name: str | None, digest: bytes, symbols: frozenset,
                 opaque_value: OpaqueValue | None = None):
        self.kind = kind
        self.args = args
        self.name = name
        self.digest = digest
        self.key = (0, name) if kind == "sym" else (1, digest)
        self.symbols = symbol_set(symbols)
        self.opaque_value = opaque_value
        self._sympy = None  # the sympy view: written and read by symint.sympy_io only
        self.uid = next(_SERIALS)

    def __repr__(self) -> str:
        return f"Atom({atom_text(self)})"


_ATOMS: dict[tuple, Atom] = {}


def _atom_key(kind: str, name: str | None, args: tuple) -> tuple:
    if len(args) == 2 and kind != "opaque":  # the common case, without a generator
        return (kind, name, args[0].uid, args[1].uid)
    return (kind, name, *(a.uid for a in args)) if kind != "opaque" else (kind, name, args)


def make_atom(kind: str, args: tuple, name: str | None = None) -> Atom:
    """The interned atom ``kind(*args)`` (or the symbol ``name``); opaque atoms are :func:`make_opaque_atom`'s."""
    key = _atom_key(kind, name, args)
    found = _ATOMS.get(key)
    if found is not None:
        return found
    if kind == "sym":
        digest = _digest(b"sym", name.encode())
        symbols = frozenset((name,))
    elif kind == "opaque":
        raise ValueError("an opaque atom is built by make_opaque_atom, which is told its digest, symbols and value")
    elif len(args) == 2:  # the common case (floor division, modulo, max and min of two), without generators
        a0, a1 = args
        digest = _digest(kind.encode(), a0.digest, a1.digest)
        s0, s1 = a0.symbols, a1.symbols
        symbols = s0 if s1 <= s0 else (s1 if s0 <= s1 else s0 | s1)
    else:
        digest = _digest(kind.encode(), *(a.digest for a in args))
        symbols = frozenset().union(*(a.symbols for a in args))
    return _ATOMS.setdefault(key, Atom(kind, args, name, digest, symbols))  # atomic: Note [Interning from several threads]


# Note [Opaque atoms carry their own meaning]
#     An opaque atom wraps an integer expression forms cannot represent (in practice a sympy
#     expression: ``IfThenElse``, ``FloorToInt``, a bitwise function). Forms know nothing of
#     that representation and import nothing of it: the code that wraps it (symint.sympy_io)
#     says once what forms need of it: a ``digest`` of its structure (deterministic across
#     processes, Note [Deterministic order] in symint.form.arith), the names of its ``symbols``,
#     and ``value(wrapped, values)``, its value for integer values of the symbols. The atom is
#     interned by the wrapped object (equal wrapped objects are one atom); the first wrapping
#     of an object gives the digest and the value. An opaque boolean
#     (:func:`symint.form.logic.opaque_bool`) is told the same, but for the digest.


def make_opaque_atom(wrapped: Hashable, digest: bytes, symbols: frozenset, value: OpaqueValue) -> Atom:
    """The interned opaque atom of ``wrapped`` (Note [Opaque atoms carry their own meaning]).

    >>> a = make_opaque_atom("twice n", b"twice n", frozenset({"n"}), lambda w, values: values["n"] * 2)
    >>> a is make_opaque_atom("twice n", b"twice n", frozenset({"n"}), None), atom_form(a).value({"n": 4})
    (True, 8)
    """
    key = _atom_key("opaque", None, (wrapped,))
    found = _ATOMS.get(key)
    if found is not None:
        return found
    atom = Atom("opaque", (wrapped,), None, _digest(b"opaque", digest), symbols, value)
    with _OPAQUE_LOCK:  # hashing the key runs Python code: Note [Interning from several threads]
        return _ATOMS.setdefault(key, atom)


# -- monomials ----------------------------------------------------------------------------------------
class Mono:
    """An interned product of atom powers, ``factors`` sorted by atom key (the empty product is 1).

    >>> from symint.form import add, const, floordiv, mul, sub, sym
    >>> m = mul(sym("a"), sym("a")).terms[0][0]
    >>> m.degree, [(a.name, p) for a, p in m.factors]
    (2, [('a', 2)])
    """

    __slots__ = ("factors", "key", "_digest", "degree", "symbols", "single", "_sympy", "uid", "__weakref__")

    def __init__(self, factors: tuple[tuple[Atom, int], ...]):
        self.factors = factors
        #: The atom when this monomial is one atom to the first power, else None (see :meth:`single_atom`).
        self.single = None
        if len(factors) == 1:  # one atom's power, the common case: its key and its (shared) symbols
            a, p = factors[0]
            self.key = ((a.key, p),)
            self.degree = p
            self.symbols = a.symbols
            if p == 1:
                self.single = a
        else:
            self.key = tuple([(a.key, p) for a, p in factors])
            self.degree = sum([p for _, p in factors])
            self.symbols = symbol_set(frozenset().union(*(a.symbols for a, _ in factors)) if factors else frozenset())
        self._digest = None
        self._sympy = None  # the sympy view: written and read by symint.sympy_io only
        self.uid = next(_SERIALS)

    @property
    def digest(self) -> bytes:
        """A structural digest (built on first use: only a form's digest needs it)."""
        d = self._digest
        if d is None:
            d = self._digest = _digest(b"mono", *(a.digest + p.to_bytes(4, "little") for a, p in self.factors))
        return d

    def single_atom(self) -> Atom | None:
        """The atom when this monomial is one atom to the first power, else None (also the attribute ``single``)."""
        return self.single


_MONOS: dict[tuple, Mono] = {}


def _mono_key(factors: tuple[tuple[Atom, int], ...]) -> tuple:
    if len(factors) == 1:  # the common case, without a generator
        a, p = factors[0]
        return (a.uid, p)
    return tuple(n for a, p in factors for n in (a.uid, p))  # flat: see Note [Keys the garbage collector skips]


def make_mono(factors: tuple[tuple[Atom, int], ...]) -> Mono:
    key = _mono_key(factors)
    found = _MONOS.get(key)
    if found is None:
        found = _MONOS.setdefault(key, Mono(factors))  # atomic: Note [Interning from several threads]
    return found


_MONO_MUL: dict[int, Mono] = {}


def mono_mul(a: Mono, b: Mono) -> Mono:
    key = a.uid << 32 | b.uid
    found = _MONO_MUL.get(key)
    if found is not None:
        return found
    powers: dict[Atom, int] = {}
    for atom, p in a.factors:
        powers[atom] = powers.get(atom, 0) + p
    for atom, p in b.factors:
        q = powers[atom] = powers.get(atom, 0) + p
        if q > MAX_EXPONENT:  # the limit of symint.limits, as sympy's folded powers have it
            raise FormLimitError(f"the exponent {q} is larger than {MAX_EXPONENT} (in a product)")
    result = make_mono(tuple(sorted(powers.items(), key=lambda item: item[0].key)))
    if len(_MONO_MUL) > MEMO_LIMIT:
        _MONO_MUL.clear()
    _MONO_MUL[key] = _MONO_MUL[b.uid << 32 | a.uid] = result
    return result


ONE_MONO = make_mono(())


# -- forms --------------------------------------------------------------------------------------------
class Form:
    """An interned integer polynomial ``const + sum(coeff * mono)`` (see the module docstring).

    Attributes:
        terms: ``((mono, coeff), ...)`` with nonzero coefficients, sorted by monomial key.
        const: the constant term.
        symbols: the names of every symbol inside (atoms' arguments included).

    >>> from symint.form import add, const, floordiv, mul, sub, sym
    >>> f = add(sym("x"), const(3))
    >>> f.const, f.is_const, f.symbols, f.value({"x": 4})
    (3, False, frozenset({'x'}), 7)
    """

    __slots__ = ("terms", "const", "uid", "_digest", "symbols", "is_const", "_sympy", "_linear", "_symdiv", "__weakref__")

    def __init__(self, terms: tuple[tuple[Mono, int], ...], const_: int):
        self.terms = terms
        self.const = const_
        self.uid = next(_SERIALS)
        self._digest = None
        # an attribute, not a property: read ~2.5 times per form on W1, so computed at once (cheap: shared sets)
        self.symbols = terms[0][0].symbols if len(terms) == 1 else (_terms_symbols(terms) if terms else _NO_SYMBOLS)
        self.is_const = not terms
        self._sympy = None  # the sympy view: written and read by symint.sympy_io only
        self._linear = None
        self._symdiv = None

    @property
    def has_symbolic_division(self) -> bool:
        """Whether some floor division or modulo inside has a non-constant divisor."""
        v = self._symdiv
        if v is None:
            v = False
            for m, _ in self.terms:
                for a, _ in m.factors:
                    if a.kind in ("floordiv", "ceildiv", "mod") and (not a.args[1].is_const or a.args[0].has_symbolic_division):
                        v = True
                    elif a.kind not in ("sym", "opaque") and any(x.has_symbolic_division for x in a.args):
                        v = True
                    if v:
                        break
                if v:
                    break
            self._symdiv = v
        return v

    def has_division(self) -> bool:
        """Whether a floor/ceil division or modulo occurs anywhere inside.

        >>> from symint.form import add, const, floordiv, mul, sub, sym
        >>> sym("x").has_division(), add(floordiv(sym("x"), const(2)), const(1)).has_division()
        (False, True)
        """
        for m, _ in self.terms:
            for a, _ in m.factors:
                if a.kind in ("floordiv", "ceildiv", "mod"):
                    return True
                if a.kind not in ("sym", "opaque") and any(x.has_division() for x in a.args):
                    return True
        return False

    @property
    def digest(self) -> bytes:
        """A structural digest (deterministic across processes; see Note [Deterministic order])."""
        d = self._digest
        if d is None:
            d = self._digest = _digest(
                b"form", str(self.const).encode(), *(m.digest + str(c).encode() for m, c in self.terms)
            )
        return d

    def __repr__(self) -> str:
        """``Form(<text>)``, printed without sympy (:mod:`symint.form.text`).

        >>> from symint.form import const, sub, sym
        >>> sub(sym("x"), const(1))
        Form(x - 1)
        """
        return f"Form({form_text(self)})"

    def atom(self) -> Atom | None:
        """The atom when this form is exactly one atom (coefficient 1, no constant), else None.

        >>> from symint.form import add, const, floordiv, mul, sub, sym
        >>> sym("x").atom().name, add(sym("x"), const(1)).atom()
        ('x', None)
        """
        if self.const == 0 and len(self.terms) == 1 and self.terms[0][1] == 1:
            return self.terms[0][0].single
        return None

    def linear(self) -> dict[str, int] | None:
        """``{symbol name: coefficient}`` when this is a linear combination of symbols plus the constant.

        >>> from symint.form import add, const, floordiv, mul, sub, sym
        >>> add(mul(const(2), sym("x")), const(5)).linear()
        {'x': 2}
        """
        if self._linear is None:  # computed once; False when some monomial is not a plain symbol
            out: dict[str, int] | bool = {}
            for m, c in self.terms:
                a = m.single
                if a is None or a.kind != "sym":
                    out = False
                    break
                out[a.name] = c
            self._linear = out
        return None if self._linear is False else self._linear

    def value(self, values: dict[str, int]) -> int:
        """The value for integer ``values`` of the symbols (Python semantics; KeyError if one is missing)."""
        return evaluate_form(self, values)


_NO_SYMBOLS: frozenset = frozenset()


def _terms_symbols(terms: tuple) -> frozenset:
    """The shared set of the symbols of several terms (Note [Keys the garbage collector skips])."""
    s = terms[0][0].symbols
    fresh = False  # whether s is a new set (a union), to be shared
    for m, _ in terms:  # often one term's set holds the others'
        t = m.symbols
        if not t <= s:
            if s <= t:
                s, fresh = t, False
            else:
                s, fresh = s | t, True
    return symbol_set(s) if fresh else s


_BITS_BOUND = 1 << MAX_BITS  # the least magnitude with more than MAX_BITS bits
_FORMS: dict[tuple[int, int], Form] = {}  # (terms number, constant) -> form
_TERMS_NUMBER: dict[tuple, int] = {}  # a tuple of terms -> its number
_TERMS: dict[int, tuple] = {}  # number -> the shared tuple of terms
_PAIRS: dict[tuple[int, int], tuple] = {}  # (monomial uid, coefficient) -> the shared pair


def _intern_terms(terms: tuple[tuple[Mono, int], ...]) -> int:
    if len(terms) > MAX_TERMS:
        raise FormLimitError(f"an expression with {len(terms)} terms exceeds the limit of {MAX_TERMS}")
    pairs = _PAIRS
    shared = []
    for pair in terms:
        c = pair[1]
        if not -_BITS_BOUND < c < _BITS_BOUND:  # c.bit_length() > MAX_BITS, without a method call
            raise FormLimitError(f"an integer with more than {MAX_BITS} bits would be built")
        key = (pair[0].uid, c)
        found = pairs.get(key)
        if found is None:
            found = pairs.setdefault(key, pair)  # atomic: an int key runs no Python code
        shared.append(found)
    shared = tuple(shared)
    candidate = next(_SERIALS)
    _TERMS[candidate] = shared  # stored before the number is published (Note [Interning from several threads])
    number = _TERMS_NUMBER.setdefault(shared, candidate)
    if number != candidate:  # another thread numbered an equal tuple first
        del _TERMS[candidate]
    return number


def make_form(terms: tuple[tuple[Mono, int], ...], const_: int) -> Form:
    number = _TERMS_NUMBER.get(terms)
    if number is None:
        number = _intern_terms(terms)
    key = (number, const_)
    found = _FORMS.get(key)
    if found is None:
        if not -_BITS_BOUND < const_ < _BITS_BOUND:
            raise FormLimitError(f"an integer with more than {MAX_BITS} bits would be built")
        found = _FORMS.setdefault(key, Form(_TERMS[number], const_))  # atomic: Note [Interning from several threads]
    return found


def _term_order(term: tuple) -> tuple:
    return term[0].key


def sorted_terms(coeffs: dict[Mono, int]) -> list[tuple[Mono, int]]:
    """The nonzero ``(monomial, coefficient)`` items of ``coeffs`` in canonical order.

    >>> from symint.form import sym
    >>> [(m.factors[0][0].name, c) for m, c in sorted_terms({sym("b").terms[0][0]: 2, sym("a").terms[0][0]: 1})]
    [('a', 1), ('b', 2)]
    """
    terms = [t for t in coeffs.items() if t[1]]
    n = len(terms)
    if n == 2:  # the common case, without calling the key twice
        if terms[1][0].key < terms[0][0].key:
            terms.reverse()
    elif n > 2:
        terms.sort(key=_term_order)
    return terms


def form_from_dict(coeffs: dict[Mono, int], const_: int) -> Form:
    """The form ``const_ + sum(c * m)`` of a coefficient dict (zero coefficients dropped).

    >>> from symint.form import sym
    >>> form_from_dict({sym("a").terms[0][0]: 2}, 1)
    Form(2*a + 1)
    """
    if ONE_MONO in coeffs:  # the empty product (e.g. x*y / (x*y)) is the constant term
        const_ += coeffs.pop(ONE_MONO)
    return make_form(tuple(sorted_terms(coeffs)), const_)


_CONSTS: dict[int, Form] = {}


def const(k: int) -> Form:
    """The constant form ``k``.

    >>> const(3).const, const(3) is const(3)
    (3, True)
    """
    found = _CONSTS.get(k)
    if found is None:
        if type(k) is not int:
            k = int(k)
        found = make_form((), k)
        if -1024 <= k <= 1024:
            _CONSTS[k] = found
    return found


def sym(name: str) -> Form:
    """The form of the integer symbol ``name``.

    >>> sym("s0") is sym("s0")
    True
    """
    return atom_form(make_atom("sym", (), name))


_ATOM_FORMS: dict[Atom, Form] = {}


def atom_form(atom: Atom) -> Form:
    """The form that is exactly ``atom``."""
    found = _ATOM_FORMS.get(atom)
    if found is None:
        found = _ATOM_FORMS[atom] = make_form(((make_mono(((atom, 1),)), 1),), 0)
    return found


# -- freeing what nothing holds -----------------------------------------------------------------------
# Note [Sweeping the interning tables]
#     Interning keeps every form, monomial and atom ever built, so a long-running process that
#     traces programs with ever new constants grows without bound (measured: ~9 KB a request,
#     70 -> 256 MB over 20,000 small traces). A sweep frees what only the tables hold, and keeps
#     identity for everything else: every table entry is taken out and held by a weak reference
#     only, the memo caches are emptied, a garbage collection runs, and what survived (held by a
#     live ShapeEnv, guard set, program or a caller's variable) is put back under the same key.
#     An object that died cannot be compared with anything, so building an equal structure again
#     later gives a new object with no loss of identity equality. Serial numbers are never reused,
#     so a memo key of a dead object cannot name a new one.
#
#     A sweep must not run while another thread builds forms: between taking out and putting back,
#     a builder could publish a second object for a structure that survives (two objects, one
#     structure: less precise, never wrong, but not deterministic), or miss the number of its own
#     tuple of terms. So the automatic sweep (:func:`maybe_sweep`, which ``ShapeEnv()`` calls as a
#     trace starts) runs only when the calling thread is the only one alive, once the tables hold
#     more than twice what survived the last sweep (and at least ``SWEEP_MIN`` objects): amortised,
#     each object is looked at a constant number of times. A program with threads calls
#     :func:`sweep` itself at a quiet moment.

#: Fewest interned objects at which :func:`maybe_sweep` sweeps.
SWEEP_MIN = 100_000

_INTERNED: list[tuple[dict, Callable[[Any], Any]]] = []  # (table, key of a value): swept weakly
_CACHES: list[dict] = []  # memo tables: emptied by a sweep
_SWEEP_LOCK = threading.Lock()
_next_sweep = SWEEP_MIN


def register_interned(table: dict, key_of: Callable[[Any], Any]) -> None:
    """Let :func:`sweep` free the values of the interning ``table`` that nothing else holds.

    ``key_of(value)`` must give the key the value is stored under; the values must accept
    weak references.
    """
    _INTERNED.append((table, key_of))


def register_cache(table: dict) -> None:
    """Let :func:`sweep` empty the memo ``table`` (a cache: emptying it changes no result)."""
    _CACHES.append(table)


def interned_count() -> int:
    """How many objects the interning tables hold.

    >>> interned_count() > 0
    True
    """
    return len(_FORMS) + len(_MONOS) + len(_ATOMS) + sum(len(t) for t, _ in _INTERNED)


def sweep() -> int:
    """Free the interned objects that only the interning tables hold; returns how many were freed.

    Identity is kept for everything still held (Note [Sweeping the interning tables]). Call
    it when no other thread is building forms.

    >>> from symint.form import add, const, sym
    >>> kept = add(sym("kept"), const(123457))
    >>> _ = add(sym("dropped"), const(98765))
    >>> sweep() > 0, add(sym("kept"), const(123457)) is kept
    (True, True)
    """
    global _next_sweep
    with _SWEEP_LOCK:
        before = interned_count()
        for table in _CACHES:
            table.clear()
        forms = [(weakref.ref(f), number, c) for (number, c), f in _FORMS.items()]
        monos = [weakref.ref(m) for m in _MONOS.values()]
        atoms = [weakref.ref(a) for a in _ATOMS.values()]
        others = [(table, key_of, [weakref.ref(v) for v in table.values()]) for table, key_of in _INTERNED]
        for table in (_FORMS, _MONOS, _ATOMS, _TERMS, _TERMS_NUMBER, _PAIRS, _SYMBOL_SETS):
            table.clear()
        for table, _ in _INTERNED:
            table.clear()
        gc.collect()  # cycles among dead objects (a relation and its cached negation)
        for ref in atoms:
            a = ref()
            if a is not None:
                _ATOMS[_atom_key(a.kind, a.name, a.args)] = a
        for ref in monos:
            m = ref()
            if m is not None:
                _MONOS[_mono_key(m.factors)] = m
        for ref, number, c in forms:
            f = ref()
            if f is not None:
                _FORMS[(number, c)] = f
                _TERMS[number] = f.terms
                _TERMS_NUMBER[f.terms] = number
                for pair in f.terms:
                    _PAIRS[(pair[0].uid, pair[1])] = pair
        for table, key_of, refs in others:
            for ref in refs:
                v = ref()
                if v is not None:
                    table[key_of(v)] = v
        for table in (_ATOMS, _MONOS, _FORMS, *(t for t, _ in _INTERNED)):  # the sets the survivors hold stay the shared ones
            for v in table.values():
                held = getattr(v, "symbols", None)
                if type(held) is frozenset:
                    _SYMBOL_SETS.setdefault(held, held)
        after = interned_count()
        _next_sweep = max(SWEEP_MIN, 2 * after)
        return before - after


def maybe_sweep() -> bool:
    """:func:`sweep` if the tables have grown past the next threshold and no other thread runs.

    Returns whether it swept (Note [Sweeping the interning tables]).
    """
    if interned_count() <= _next_sweep or threading.active_count() != 1:
        return False
    sweep()
    return True


register_cache(_MONO_MUL)
register_interned(_ATOM_FORMS, lambda f: f.terms[0][0].factors[0][0])
