"""The race on a user class: the closure generator's shortlex enumeration resumes instead of restarting
(linear in the samples, not quadratic), with the same outputs; the CLI shows a class-input run and error
legibly."""

import pytest
from click.testing import CliRunner
from toolkit_langgen import generation as gen
from toolkit_langgen.dfa import DFA
from toolkit_langgen.user_class import parse_user_class

from toolkit.cli import cli, main

CLASS = "regex: b*ab*ab*ab* ; a*ba*ba*ba*ba* ; a(a|b)* ; (a|b)*b ; (a|b)* ; (a|b)*ab(a|b)*"


def _count_shortlex_words(monkeypatch) -> list[int]:
    count = [0]
    original = DFA.shortlex

    def counting(self):
        for w in original(self):
            count[0] += 1
            yield w

    monkeypatch.setattr(DFA, "shortlex", counting)
    return count


def test_closure_race_enumerates_linearly(monkeypatch):
    H = parse_user_class(CLASS).require_regular_infinite("test")
    horizon = 120
    stream = gen.shortlex_adversary(H, 4, horizon)  # Sigma*: the closure grows past the class's sets
    count = _count_shortlex_words(monkeypatch)
    res = gen.race(H, gen.closure_generator, stream, 4)
    assert len(res.outputs) == horizon
    assert count[0] <= 4 * horizon  # restarting from the empty word costs about horizon^2 / 2


def test_incremental_race_gives_the_stateless_outputs():
    H = parse_user_class(CLASS).require_regular_infinite("test")
    for target in range(len(H)):
        stream = gen.shortlex_adversary(H, target, 60)
        incremental = gen.race(H, gen.closure_generator, stream, target).outputs
        stateless = [gen.closure_generator(H, stream[: t + 1]) for t in range(len(stream))]
        assert incremental == stateless


def test_cli_table_keeps_a_class_column_short():
    languages = "regex: b*|b*ab* ; (a|ba)*b? ; a*b*|b*a*"
    out = CliRunner().invoke(
        cli, ["run", "langgen.closure_dimension", "-p", "family=user", "-p", f"languages={languages}"]
    )
    assert out.exit_code == 0, out.output
    assert "status" in out.output and "witness" in out.output  # not pushed away by the class's JSON
    assert '"members"' in out.output and '"kind":"regex"' not in out.output.replace(" ", "")  # cut on screen
    assert max(len(line) for line in out.output.splitlines()[:2]) < 400


def test_class_input_error_ends_with_the_reason(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["run", "langgen.closure_dimension", "-p", "family=user", "-p", "languages=regex: ab ; a*"])
    assert exit_.value.code == 2
    err = " ".join(capsys.readouterr().err.split())
    assert err.rstrip(".").endswith("is finite (got 'regex: ab ; a*')")
    assert "allowed: any str" not in err
