"""The user's own class from the command line and from Python: the three simulations on it, and
clear errors naming the offending member."""

import json

import pandas as pd
import pytest
from toolkit_langgen.closure import closure_dimension_bruteforce
from toolkit_langgen.generation import counting_class
from toolkit_langgen.user_class import UserClassError, parse_user_class

from toolkit.cli import main

# the counting class H_1 as DFA tables: C(H_1) = 5, every generator first permanently correct at 6
COUNTING_TABLES = {
    "kind": "dfa",
    "alphabet": "ab",
    "members": [
        {
            "start": 0,
            "accepting": [0, 1],
            "transitions": {"0": {"a": 1, "b": 0}, "1": {"a": 2, "b": 1}, "2": {"a": 2, "b": 2}},
        },
        {
            "start": 0,
            "accepting": [0, 1],
            "transitions": {"0": {"a": 0, "b": 1}, "1": {"a": 1, "b": 2}, "2": {"a": 2, "b": 2}},
        },
        {"start": 0, "accepting": [0], "transitions": {"0": {"a": 0, "b": 0}}},
    ],
}
# at most one a, no factor bb, a*b* ∪ b*a*: the first two intersect in the spec's C(DFA_3) certificate
# {ε, a, b, ab, ba, bab}; all three in {ε, a, b, ab, ba}
REGEXES = "regex: b*|b*ab* ; (a|ba)*b? ; a*b*|b*a*"


def _cli(args, tmp_path, name):
    out = tmp_path / f"{name}.csv"
    main(args + ["--out", str(out)])
    return pd.read_csv(out)


def test_user_class_from_the_cli_regexes_inline_and_dfas_from_a_file(tmp_path, capsys):
    path = tmp_path / "counting.json"
    path.write_text(json.dumps(COUNTING_TABLES, indent=1))
    H = parse_user_class(str(path)).languages
    assert [L.key() for L in H] == [L.key() for L in counting_class(1)]

    cd = _cli(
        ["run", "langgen.closure_dimension", "-p", "family=user", "-p", f"languages={path}"], tmp_path, "cd"
    )
    assert cd.loc[0, "closure_dimension"] == 5 and cd.loc[0, "status"] == "exact"
    for gen in ("closure", "km", "greedy"):
        race = _cli(
            [
                "run",
                "langgen.generator_race",
                "-p",
                "language_class=user",
                "-p",
                f"languages={path}",
                "-p",
                f"generator={gen}",
            ],
            tmp_path,
            f"race_{gen}",
        )
        assert (race.loc[0, "closure_dimension"], race.loc[0, "worst_first_correct"]) == (5, 6)
    wf = _cli(
        ["run", "langgen.witness_family", "-p", "family=user", "-p", f"languages={path}"], tmp_path, "wf"
    )
    assert wf.loc[0, "intersection_size"] == 5  # L_{a,1} ∩ L_{b,1} ∩ Σ* = {ε, a, b, ab, ba}

    cd = _cli(
        ["run", "langgen.closure_dimension", "-p", "family=user", "-p", f"languages={REGEXES}"],
        tmp_path,
        "cd2",
    )
    for gen in ("closure", "km", "greedy"):
        race = _cli(
            [
                "run",
                "langgen.generator_race",
                "-p",
                "language_class=user",
                "-p",
                f"languages={REGEXES}",
                "-p",
                f"generator={gen}",
            ],
            tmp_path,
            f"race2_{gen}",
        )
        assert race.loc[0, "worst_first_correct"] == 7
    wf = _cli(
        ["run", "langgen.witness_family", "-p", "family=user", "-p", f"languages={REGEXES}"], tmp_path, "wf2"
    )
    assert (cd.loc[0, "closure_dimension"], cd.loc[0, "status"], cd.loc[0, "witness"]) == (
        6,
        "exact",
        "ε a b ab ba bab",
    )
    assert closure_dimension_bruteforce(list(parse_user_class(REGEXES).languages)) == 6
    assert race.loc[0, "worst_first_correct"] == 7
    assert (wf.loc[0, "intersection_size"], wf.loc[0, "evidence"]) == (5, "exact: ε a b ab ba")
    capsys.readouterr()


