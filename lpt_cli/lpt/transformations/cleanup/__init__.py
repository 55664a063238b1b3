"""The cleanup step after the main transformations: fuse leftover Converts, Subtracts and Multiplies into FakeQuantizes or constants."""
