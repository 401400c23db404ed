"""plancheck's oracle: the operation dtype policy and its reference semantics.

The public surface of the policy specification is importable from here:
dtype descriptors (:class:`DType` and its kinds), the plan records, the
operation registry and the central planner :func:`resolve_operation_plan`.
"""

from .dtypes import CompoundDType, DType, DTypeCategory, SimpleDType
from .evaluate import expected
from .expectation import Bounded, Conformance, Expectation, Interval, Mismatch, Verdict
from .facts import FAMILY_PARAMETERS, Family, OperationFacts, Parameter, ParameterKind
from .plan import (
    Accumulation,
    Arithmetic,
    OperandPlan,
    OperandRole,
    OperationPlan,
    is_differentiable,
)
from .planner import (
    ACCUMULATOR_CONFIGURABLE_OPERATIONS,
    IMPLEMENTED_STORAGE_DTYPES,
    SUPPORTED_ACCUMULATOR_DTYPES,
    SUPPORTED_TENSOR_DTYPES,
    WEAK_SCALAR_PROBES,
    OperationExecutionOptions,
    get_operation,
    operation_execution_options,
    operation_facts,
    plan_accumulator_variants,
    registered_operations,
    resolvable_plans,
    resolve_operation_plan,
)
from .registry import OperationOverload, OperationSpec
from .tensor import Tensor

__all__ = [
    "ACCUMULATOR_CONFIGURABLE_OPERATIONS",
    "FAMILY_PARAMETERS",
    "IMPLEMENTED_STORAGE_DTYPES",
    "SUPPORTED_ACCUMULATOR_DTYPES",
    "SUPPORTED_TENSOR_DTYPES",
    "WEAK_SCALAR_PROBES",
    "Accumulation",
    "Arithmetic",
    "Bounded",
    "CompoundDType",
    "Conformance",
    "DType",
    "DTypeCategory",
    "Expectation",
    "Family",
    "Interval",
    "Mismatch",
    "OperandPlan",
    "OperandRole",
    "OperationExecutionOptions",
    "OperationFacts",
    "OperationOverload",
    "OperationPlan",
    "OperationSpec",
    "Parameter",
    "ParameterKind",
    "SimpleDType",
    "Tensor",
    "Verdict",
    "expected",
    "get_operation",
    "is_differentiable",
    "operation_execution_options",
    "operation_facts",
    "plan_accumulator_variants",
    "registered_operations",
    "resolvable_plans",
    "resolve_operation_plan",
]
