"""Dtype descriptors: immutable, registered, identity-compared singletons.

Registration is process-global, so every extension descriptor made here has a
unique name (a uuid suffix) and no test depends on what other tests register.
"""

from __future__ import annotations

import copy
import pickle
import threading
import uuid

import pytest

from oracle import CompoundDType, DType, DTypeCategory, SimpleDType

BUILTIN_NAMES = (
    "Any",
    "Floating",
    "Integer",
    "Float32",
    "Int32",
    "Bool",
    "Float64",
    "Int8",
    "Float16",
    "BFloat16",
    "E4M3",
    "E5M2",
    "E2M1",
    "E8M0",
    "MXFP4",
)
CATEGORIES = ("Any", "Floating", "Integer")
COMPOUNDS = ("MXFP4",)
SIMPLES = tuple(n for n in BUILTIN_NAMES if n not in CATEGORIES + COMPOUNDS)


def unique(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex}"


def extension_descriptors() -> list[DType]:
    category = DTypeCategory(unique("ExtCategory"))
    nested = DTypeCategory(unique("ExtNested"), category)
    simple = SimpleDType(unique("ExtSimple"), bits=12, category=DType.Floating)
    in_extension = SimpleDType(unique("ExtInCategory"), bits=3, category=nested)
    compound = CompoundDType(unique("ExtCompound"), element=simple, scale=DType.E8M0, block_size=16)
    return [category, nested, simple, in_extension, compound]


def every_descriptor() -> list[DType]:
    return [DType.from_name(name) for name in BUILTIN_NAMES] + extension_descriptors()


# -- built-ins -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", BUILTIN_NAMES)
def test_builtin_is_registered_and_exposed(name):
    descriptor = DType.from_name(name)
    assert getattr(DType, name) is descriptor
    assert descriptor.name == name
    assert sum(d is descriptor for d in DType.registered()) == 1
    expected_kind = (
        DTypeCategory if name in CATEGORIES else CompoundDType if name in COMPOUNDS else SimpleDType
    )
    assert type(descriptor) is expected_kind
    assert repr(descriptor) == f"DType.{name}"


def test_builtin_simple_dtypes_belong_to_their_family():
    assert DType.Float32.category is DType.Floating and DType.Float32.bits == 32
    assert DType.Float64.category is DType.Floating and DType.Float64.bits == 64
    assert DType.Int32.category is DType.Integer and DType.Int32.bits == 32
    assert DType.Int8.category is DType.Integer and DType.Int8.bits == 8
    assert DType.Float16.bits == DType.BFloat16.bits == 16
    assert DType.Floating.parent is DType.Any and DType.Integer.parent is DType.Any
    assert DType.Any.parent is None


def test_mxfp4_is_a_block_of_e2m1_elements_sharing_an_e8m0_scale():
    assert DType.MXFP4.element is DType.E2M1
    assert DType.MXFP4.scale is DType.E8M0
    assert DType.MXFP4.block_size == 32


def test_abstract_root_cannot_be_constructed():
    with pytest.raises(TypeError, match="abstract root"):
        DType(unique("Root"))


# -- singletons: copy, deepcopy, pickle ------------------------------------------------------


@pytest.mark.parametrize("copier", [copy.copy, copy.deepcopy], ids=["copy", "deepcopy"])
def test_copying_returns_the_same_object(copier):
    for descriptor in every_descriptor():
        assert copier(descriptor) is descriptor


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_pickling_returns_the_same_object(protocol):
    for descriptor in every_descriptor():
        assert pickle.loads(pickle.dumps(descriptor, protocol=protocol)) is descriptor


def test_descriptors_keep_their_identity_inside_copied_containers():
    descriptors = every_descriptor()
    container = {"list": list(descriptors), "map": {d: d.name for d in descriptors}}
    for clone in (copy.deepcopy(container), pickle.loads(pickle.dumps(container))):
        assert all(a is b for a, b in zip(clone["list"], descriptors))
        assert all(clone["map"][d] == d.name for d in descriptors)


