"""Per-layer precision reports: which layers LPT put in low precision, and why not the others."""
