"""Guards at run time: compiled checkers (:mod:`.codegen`), the guarded cache, explanations of
failures and regions of accepted inputs."""
