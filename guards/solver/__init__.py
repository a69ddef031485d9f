"""Z3 behind guards: translation to SMT, the bounded solver, proofs of implication and
redundancy, conflicts, and incremental checking."""