def test_equality_and_hashing_are_by_identity():
    first = SimpleDType(unique("Twin"), bits=8, category=DType.Floating)
    second = SimpleDType(unique("Twin"), bits=8, category=DType.Floating)
    assert first == first and first != second
    assert len({first, second, first}) == 2
    assert DType.Float32 != DType.Float64
    assert hash(DType.Float32) == hash(copy.deepcopy(DType.Float32))


# -- immutability ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "attribute", ["name", "_name", "bits", "_bits", "category", "parent", "element", "new"]
)
def test_attribute_assignment_and_deletion_fail(attribute):
    for descriptor in every_descriptor():
        with pytest.raises(AttributeError):
            setattr(descriptor, attribute, "changed")
        with pytest.raises(AttributeError):
            delattr(descriptor, attribute)
    assert DType.Float32.name == "Float32" and DType.Float32.bits == 32


def test_descriptors_have_no_instance_dictionary():
    for descriptor in every_descriptor():
        assert not hasattr(descriptor, "__dict__")


# -- registry --------------------------------------------------------------------------------


def test_from_name_of_an_unknown_name_raises_key_error():
    with pytest.raises(KeyError, match="no dtype named"):
        DType.from_name(unique("Missing"))


def test_registered_is_a_stable_ordered_snapshot():
    before = DType.registered()
    assert isinstance(before, tuple)
    assert DType.registered() == before
    names = [d.name for d in before]
    assert len(set(names)) == len(names)
    assert all(DType.from_name(d.name) is d for d in before)
    created = extension_descriptors()
    after = DType.registered()
    assert after[: len(before)] == before
    assert after[len(before) :] == tuple(created)


def test_builtins_come_first_in_registration_order():
    created = extension_descriptors()
    order = {d.name: i for i, d in enumerate(DType.registered())}
    builtin_positions = [order[name] for name in BUILTIN_NAMES]
    # built-ins were registered categories first, then simple, then compound
    assert builtin_positions[: len(CATEGORIES)] == sorted(builtin_positions[: len(CATEGORIES)])
    assert max(builtin_positions) < min(order[d.name] for d in created)
    assert max(order[n] for n in CATEGORIES) < min(order[n] for n in SIMPLES)
    assert max(order[n] for n in SIMPLES) < min(order[n] for n in COMPOUNDS)


def test_extension_construction_registers_each_kind():
    category, nested, simple, in_extension, compound = extension_descriptors()
    for descriptor in (category, nested, simple, in_extension, compound):
        assert DType.from_name(descriptor.name) is descriptor
        assert descriptor in DType.registered()
    assert category.parent is DType.Any
    assert nested.parent is category
    assert simple.category is DType.Floating and simple.bits == 12
    assert in_extension.category is nested
    assert (compound.element, compound.scale, compound.block_size) == (simple, DType.E8M0, 16)
    assert isinstance(category, DType) and isinstance(compound, DType)


@pytest.mark.parametrize(
    "make",
    [
        lambda name: DTypeCategory(name),
        lambda name: SimpleDType(name, bits=16, category=DType.Integer),
        lambda name: CompoundDType(name, element=DType.E4M3, scale=DType.E8M0, block_size=32),
    ],
    ids=["category", "simple", "compound"],
)
def test_a_duplicate_name_is_refused_and_keeps_the_original(make):
    name = unique("Dup")
    original = make(name)
    for again in (
        lambda: make(name),
        lambda: DTypeCategory(name),
        lambda: SimpleDType(name, bits=8, category=DType.Floating),
    ):
        with pytest.raises(ValueError, match="already registered"):
            again()
        assert DType.from_name(name) is original
    assert sum(d.name == name for d in DType.registered()) == 1


@pytest.mark.parametrize("name", BUILTIN_NAMES)
def test_a_builtin_name_cannot_be_reused(name):
    with pytest.raises(ValueError, match="already registered"):
        SimpleDType(name, bits=8, category=DType.Floating)
    with pytest.raises(ValueError, match="already registered"):
        DTypeCategory(name)
    assert getattr(DType, name) is DType.from_name(name)


