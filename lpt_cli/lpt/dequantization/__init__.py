"""The dequantization model: the Convert/Subtract/Multiply chain, FakeQuantize arithmetic, precisions and levels, and the markup attributes transformations read."""
