"""Dtype descriptors: immutable, registered, identity-compared singletons.

Three kinds of descriptor share the root class :class:`DType`:

* :class:`DTypeCategory` -- an abstract family such as ``DType.Floating``.  A
  category is never an operation storage dtype; the planner refuses it.
* :class:`SimpleDType` -- one concrete element encoding with a bit width, such
  as ``DType.Float32``.  Only some simple dtypes are implemented by the planner
  (see :mod:`oracle.planner`); the rest are registered so that planning can
  refuse them precisely rather than widen them.
* :class:`CompoundDType` -- a representation made of several simple encodings,
  such as the block-scaled ``DType.MXFP4`` (E2M1 elements sharing one E8M0
  scale per block of 32).  Planning for compounds is deferred.

Every constructed descriptor registers itself under its unique name.  A
descriptor is its own copy: ``copy``, ``deepcopy`` and ``pickle`` return the
very same object, so identity comparison (which is what the planner uses) is
stable.  Equality is identity; an object that merely *compares* equal to a
descriptor is not that descriptor.
"""

from __future__ import annotations

import threading
from typing import ClassVar

__all__ = ["INT32_MAX", "INT32_MIN", "CompoundDType", "DType", "DTypeCategory", "SimpleDType"]

#: The range of DType.Int32.
INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1


class DType:
    """Root of every dtype descriptor.

    Instances are immutable and registered by name at construction;
    constructing a second descriptor with a name already registered raises
    ValueError.  The built-in descriptors are class attributes
    (``DType.Float32``, ``DType.Any``, ...).
    """

    __slots__ = ("_name",)
    _name: str  # set once by __init__ (object.__setattr__: instances are immutable)

    _registry: ClassVar[dict[str, DType]] = {}
    _lock: ClassVar[threading.Lock] = threading.Lock()

    # Built-in descriptors, bound at the end of this module.
    Any: ClassVar[DTypeCategory]
    Floating: ClassVar[DTypeCategory]
    Integer: ClassVar[DTypeCategory]
    Boolean: ClassVar[DTypeCategory]
    Float32: ClassVar[SimpleDType]
    Float64: ClassVar[SimpleDType]
    Int32: ClassVar[SimpleDType]
    Bool: ClassVar[SimpleDType]
    Int8: ClassVar[SimpleDType]
    Float16: ClassVar[SimpleDType]
    BFloat16: ClassVar[SimpleDType]
    E4M3: ClassVar[SimpleDType]
    E5M2: ClassVar[SimpleDType]
    E2M1: ClassVar[SimpleDType]
    E8M0: ClassVar[SimpleDType]
    MXFP4: ClassVar[CompoundDType]
    MXFP8: ClassVar[CompoundDType]
    NVFP4: ClassVar[CompoundDType]

    def __init__(self, name: str) -> None:
        if type(self) is DType:
            raise TypeError(
                "DType is the abstract root; construct a DTypeCategory, "
                "SimpleDType or CompoundDType"
            )
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"a dtype name must be an identifier string, got {name!r}")
        object.__setattr__(self, "_name", name)
        with DType._lock:
            if name in DType._registry:
                raise ValueError(f"a dtype named {name!r} is already registered")
            DType._registry[name] = self

    @property
    def name(self) -> str:
        """The unique registered name of this descriptor."""
        return self._name

    @classmethod
    def from_name(cls, name: str) -> DType:
        """Return the registered descriptor called *name* (KeyError if none)."""
        try:
            return DType._registry[name]
        except KeyError:
            raise KeyError(f"no dtype named {name!r} is registered") from None

    @classmethod
    def registered(cls) -> tuple[DType, ...]:
        """Every registered descriptor, built-ins first, in registration order."""
        with DType._lock:
            return tuple(DType._registry.values())

    def __setattr__(self, attribute: str, value: object) -> None:
        raise AttributeError(f"dtype descriptors are immutable; cannot set {attribute!r}")

    def __delattr__(self, attribute: str) -> None:
        raise AttributeError(f"dtype descriptors are immutable; cannot delete {attribute!r}")

    def __copy__(self) -> DType:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> DType:
        return self

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (DType.from_name, (self._name,))

    def __repr__(self) -> str:
        return f"DType.{self._name}"

    __str__ = __repr__


