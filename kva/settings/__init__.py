"""The pure pieces of the configuration: defaults, value types and parsers of the ``KVA_*``
settings that :mod:`kva.config` reads and the services, storage and web tier use.

They live here, not beside the code that uses them, so that reading the configuration loads
no service, no database driver and no web framework (tests/architecture checks it). Every
module here imports only the standard library, :mod:`kva.rules` and, for the rate-limit
notation, the ``limits`` parser.
"""
