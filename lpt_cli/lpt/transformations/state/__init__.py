"""Stateful models: a dequantization moved across a ReadValue/Assign variable."""
