"""Per-layer precision reports: which layers LPT put in low precision, and why not the others."""

FORMATS = ("table", "json", "csv", "markdown", "junit")  # of `lpt report --format`, free of rich for the CLI
DIFF_FORMATS = ("table", "json", "markdown")  # of `lpt diff --format`, likewise
