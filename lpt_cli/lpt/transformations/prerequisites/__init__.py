"""Step 1 (prerequisites): pull Reshape/Transpose through a weights dequantization, fuse linear op sequences."""