class DTypeCategory(DType):
    """An abstract dtype family; never an operation storage dtype.

    *parent* is the enclosing category (``DType.Any`` for the built-in
    families, ``None`` only for ``DType.Any`` itself).
    """

    __slots__ = ("_parent",)
    _parent: DTypeCategory | None

    def __init__(self, name: str, parent: DTypeCategory | None = None) -> None:
        if parent is None and "Any" in DType._registry:
            parent = DType.Any
        if parent is not None and not isinstance(parent, DTypeCategory):
            raise TypeError(f"a category's parent must be a DTypeCategory, got {parent!r}")
        object.__setattr__(self, "_parent", parent)
        super().__init__(name)

    @property
    def parent(self) -> DTypeCategory | None:
        return self._parent


class SimpleDType(DType):
    """One concrete element encoding of *bits* bits in *category*."""

    __slots__ = ("_bits", "_category")
    _bits: int
    _category: DTypeCategory

    def __init__(self, name: str, *, bits: int, category: DTypeCategory) -> None:
        if type(bits) is not int or bits <= 0:
            raise ValueError(f"bits must be a positive int, got {bits!r}")
        if not isinstance(category, DTypeCategory):
            raise TypeError(f"category must be a DTypeCategory, got {category!r}")
        object.__setattr__(self, "_bits", bits)
        object.__setattr__(self, "_category", category)
        super().__init__(name)

    @property
    def bits(self) -> int:
        return self._bits

    @property
    def category(self) -> DTypeCategory:
        return self._category


class CompoundDType(DType):
    """A block-scaled representation: *block_size* elements share one scale.

    A value is ``element * 2**scale`` (or the scale's own decoding), with one
    *scale* encoding stored per *block_size* consecutive *element* encodings.
    """

    __slots__ = ("_block_size", "_element", "_scale")
    _block_size: int
    _element: SimpleDType
    _scale: SimpleDType

    def __init__(
        self, name: str, *, element: SimpleDType, scale: SimpleDType, block_size: int
    ) -> None:
        for role, part in (("element", element), ("scale", scale)):
            if not isinstance(part, SimpleDType):
                raise TypeError(f"a compound's {role} must be a SimpleDType, got {part!r}")
        if type(block_size) is not int or block_size <= 0:
            raise ValueError(f"block_size must be a positive int, got {block_size!r}")
        object.__setattr__(self, "_element", element)
        object.__setattr__(self, "_scale", scale)
        object.__setattr__(self, "_block_size", block_size)
        super().__init__(name)

    @property
    def element(self) -> SimpleDType:
        return self._element

    @property
    def scale(self) -> SimpleDType:
        return self._scale

    @property
    def block_size(self) -> int:
        return self._block_size


def _bind_builtins() -> None:
    """Create the built-in descriptors and expose them as ``DType`` attributes."""
    any_ = DTypeCategory("Any")
    floating = DTypeCategory("Floating", any_)
    integer = DTypeCategory("Integer", any_)
    boolean = DTypeCategory("Boolean", any_)
    simple = (
        ("Float32", 32, floating),
        ("Int32", 32, integer),
        ("Bool", 8, boolean),
        ("Float64", 64, floating),
        ("Int8", 8, integer),
        ("Float16", 16, floating),
        ("BFloat16", 16, floating),
        ("E4M3", 8, floating),
        ("E5M2", 8, floating),
        ("E2M1", 4, floating),
        ("E8M0", 8, floating),
    )
    for category in (any_, floating, integer, boolean):
        type.__setattr__(DType, category.name, category)
    for name, bits, category in simple:
        type.__setattr__(DType, name, SimpleDType(name, bits=bits, category=category))
    compounds = (
        ("MXFP4", DType.E2M1, DType.E8M0, 32),
        ("MXFP8", DType.E4M3, DType.E8M0, 32),
        ("NVFP4", DType.E2M1, DType.E4M3, 16),
    )
    for name, element, scale, block_size in compounds:
        compound = CompoundDType(name, element=element, scale=scale, block_size=block_size)
        type.__setattr__(DType, name, compound)


_bind_builtins()
