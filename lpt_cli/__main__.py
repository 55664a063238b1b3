from lpt_cli.cli.main import run

run()
