"""What a call is: the first layer of plancheck's conformance package.

* :mod:`~conformance.model.calls` -- :class:`~conformance.model.calls.Call` (one
  complete operation call: operands, parameters, the plan it selects) and the
  table of non-dtype parameters and families;
* :mod:`~conformance.model.codec` -- a call as exact JSON and back, the
  ``plancheck repro`` line;
* :mod:`~conformance.model.literals` -- command-line literals (``Float32:[1.5, bits(0x7f800001)]``);
* :mod:`~conformance.model.capabilities` -- the call features a backend may declare unsupported;
* :mod:`~conformance.model.options` -- option values shared by ``plancheck run`` and the plugin;
* :mod:`~conformance.model.versions` -- which software a run measured;
* :mod:`~conformance.model.sanitize` -- backend-provided text made safe for each report format.

Nothing here imports another conformance package.
"""

__all__: list[str] = []
