"""Simplifying guard sets: the exact reduction on forms that ``produce_guards`` runs (:mod:`.reduce_forms`),
the Z3-backed passes of ``simplify`` and ``reduce_exact`` (:mod:`.passes`), finite-domain enumeration,
divisibility, and the facts the passes use."""
