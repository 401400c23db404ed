"""Adapters of outside array libraries to the backend protocol.

Each adapter obtains its plan from the central planner and then maps the plan
onto the library's own operations as directly as the library's API allows, so
that a conformance report measures the library, not the adapter.  Where the
library has no equivalent of a rule (checked Int32 overflow, a Float64
accumulator, a stable sort), the adapter does what a user of that library would
naturally write, and the report shows the gap as a deviation.

``numpy-native`` (numpy float32/int32 ufuncs), ``torch`` (PyTorch on the CPU,
extra ``plancheck[torch]``) and ``jax`` (JAX on the CPU, extra
``plancheck[jax]``); see docs/new-backend.md and the tables in docs/backends/.
"""
