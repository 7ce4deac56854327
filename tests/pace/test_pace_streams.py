"""Streams: the synthetic scenarios' planted changes, the LLM stream's semantics, the statsmodels series,
user score files."""

import numpy as np
import pytest
from toolkit_pace import streams as S


def test_synthetic_change_points_and_scales():
    s = S.synthetic("abrupt_variance", 4000, 0)
    assert s.change_points == (1500, 2500)
    x = s.scores
    assert 2.5 < x[1500:2500].std() / x[:1500].std() < 3.5
    assert S.synthetic("multi_block", 4000, 0).change_points == tuple(range(500, 4000, 500))
    assert S.synthetic("mean_jump", 4000, 0).change_points == (1500,)
    assert S.synthetic("computo", 500, 0).change_points == (250,)
    assert S.synthetic("exchangeable", 100, 0).change_points == ()
    np.testing.assert_array_equal(S.synthetic("drift", 300, 4).scores, S.synthetic("drift", 300, 4).scores)
    with pytest.raises(ValueError, match="scenario"):
        S.synthetic("nope", 10, 0)


def test_llm_scores_mean_a_false_claim_is_kept_iff_the_score_exceeds_q():
    s = S.llm_factuality(400, 3)
    conf, truth, off = s.extra["confidence"], s.extra["true"], s.extra["offsets"]
    rng = np.random.default_rng(0)
    q = rng.uniform(0.2, 0.95, 400)
    for t in range(400):
        c, z = conf[off[t] : off[t + 1]], truth[off[t] : off[t + 1]]
        assert bool(np.any((c > q[t]) & ~z)) == bool(s.scores[t] > q[t])
        assert s.side[t] == pytest.approx(c.mean())
    kept = S.retained_fraction(s, q[100:], 100)
    t = 150
    c = conf[off[t] : off[t + 1]]
    assert kept[t - 100] == pytest.approx(np.mean(c > q[t]))
    assert s.change_points == (100, 200, 300)


def test_statsmodels_series_give_rolling_ar_scores():
    pytest.importorskip("statsmodels")
    lengths = {name: S.real(name).scores.size for name in S.REAL}
    assert lengths["nile"] == 100 - 13 and lengths["inflation"] == 203 - 13 and lengths["co2"] == 2284 - 13
    assert all(np.isfinite(S.real(n).scores).all() and (S.real(n).scores >= 0).all() for n in S.REAL)


def test_rolling_ar_is_exact_on_an_ar_process():
    y = np.empty(80)
    y[:3] = [1.0, 2.0, 0.5]
    for t in range(3, 80):
        y[t] = 0.3 + 0.5 * y[t - 1] - 0.2 * y[t - 2] + 0.1 * y[t - 3]
    assert np.max(S.rolling_ar_scores(y)) < 1e-8


def test_read_scores_from_files(tmp_path):
    (tmp_path / "a.csv").write_text("time,resid\n0,1.5\n1,2.5\n\n2,0.5\n")
    np.testing.assert_array_equal(S.read_scores(tmp_path / "a.csv", "resid"), [1.5, 2.5, 0.5])
    (tmp_path / "one.csv").write_text("s\n1\n2\n")
    np.testing.assert_array_equal(S.read_scores(tmp_path / "one.csv"), [1.0, 2.0])
    np.save(tmp_path / "b.npy", np.array([3.0, 4.0]))
    np.testing.assert_array_equal(S.read_scores(tmp_path / "b.npy"), [3.0, 4.0])
    (tmp_path / "c.txt").write_text("1\n2\n")
    np.testing.assert_array_equal(S.read_scores(tmp_path / "c.txt"), [1.0, 2.0])


def test_read_scores_errors_name_file_and_line(tmp_path):
    (tmp_path / "bad.csv").write_text("resid\n1.0\noops\n")
    with pytest.raises(S.ScoreFileError, match=r"bad.csv, line 3: column 'resid' is 'oops'"):
        S.read_scores(tmp_path / "bad.csv", "resid")
    (tmp_path / "inf.txt").write_text("1\ninf\n")
    with pytest.raises(S.ScoreFileError, match=r"line 2.*not a finite"):
        S.read_scores(tmp_path / "inf.txt")
    with pytest.raises(S.ScoreFileError, match="no column 'x'"):
        S.read_scores(tmp_path / "bad.csv", "x")
    (tmp_path / "two.csv").write_text("a,b\n1,2\n")
    with pytest.raises(S.ScoreFileError, match="name one with column="):
        S.read_scores(tmp_path / "two.csv")
    np.save(tmp_path / "m.npy", np.ones((2, 2)))
    with pytest.raises(S.ScoreFileError, match="one-dimensional"):
        S.read_scores(tmp_path / "m.npy")
    with pytest.raises(S.ScoreFileError, match="does not exist"):
        S.read_scores(tmp_path / "missing.csv")
