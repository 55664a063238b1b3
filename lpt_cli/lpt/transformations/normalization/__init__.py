"""MVN and NormalizeL2: only the scale (or its sign) moves after an op that is not linear in its input."""
