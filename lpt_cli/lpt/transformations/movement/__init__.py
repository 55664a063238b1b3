"""Ops a dequantization moves across unchanged or with its constants re-shaped (pooling, activations, data movement, Concat)."""
