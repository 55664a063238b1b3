"""Test kit for the LPT reference cases: load (dsl), compare structure (compare), run (numerics)."""
