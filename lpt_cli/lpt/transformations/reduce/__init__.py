"""ReduceMax/Min/Mean/Sum: the dequantization follows a reduction when its constants do not vary along a reduced axis."""
