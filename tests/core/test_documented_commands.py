"""Every ``toolkit ...`` command written in the README, a plugin's README or the docs parses against the real
command line: its subcommands and options exist and its values are of the allowed kinds (nothing runs)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import click
import pytest

from toolkit.cli import cli

ROOT = Path(__file__).parents[2]
PAGES = [
    ROOT / "README.md",
    *sorted(ROOT.glob("plugins/*/README.md")),
    *sorted(p for p in (ROOT / "docs").rglob("*.md") if "_build" not in p.parts),
]
# a command ends at a code span's end, a comment, a table cell, a pipe or a chained command
COMMAND = re.compile(r"(?<![\w./-])toolkit ((?:%s)\b[^`\n#|;&)]*)" % "|".join(sorted(cli.commands)))
_COMMAND_NAMES = {
    name for group in [cli, *cli.commands.values()] for name in [*getattr(group, "commands", {}), group.name]
}
WRAPPED_SPAN = re.compile(r"(?<!`)`[^`\n]+\n[^`\n]+`(?!`)")
PLACEHOLDER = re.compile(r"[<>\[\]{}…]|\.\.\.|\bNAME\b|\bFILE\b|\bKEY=VALUE\b")


def _documented_commands() -> list[tuple[str, str]]:
    found = {}
    for page in PAGES:
        # an inline code span wrapped onto the next line is one command: join it (offsets stay the same)
        text = WRAPPED_SPAN.sub(lambda m: m.group(0).replace("\n", " "), page.read_text(encoding="utf-8"))
        for match in COMMAND.finditer(text):
            command = match.group(1).strip().rstrip(".,:")
            if PLACEHOLDER.search(command) or command.endswith("\\"):
                continue  # a pattern for the reader to fill in, or a command continued on the next line
            if all(word in _COMMAND_NAMES for word in command.split()):
                continue  # the command named in prose ("`toolkit check` holds ..."), not a call
            found.setdefault(command, f"{page.relative_to(ROOT)}:{text.count(chr(10), 0, match.start()) + 1}")
    return sorted(found.items(), key=lambda item: item[1])


def _without_actions(command: click.Command, monkeypatch) -> None:
    monkeypatch.setattr(command, "callback", lambda *args, **kwargs: None)
    for sub in getattr(command, "commands", {}).values():
        _without_actions(sub, monkeypatch)


COMMANDS = _documented_commands()


def test_the_pages_document_commands():
    assert len(COMMANDS) >= 20  # the extraction still finds them


@pytest.mark.parametrize("text, where", COMMANDS, ids=[where for _, where in COMMANDS])
def test_a_documented_command_parses(text, where, monkeypatch):
    _without_actions(cli, monkeypatch)
    try:
        cli.main(shlex.split(text), prog_name="toolkit", standalone_mode=False)
    except click.UsageError as exc:
        pytest.fail(f"{where}: `toolkit {text}` does not parse: {exc.format_message()}")
