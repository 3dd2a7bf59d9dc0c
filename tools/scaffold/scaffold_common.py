"""What the three generators of tools/scaffold/ share: the checkout they edit (--root), the
plan of files to create and change (checked whole before anything is written, so a refused
run leaves the tree as it was), and exit 2 with one clear sentence on bad input.

Standard library only; run with any Python 3.9+ (the tests use Debian's /usr/bin/python3).
"""
import argparse
import os
import sys

DEFAULT_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


class ScaffoldError(Exception):
    """Bad input or a tree the generator does not recognise: exit 2 with this message."""


def parser(prog, doc):
    """The generator's options; its module docstring is its --help."""
    p = argparse.ArgumentParser(prog=prog, description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--root", default=DEFAULT_ROOT,
                   help="the checkout to edit (default: the one this script is in)")
    p.add_argument("--dry-run", action="store_true", help="say what would be created and changed, write nothing")
    return p


def read(root, rel):
    path = os.path.join(root, rel)
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as e:
        raise ScaffoldError(f"cannot read {rel} under {root}: {e.strerror}") from None


class Plan:
    """Files to create (never over an existing one) and files to change, written together."""

    def __init__(self, root):
        self.root = os.path.abspath(root)
        self.steps = []  # (rel, text, created)

    def create(self, rel, text):
        if os.path.lexists(os.path.join(self.root, rel)):
            raise ScaffoldError(f"{rel} already exists; not overwriting it")
        self.steps.append((rel, text, True))

    def change(self, rel, text):
        self.steps.append((rel, text, False))

    def apply(self, dry_run=False, next_step=None):
        """Writes every step, saying each (`created X`, `changed X`), then what the author does next."""
        for rel, text, created in self.steps:
            path = os.path.join(self.root, rel)
            if not dry_run:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                # A created file must still be absent (another run may have raced this one).
                with open(path, "x" if created else "w", encoding="utf-8") as f:
                    f.write(text)
            verb = "create" if created else "change"
            print(f"would {verb} {rel}" if dry_run else f"{verb}d {rel}")
        if next_step and not dry_run:
            print(f"next: {next_step}")


def main_guard(prog, run):
    """Runs `run()`; a ScaffoldError is `prog: error: ...` on stderr and exit 2."""
    try:
        run()
    except ScaffoldError as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        sys.exit(2)


def one_line(value, default, option="--description"):
    """`value` (or `default` when the option was not given), refused unless one non-empty line."""
    text = default if value is None else value
    if "\n" in text or "\r" in text or not text.strip():
        raise ScaffoldError(f"{option} must be one non-empty line")
    return text


def check_root(root, needed):
    if not os.path.isdir(root):
        raise ScaffoldError(f"--root {root} is not a directory")
    for rel in needed:
        if not os.path.exists(os.path.join(root, rel)):
            raise ScaffoldError(f"{root} is not a qnnrules checkout: it has no {rel}")
