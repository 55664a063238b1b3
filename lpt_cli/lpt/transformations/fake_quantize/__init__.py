"""FakeQuantize decomposition into an integer FQ + dequantization, fusing a dequantization back into an FQ, folding FQs on constants."""
