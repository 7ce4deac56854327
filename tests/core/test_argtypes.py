"""The comma-list argparse type: bad items exit with status 2 naming the option, before any work."""

import argparse

import pytest

from toolkit.argtypes import comma_list, seeds


def _parser():
    parser = argparse.ArgumentParser(prog="study")
    parser.add_argument("--seeds", type=seeds, default=[0])
    parser.add_argument("--models", type=comma_list(choices=("a", "b")), default=["a"])
    parser.add_argument("--noise", type=comma_list(float, minimum=0.0), default=[0.0])
    return parser


def test_lists_parse_to_typed_values():
    args = _parser().parse_args(["--seeds", "3, 1,", "--models", "b,a", "--noise", "0,0.3"])
    assert args.seeds == [3, 1] and args.models == ["b", "a"] and args.noise == [0.0, 0.3]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--seeds", "0,x"], "'x' is not one of the comma-separated integers"),
        (["--seeds", "-1"], "below the minimum 0"),
        (["--seeds", "0,0"], "'0' is listed twice"),
        (["--seeds", ","], "expected comma-separated integers"),
        (["--models", "a,c"], "unknown value 'c'; allowed: a, b"),
        (["--noise", "0.3,-0.1"], "below the minimum 0.0"),
    ],
)
def test_bad_items_exit_2_naming_the_option(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        _parser().parse_args(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {argv[0]}" in err and message in err


@pytest.mark.parametrize("text, expected", [("0:3", [0, 1, 2]), (":2", [0, 1]), (" 5:7", [5, 6]), ("4", [4])])
def test_seeds_take_the_range_form_of_toolkit_run(text, expected):
    assert _parser().parse_args(["--seeds", text]).seeds == expected


@pytest.mark.parametrize(
    "text, message",
    [
        ("3:3", "selects no seeds"),
        ("-1:3", "seeds must be integers from 0"),
        ("a:3", "expects START:STOP"),
        ("0:3:1", "expects START:STOP"),
        ("0:2000000", "more than a sweep may have"),
    ],
)
def test_bad_seed_ranges_exit_2(text, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        _parser().parse_args([f"--seeds={text}"])  # "=": argparse would read "-1:3" as an option
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "argument --seeds" in err and message in err


def test_duplicates_can_be_allowed():
    assert comma_list(int, allow_duplicates=True)("1,1") == [1, 1]


def test_run_options_default_to_the_configured_store_and_serial(tmp_path, monkeypatch):
    from toolkit.argtypes import add_run_options, open_run_store

    monkeypatch.setenv("TOOLKIT_STORE", str(tmp_path / "configured.sqlite"))
    parser = argparse.ArgumentParser(prog="study")
    add_run_options(parser)
    args = parser.parse_args([])
    assert args.store is None and args.executor == "serial"
    assert open_run_store(args.store).path == tmp_path / "configured.sqlite"
    args = parser.parse_args(["--store", str(tmp_path / "mine.sqlite"), "--executor", "dask"])
    assert open_run_store(args.store).path == tmp_path / "mine.sqlite" and args.executor == "dask"


def test_run_options_refuse_an_executor_the_study_does_not_offer(capsys):
    from toolkit.argtypes import add_run_options

    parser = argparse.ArgumentParser(prog="study")
    add_run_options(parser, executors=("serial", "processes"))
    with pytest.raises(SystemExit) as exit_info:
        parser.parse_args(["--executor", "dask"])
    assert exit_info.value.code == 2
    assert "--executor" in capsys.readouterr().err
    with pytest.raises(ValueError, match="executors must be among"):
        add_run_options(argparse.ArgumentParser(), executors=("serial", "threads"))


def test_run_options_name_the_default_executor_once_with_a_defaults_formatter():
    from toolkit.argtypes import add_run_options

    parser = argparse.ArgumentParser(prog="study", formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    add_run_options(parser, executors=("serial", "processes"), default_executor="processes")
    text = " ".join(parser.format_help().split())
    assert text.count("(default: processes)") == 1
