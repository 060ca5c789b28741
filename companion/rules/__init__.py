"""The game space: nodes and their names, move kinds and their tables, GRYBs, lines and shapes, actions.

Pure: imports nothing above it, and no I/O, clock or thread (the import contracts in pyproject.toml).
"""
