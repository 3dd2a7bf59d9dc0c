"""`python -m qnnrules_cli [rules] ARGS` in the qnnrules-cli wheel, which installs this file as
qnnrules_cli/__main__.py (packaging/cli/CliWheel.cmake): qnn-validate ARGS, or qnn-rules ARGS."""

from qnnrules_cli import main

main()
