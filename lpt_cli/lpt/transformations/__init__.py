"""The LPT transformations, one package per family; each family's base class sits beside its members. `engine/registry.py` maps OpenVINO class names to modules here."""
