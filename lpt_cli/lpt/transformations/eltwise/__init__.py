"""Add, Multiply, Subtract: binary ops whose two dequantized inputs become one dequantization after the op."""
