"""The engine: config, the registry of transformations and their steps, the pipeline that runs them, the Transformation base class and the node order."""
