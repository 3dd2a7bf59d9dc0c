"""`python -m qnnrules ARGS` runs qnn-validate with ARGS, and `python -m qnnrules rules ARGS` runs
qnn-rules: the console scripts' commands where the scripts' directory is not on PATH (a venv not
activated, `py -m` habits). Both replace this process with the package's executable, so the exit
code and output are the command's own."""

import sys


def main():
    try:
        import qnnrules_cli  # beside the package in an installed wheel
    except ImportError:
        sys.exit("python -m qnnrules runs the commands of an installed package (pip install .); "
                 "in a build tree they are build/tools/qnn-validate/qnn-validate and build/tools/qnn-rules/qnn-rules")
    if sys.argv[1:2] == ["rules"]:
        del sys.argv[1]
        qnnrules_cli.qnn_rules()
    else:
        qnnrules_cli.qnn_validate()


if __name__ == "__main__":
    main()
