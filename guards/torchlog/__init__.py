"""Readers of what torch prints: TORCH_LOGS guard dumps, TORCH_TRACE files, printed export
programs, and checking torch calls against the guards read."""
