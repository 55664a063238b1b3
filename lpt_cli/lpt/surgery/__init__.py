"""Graph surgery shared by transformations: constant arithmetic, moving a dequantization across an op, rewriting its constants, local rewrites of DQ operations."""
