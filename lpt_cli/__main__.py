from lpt_cli.cli.main import main

main()