def test_concurrent_construction_of_one_name_registers_exactly_one():
    name = unique("Race")
    barrier = threading.Barrier(8)
    made, refused = [], []

    def construct():
        barrier.wait()
        try:
            made.append(SimpleDType(name, bits=8, category=DType.Floating))
        except ValueError:
            refused.append(name)

    threads = [threading.Thread(target=construct) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(made) == 1 and len(refused) == 7
    assert DType.from_name(name) is made[0]


# -- bad constructor arguments ---------------------------------------------------------------

BAD_NAMES = ["", "1abc", "a b", "with-dash", "dot.ted", 3, None, b"bytes"]


@pytest.mark.parametrize("name", BAD_NAMES, ids=repr)
@pytest.mark.parametrize(
    "make",
    [
        lambda name: DTypeCategory(name),
        lambda name: SimpleDType(name, bits=8, category=DType.Floating),
        lambda name: CompoundDType(name, element=DType.E2M1, scale=DType.E8M0, block_size=32),
    ],
    ids=["category", "simple", "compound"],
)
def test_a_name_must_be_an_identifier_string(make, name):
    before = DType.registered()
    with pytest.raises(ValueError, match="identifier"):
        make(name)
    assert DType.registered() == before


@pytest.mark.parametrize(
    ("keywords", "error"),
    [
        ({"bits": 0, "category": DType.Floating}, ValueError),
        ({"bits": -8, "category": DType.Floating}, ValueError),
        ({"bits": 8.0, "category": DType.Floating}, ValueError),
        ({"bits": True, "category": DType.Floating}, ValueError),
        ({"bits": "8", "category": DType.Floating}, ValueError),
        ({"bits": None, "category": DType.Floating}, ValueError),
        ({"bits": 8, "category": DType.Float32}, TypeError),
        ({"bits": 8, "category": DType.MXFP4}, TypeError),
        ({"bits": 8, "category": "Floating"}, TypeError),
        ({"bits": 8, "category": None}, TypeError),
        ({"bits": 8}, TypeError),
        ({"category": DType.Floating}, TypeError),
    ],
    ids=repr,
)
def test_simple_dtype_arguments_are_validated(keywords, error):
    name = unique("BadSimple")
    with pytest.raises(error):
        SimpleDType(name, **keywords)
    with pytest.raises(KeyError):
        DType.from_name(name)


@pytest.mark.parametrize(
    ("keywords", "error"),
    [
        ({"element": DType.Floating, "scale": DType.E8M0, "block_size": 32}, TypeError),
        ({"element": DType.MXFP4, "scale": DType.E8M0, "block_size": 32}, TypeError),
        ({"element": DType.E2M1, "scale": DType.Any, "block_size": 32}, TypeError),
        ({"element": DType.E2M1, "scale": "E8M0", "block_size": 32}, TypeError),
        ({"element": None, "scale": DType.E8M0, "block_size": 32}, TypeError),
        ({"element": DType.E2M1, "scale": DType.E8M0, "block_size": 0}, ValueError),
        ({"element": DType.E2M1, "scale": DType.E8M0, "block_size": -32}, ValueError),
        ({"element": DType.E2M1, "scale": DType.E8M0, "block_size": 32.0}, ValueError),
        ({"element": DType.E2M1, "scale": DType.E8M0, "block_size": True}, ValueError),
        ({"element": DType.E2M1, "scale": DType.E8M0}, TypeError),
    ],
    ids=repr,
)
def test_compound_dtype_arguments_are_validated(keywords, error):
    name = unique("BadCompound")
    with pytest.raises(error):
        CompoundDType(name, **keywords)
    with pytest.raises(KeyError):
        DType.from_name(name)


@pytest.mark.parametrize("parent", [DType.Float32, DType.MXFP4, "Any", 0], ids=repr)
def test_a_category_parent_must_be_a_category(parent):
    name = unique("BadCategory")
    with pytest.raises(TypeError, match="parent"):
        DTypeCategory(name, parent)
    with pytest.raises(KeyError):
        DType.from_name(name)


def test_a_refused_name_stays_free():
    name = unique("Retry")
    with pytest.raises(ValueError):
        SimpleDType(name, bits=0, category=DType.Floating)
    with pytest.raises(TypeError):
        DTypeCategory(name, DType.Float32)
    made = SimpleDType(name, bits=8, category=DType.Floating)
    assert DType.from_name(name) is made