def test_cli_refuses_a_bad_member_with_status_2_before_any_work(tmp_path, capsys):
    for args, message in [
        (["-p", "family=user", "-p", "languages=regex: a* ; ab"], "member 1 (regex 'ab') is finite"),
        (
            ["-p", "family=user", "-p", "languages=regex: a* ; (ab"],
            "member 1 (regex '(ab'): regex '(ab' is malformed",
        ),
        (
            ["-p", "family=user", "-p", "languages=regex[ab]: a* ; c*"],
            "member 1 (regex 'c*'): regex 'c*': unknown symbol",
        ),
        (["-p", "family=user"], "family='user' needs languages="),
        (["-p", "languages=regex: a*"], "languages is only read with family='user'"),
        (
            ["-p", "family=user", "-p", f"languages={tmp_path / 'missing.json'}"],
            "is neither a file nor a class",
        ),
    ]:
        with pytest.raises(SystemExit) as exc:
            main(["run", "langgen.closure_dimension", *args])
        assert exc.value.code == 2
        assert message in " ".join(capsys.readouterr().err.split())
    bad = tmp_path / "bad.json"
    bad.write_text('{"kind": "dfa",\n "members": [\n  {"start": 0 "accepting": []}]}')
    with pytest.raises(SystemExit) as exc:
        main(["run", "langgen.witness_family", "-p", "family=user", "-p", f"languages={bad}"])
    assert exc.value.code == 2 and "invalid JSON at line 3" in " ".join(capsys.readouterr().err.split())
    with pytest.raises(SystemExit):
        main(
            [
                "run",
                "langgen.generator_race",
                "-p",
                "language_class=user",
                "-p",
                "languages=cfg: S -> a S b | $",
            ]
        )
    assert "needs regular members (regex, dfa, nfa); member 0 (cfg" in " ".join(
        capsys.readouterr().err.split()
    )


def test_python_api_validation_names_the_member():
    with pytest.raises(UserClassError, match=r"member 2 \(dfa .*goes to '7', which is not a state"):
        parse_user_class(
            {
                "kind": "dfa",
                "alphabet": "ab",
                "members": [
                    COUNTING_TABLES["members"][0],
                    COUNTING_TABLES["members"][1],
                    {"start": 0, "accepting": [0], "transitions": {"0": {"a": 7}}},
                ],
            }
        )
    with pytest.raises(UserClassError, match="alphabet is empty"):
        parse_user_class({"kind": "regex", "alphabet": "", "members": ["a*"]})
    with pytest.raises(UserClassError, match=r"member 1 \(regex 'c\*'\).*unknown symbol"):
        parse_user_class({"alphabet": "ab", "members": ["a*", "c*"]})
    with pytest.raises(UserClassError, match="unknown key"):
        parse_user_class({"members": ["a*"], "alphabet": "ab", "extra": 1})
    with pytest.raises(UserClassError, match=r"member 0 \(nfa .*not a state"):
        parse_user_class(
            {
                "kind": "nfa",
                "alphabet": "ab",
                "members": [{"start": 0, "accepting": [1], "transitions": {"0": {"a": [0, 5]}}}],
            }
        )


def test_mixed_class_with_an_nfa_member_and_the_inferred_alphabet():
    uc = parse_user_class(
        {
            "members": [
                "a*b*",
                {
                    "kind": "nfa",
                    "start": "s",
                    "accepting": ["t"],
                    "transitions": {"s": {"a": ["s"], "b": ["s", "t"]}, "t": {"": ["s"]}},
                },  # ends in b, with an ε-move
            ]
        }
    )
    assert uc.alphabet == ("a", "b") and uc.kinds == ("regex", "nfa")
    from toolkit_langgen.languages import regex

    assert uc.languages[1] == regex("(a|b)*b")
    assert (uc.languages[0] & uc.languages[1]) == regex("a*b+")


def test_file_contents_are_inlined_so_the_store_keys_on_the_class(tmp_path):
    from toolkit_langgen.simulation import ClosureDimensionParams

    path = tmp_path / "c.json"
    path.write_text(json.dumps(COUNTING_TABLES))
    p1 = ClosureDimensionParams(family="user", languages=str(path))
    assert str(path) not in p1.languages and '"kind":"dfa"' in p1.languages
    path.write_text(json.dumps({**COUNTING_TABLES, "members": COUNTING_TABLES["members"][:2]}))
    assert ClosureDimensionParams(family="user", languages=str(path)).languages != p1.languages


def test_cfg_and_pattern_classes_give_bounded_length_answers():
    from toolkit_langgen.simulation import (
        ClosureDimensionParams,
        WitnessFamilyParams,
        closure_dimension_run,
        witness_family,
    )

    cfgs = "cfg: S -> a S b | $ ;; S -> a S | b S | $ ;; S -> a S a | b S b | a | b | $"
    row = witness_family(WitnessFamilyParams(family="user", languages=cfgs, max_length=8), 0).records[0]
    # a^n b^n ∩ Σ* ∩ palindromes = {ε}
    assert row["intersection_size"] == 1 and row["evidence"].startswith("bounded-length (<= 8)")
    row = closure_dimension_run(
        ClosureDimensionParams(family="user", languages=cfgs, max_length=8), 0
    ).records[0]
    assert row["status"] == "bounded-length evidence (<= 8)" and row["closure_dimension"] == 1
    pats = "pattern[ab]: x x ; a y b"
    row = witness_family(WitnessFamilyParams(family="user", languages=pats, max_length=8), 0).records[0]
    assert row["evidence"].endswith("[0, 0, 0, 0, 1, 0, 2, 0, 4]")  # the README's 1, 2, 4 at lengths 4, 6, 8
