"""Click commands: thin shells over lpt_cli.ir, lpt_cli.lpt and lpt_cli.reports."""
