"""The backend host: the backend under test runs only in processes plancheck starts.

* :mod:`conformance.host.wire` -- what crosses: raw bits, exception and warning texts;
* :mod:`conformance.host.fpenv` -- probes of the floating-point environment;
* :mod:`conformance.host.segment` -- big arrays (the exhaustive sweep's chunks)
  through shared memory;
* :mod:`conformance.host.identity` -- a loaded backend's build identity;
* :mod:`conformance.host.server` -- the host process (imports and runs the backend);
* :mod:`conformance.host.client` -- :class:`BackendHost`, the judge's handle on one.

The judge (oracle, strategies, witness tables, caches) never imports the backend's
module; see docs/decisions.md ("The backend host").
"""
