"""Claim checking with sympy: identities, inequalities under assumptions, limits, asymptotic orders.

Every claim gets a three-valued verdict:

* ``proved``: sympy established it symbolically;
* ``refuted``: a concrete counterexample was found *and confirmed exactly* (or a limit was computed
  to a definite different value);
* ``unknown``: neither; never reported as refuted.

A :class:`Cited` claim is a result transcribed from the literature: its verdict is ``unknown`` by
construction and summaries count it apart (``4 cited``).

Each symbolic verdict is paired with a numeric spot-check at random admissible points (high
precision, mpmath). When the two disagree, a :class:`~toolkit.errors.SpotCheckDisagreement` warning
is raised and the verdict's ``numeric.status`` is ``"disagree"``.

Symbols carry sympy assumptions (``positive=True``, ``integer=True``); ``domain`` narrows them to
ranges, ``{n: (1, None), x: (0, 1)}`` (``None``, ``sympy.oo`` or ``float("inf")`` = unbounded end,
finite ends included).

Each sympy attempt has a budget of CPU time, not wall-clock time (``SYMBOLIC_SECONDS``, or the
``TOOLKIT_SYMBOLIC_SECONDS`` variable), so that a verdict does not depend on how loaded the machine
is. An attempt that exhausts it counts as inconclusive; when the verdict is then ``unknown`` it is
marked ``timed_out`` and shown as ``unknown (timed out)``, which ``toolkit prove --strict`` reports
but never counts as a failure. ``proved`` and ``refuted`` never come from a timeout.
"""

from __future__ import annotations

import functools
import gc
import os
import random
import signal
import threading
import warnings
from collections.abc import Callable, Iterable, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any, Literal

import mpmath
import sympy
from sympy import oo

from toolkit.errors import SpotCheckDisagreement

Status = Literal["proved", "refuted", "unknown"]
STATUSES = ("proved", "refuted", "unknown")
SYMBOLIC_SECONDS = (
    10.0  # CPU seconds per sympy attempt (TOOLKIT_SYMBOLIC_SECONDS overrides); then inconclusive
)


def symbolic_seconds() -> float:
    """The CPU-time budget of one sympy attempt: ``TOOLKIT_SYMBOLIC_SECONDS`` or ``SYMBOLIC_SECONDS``."""
    raw = os.environ.get("TOOLKIT_SYMBOLIC_SECONDS", "")
    try:
        value = float(raw) if raw.strip() else SYMBOLIC_SECONDS
    except ValueError:
        raise ValueError(f"TOOLKIT_SYMBOLIC_SECONDS must be a number of seconds, got {raw!r}") from None
    return value if value > 0 else SYMBOLIC_SECONDS


class _Timeout(BaseException):
    """Raised by the CPU-time alarm; a BaseException so that sympy's own ``except Exception`` cannot swallow it."""


class _TimeoutCount(threading.local):
    count = 0


_timeouts = _TimeoutCount()


_REARM_SECONDS = 0.02  # CPU seconds before the alarm fires again if its exception was swallowed


def _inside_gc_callback(frame: Any) -> bool:
    """Whether ``frame`` runs inside one of ``gc.callbacks`` (they interrupt any allocation of the attempt)."""
    codes = {getattr(getattr(cb, "__func__", cb), "__code__", None) for cb in gc.callbacks}
    codes.discard(None)
    while frame is not None and codes:
        if frame.f_code in codes:
            return True
        frame = frame.f_back
    return False


@contextmanager
def _time_limit(seconds: float):
    """Abort a sympy attempt after ``seconds`` of this process's CPU time (main thread only; elsewhere no limit).

    CPU time (``ITIMER_VIRTUAL``), not wall-clock time: other processes sharing the machine do not
    make an attempt run out of time.
    """
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return

    def _raise(signum: int, frame: Any) -> None:
        # Re-arm first: the alarm must fire again after a gc callback it waits for, or after an
        # exception that landed where Python only reports it as unraisable.
        signal.setitimer(signal.ITIMER_VIRTUAL, _REARM_SECONDS)
        if _inside_gc_callback(frame):
            return  # raising here would leave the callback's owner (dask's GC diagnosis) half-updated
        raise _Timeout()

    old = signal.signal(signal.SIGVTALRM, _raise)
    signal.setitimer(signal.ITIMER_VIRTUAL, seconds)
    try:
        yield
    finally:
        while True:  # a re-armed alarm may fire while disarming: disarm again
            try:
                signal.setitimer(signal.ITIMER_VIRTUAL, 0)
                signal.signal(signal.SIGVTALRM, old)
                break
            except _Timeout:
                continue


def _attempt(fn: Callable[[], Any], seconds: float | None = None) -> Any:
    """Run a sympy call; None when it fails or runs out of CPU time (an inconclusive attempt)."""
    try:
        with _time_limit(symbolic_seconds() if seconds is None else seconds):
            return fn()
    except _Timeout:
        _timeouts.count += 1
        return None
    except Exception:  # sympy raises many types on hard inputs: all mean "no answer"
        return None


def _counting_timeouts(check: Callable[..., Verdict]) -> Callable[..., Verdict]:
    """Wrap a claim's ``check``: an ``unknown`` reached after a timed-out attempt is marked ``timed_out``."""

    @functools.wraps(check)
    def wrapper(self: Claim, *args: Any, **kwargs: Any) -> Verdict:
        outer, _timeouts.count = _timeouts.count, 0
        try:
            verdict = check(self, *args, **kwargs)
        finally:
            inner = _timeouts.count
            _timeouts.count = outer + inner
        if inner and verdict.status == "unknown" and not verdict.timed_out:
            verdict = replace(
                verdict,
                timed_out=True,
                detail=f"{inner} sympy attempt(s) ran out of their {symbolic_seconds():g} s of CPU time "
                f"(TOOLKIT_SYMBOLIC_SECONDS); {verdict.detail}",
            )
        return verdict

    wrapper._counts_timeouts = True  # type: ignore[attr-defined]
    return wrapper


@dataclass(frozen=True)
class NumericCheck:
    """The numeric spot-check paired with a symbolic verdict."""

    status: Literal["agree", "disagree", "skipped"]
    n_points: int
    detail: str = ""
    point: dict[str, Any] | None = None


@dataclass(frozen=True)
class Verdict:
    """The outcome of checking one claim."""

    claim: str
    kind: str
    status: Status
    method: str
    numeric: NumericCheck
    counterexample: dict[str, Any] | None = None
    detail: str = ""
    timed_out: bool = (
        False  # unknown because a sympy attempt ran out of CPU time (shown "unknown (timed out)")
    )

    @property
    def agrees(self) -> bool:
        """False when the numeric spot-check contradicts the symbolic verdict."""
        return self.numeric.status != "disagree"

    @property
    def shown(self) -> str:
        """The verdict as tables show it: ``proved``, ``refuted``, ``unknown`` or ``unknown (timed out)``."""
        return "unknown (timed out)" if self.timed_out else self.status

    def row(self) -> dict[str, Any]:
        return {
            "claim": self.claim,
            "kind": self.kind,
            "verdict": self.shown,
            "timed_out": self.timed_out,
            "method": self.method,
            "numeric": self.numeric.status,
            "n_points": self.numeric.n_points,
            "counterexample": _fmt_point(self.counterexample) if self.counterexample else "",
            "detail": self.detail or self.numeric.detail,
        }


def _fmt_point(point: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in point.items())


# -- admissible points ---------------------------------------------------------------------------


def _end(value: Any, sym: Any, which: str) -> Any:
    """One end of a domain interval: None when unbounded (None, +-oo, +-inf), else an exact sympy number."""
    if value is None:
        return None
    try:
        number = sympy.sympify(value)
    except (sympy.SympifyError, TypeError):
        raise ValueError(
            f"domain of {sym}: the {which} end must be a number, None or sympy.oo, got {value!r}"
        ) from None
    if number in (oo, -oo, sympy.zoo) or (number.is_number and number.is_infinite):
        return None
    if not number.is_number or number.is_real is False or number is sympy.nan:
        raise ValueError(
            f"domain of {sym}: the {which} end must be a real number, None or sympy.oo, got {value!r}"
        )
    return number


def normalize_domain(domain: Mapping[Any, Any] | None) -> dict[sympy.Symbol, tuple[Any, Any]]:
    """``{symbol: (low, high)}`` with unbounded ends as None (``sympy.oo``, ``float('inf')`` accepted).

    :raises ValueError: a key is not a sympy Symbol, an entry is not a pair, an end is not a real
        number, or ``low > high``.
    """
    out: dict[sympy.Symbol, tuple[Any, Any]] = {}
    for sym, bounds in (domain or {}).items():
        if not isinstance(sym, sympy.Symbol):
            raise ValueError(f"domain keys must be sympy Symbols, got {sym!r}")
        if not isinstance(bounds, (tuple, list)) or len(bounds) != 2:
            raise ValueError(f"domain of {sym} must be a pair (low, high), got {bounds!r}")
        low, high = _end(bounds[0], sym, "low"), _end(bounds[1], sym, "high")
        if low is not None and high is not None and bool(low > high):
            raise ValueError(f"domain of {sym}: low end {low} is above high end {high}")
        out[sym] = (low, high)
    return out


def domain_by_name(
    symbols: Iterable[sympy.Symbol], domain: Mapping[Any, Any]
) -> dict[sympy.Symbol, tuple[Any, Any]]:
    """``domain`` re-keyed onto ``symbols`` by name (a bound's symbols and its claims' may be distinct objects)."""
    by_name = {str(k): v for k, v in normalize_domain(domain).items()}
    return {s: by_name[s.name] for s in symbols if s.name in by_name}


def _bounds(
    sym: sympy.Symbol, domain: Mapping[sympy.Symbol, tuple[Any, Any]]
) -> tuple[float | None, float | None, bool]:
    low, high = domain.get(sym, (None, None))
    low, high = _end(low, sym, "low"), _end(high, sym, "high")
    low = None if low is None else float(low)
    high = None if high is None else float(high)
    if sym.is_positive:
        low = max(low, 0.0) if low is not None else 0.0
    elif sym.is_nonnegative:
        low = max(low, 0.0) if low is not None else 0.0
    if sym.is_negative or sym.is_nonpositive:
        high = min(high, 0.0) if high is not None else 0.0
    strict_zero = bool(sym.is_positive or sym.is_negative)
    return low, high, strict_zero


def _sample_value(
    sym: sympy.Symbol, domain: Mapping[sympy.Symbol, tuple[Any, Any]], rng: random.Random
) -> sympy.Expr:
    """One admissible value as an exact sympy number (rationals: exact confirmation stays exact)."""
    low, high, strict = _bounds(sym, domain)
    if sym.is_integer:
        lo = int(sympy.ceiling(low)) if low is not None else -1000
        hi = int(sympy.floor(high)) if high is not None else None
        if strict and low == 0.0:
            lo = max(lo, 1)
        if strict and high == 0.0:
            hi = -1 if hi is None else min(hi, -1)
        if hi is None:  # spread over scales: small values and large ones
            hi = lo + (10 ** rng.randint(1, 4))
        if hi < lo:
            raise ValueError(f"symbol {sym} has an empty integer domain [{low}, {high}]")
        return sympy.Integer(rng.randint(lo, hi))
    scale = 10 ** rng.uniform(-3, 4)
    if low is not None and high is not None:
        value = low + (high - low) * rng.random()
        if strict and value == 0:
            value = (high - low) * 1e-3
    elif low is not None:
        value = low + scale
    elif high is not None:
        value = high - scale
    else:
        value = scale * rng.choice((-1, 1))
    # the decimal's exact rational; nsimplify would search for a 'simple' rational (PSLQ), ~0.1 s a value
    return sympy.Rational(repr(round(value, 9)))


def sample_points(
    symbols: list[sympy.Symbol], domain: Mapping[sympy.Symbol, tuple[Any, Any]], n_samples: int, seed: int
) -> list[dict[sympy.Symbol, sympy.Expr]]:
    """``n_samples`` admissible points (exact sympy numbers) for ``symbols``, from assumptions and ``domain``."""
    rng = random.Random(seed)
    domain = normalize_domain(domain)
    return [{s: _sample_value(s, domain, rng) for s in symbols} for _ in range(n_samples)]


NUMERIC_SECONDS = 5.0  # per spot-check evaluation through sympy (the mpmath path is fast)


@lru_cache(maxsize=512)
def _mpmath_function(expr: sympy.Expr, symbols: tuple[sympy.Symbol, ...]) -> Callable[..., Any] | None:
    try:
        return sympy.lambdify(symbols, expr, modules="mpmath")
    except Exception:  # a function the mpmath printer does not know: evaluate through sympy instead
        return None


def _as_mpf(value: Any, dps: int) -> Any:
    number = sympy.sympify(value)
    if number.is_Integer:
        return mpmath.mpf(int(number))
    return mpmath.mpf(sympy.Float(number, dps))


def _real_or_none(value: Any) -> mpmath.mpf | None:
    if isinstance(value, mpmath.mpc):
        if abs(value.imag) > mpmath.mpf(10) ** -20 * (1 + abs(value.real)):
            return None
        value = value.real
    try:
        value = mpmath.mpf(value)
    except (TypeError, ValueError):
        return None
    return None if mpmath.isnan(value) else value


def _numeric(expr: sympy.Expr, point: Mapping[sympy.Symbol, sympy.Expr], dps: int = 40) -> mpmath.mpf | None:
    """High-precision value of ``expr`` at ``point``; None where undefined or not real.

    Evaluated with mpmath (so factorial(10**12) costs a gamma function, not an exact integer);
    expressions mpmath cannot take go through sympy under a time limit.
    """
    symbols = tuple(sorted(point, key=lambda s: s.name))
    function = _mpmath_function(expr, symbols)
    if function is not None:
        with mpmath.workdps(dps):
            try:
                return _real_or_none(function(*(_as_mpf(point[s], dps) for s in symbols)))
            except (ZeroDivisionError, ValueError, OverflowError, ArithmeticError):
                return None  # undefined at this point
            except Exception:
                pass  # the mpmath translation does not apply: fall back to sympy
    value = _attempt(lambda: expr.subs(point).evalf(dps), NUMERIC_SECONDS)
    if value is None or value.has(sympy.zoo, sympy.nan) or not value.is_number:
        return None
    try:
        if value.is_real is False and abs(sympy.im(value)) > 1e-20:
            return None
        with mpmath.workdps(dps):
            return (
                mpmath.mpf(str(sympy.re(value)))
                if value.is_finite is not False
                else (mpmath.inf if value == oo else -mpmath.inf if value == -oo else None)
            )
    except (TypeError, ValueError):
        return None


def point_as_dict(point: Mapping[sympy.Symbol, Any]) -> dict[str, Any]:
    """A point keyed by symbol name with plain int/float values (for tables and counterexamples)."""
    out = {}
    for s, v in point.items():
        out[str(s)] = (
            int(v) if getattr(v, "is_Integer", False) else float(v) if getattr(v, "is_number", False) else v
        )
    return out


def _warn(verdict: Verdict) -> Verdict:
    if verdict.numeric.status == "disagree":
        warnings.warn(
            f"claim {verdict.claim!r}: symbolic verdict {verdict.status!r} ({verdict.method}) disagrees with the "
            f"numeric spot-check: {verdict.numeric.detail}",
            SpotCheckDisagreement,
            stacklevel=3,
        )
    return verdict


# -- claims ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Claim:
    """Base of all claims. ``expect`` is the verdict the author expects (the harness checks it)."""

    name: str
    description: str = field(default="", kw_only=True)
    domain: Mapping[sympy.Symbol, tuple[Any, Any]] = field(default_factory=dict, kw_only=True)
    expect: Status = field(default="proved", kw_only=True)
    n_samples: int = field(default=48, kw_only=True)

    kind = "claim"

    def __post_init__(self) -> None:
        object.__setattr__(self, "domain", normalize_domain(self.domain))

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        check = cls.__dict__.get("check")
        if check is not None and not getattr(check, "_counts_timeouts", False):
            cls.check = _counting_timeouts(check)  # type: ignore[method-assign]

    def check(self, seed: int = 0) -> Verdict:  # pragma: no cover - abstract
        raise NotImplementedError

    def with_domain(self, domain: Mapping[Any, Any]) -> Claim:
        """This claim with ``domain`` (matched to its symbols by name) for the symbols it leaves unbounded."""
        if not domain:
            return self
        inherited = domain_by_name(self.symbols(), domain)
        merged = {**inherited, **self.domain}
        return self if merged == self.domain else replace(self, domain=merged)

    def symbols(self) -> list[sympy.Symbol]:
        """The free symbols of the claim's expressions (every sympy-valued field)."""
        from dataclasses import fields

        found: set[sympy.Symbol] = set()
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name != "domain" and isinstance(value, sympy.Basic):
                found |= value.free_symbols
        return sorted(found, key=lambda s: s.name)

    def statement(self) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def __str__(self) -> str:
        return f"{self.name}: {self.statement()}"


def _free(*exprs: Any) -> list[sympy.Symbol]:
    syms: set[sympy.Symbol] = set()
    for e in exprs:
        syms |= set(sympy.sympify(e).free_symbols)
    return sorted(syms, key=lambda s: s.name)


def _sign_cases(expr: sympy.Expr, limit: int = 3) -> list[sympy.Expr] | None:
    """``expr`` split by the sign of each real symbol of unknown sign (s = t, s = -t, s = 0; t > 0).

    Max, Abs, Heaviside and friends then simplify case by case. None when there is nothing to split.
    """
    unsigned = [
        s
        for s in _free(expr)
        if s.is_real and s.is_positive is None and s.is_negative is None and s.is_zero is None
    ][:limit]
    if not unsigned:
        return None
    cases = [expr]
    for s in unsigned:
        t = sympy.Symbol(f"_{s.name}_abs", positive=True, integer=bool(s.is_integer))
        cases = [c.subs(s, v) for c in cases for v in (t, -t, sympy.Integer(0))]
    return cases


def _is_zero(expr: sympy.Expr, split: bool = True) -> bool | None:
    """True when sympy shows ``expr == 0`` for all admissible values, else None (undecided)."""
    if expr == 0:
        return True
    # cheap, exact rewritings first: a polynomial identity in many symbols expands to 0 in
    # milliseconds, while simplify can spend its whole time budget on it
    for transform in (
        sympy.expand,
        sympy.cancel,
        sympy.simplify,
        sympy.factor,
        sympy.together,
        lambda e: sympy.simplify(sympy.expand_log(e, force=False)),
        lambda e: sympy.powsimp(sympy.powdenest(e)),
        sympy.trigsimp,
    ):
        reduced = _attempt(lambda: transform(expr))
        if reduced is not None and reduced == 0:
            return True
    if split:
        cases = _sign_cases(expr)
        if cases and all(_is_zero(c, split=False) for c in cases):
            return True
    return None


def _rel_violation(diff: sympy.Expr, strict: bool, point: Mapping, dps: int = 40) -> tuple[bool, Any]:
    value = _numeric(diff, point, dps)
    if value is None:
        return False, None
    tol = mpmath.mpf(10) ** (-(dps // 2))
    return ((value <= 0) if strict else (value < -tol)), value


@dataclass(frozen=True)
class Identity(Claim):
    """``lhs == rhs`` for every admissible value of the free symbols."""

    lhs: Any = None
    rhs: Any = None
    kind = "identity"

    def statement(self) -> str:
        return f"{self.lhs} = {self.rhs}"

    def check(self, seed: int = 0) -> Verdict:
        lhs, rhs = sympy.sympify(self.lhs), sympy.sympify(self.rhs)
        diff = lhs - rhs
        symbols = _free(lhs, rhs)
        points = sample_points(symbols, self.domain, self.n_samples, seed) if symbols else [{}]
        worst = None
        for p in points:
            a, b = _numeric(lhs, p), _numeric(rhs, p)
            if a is None or b is None:
                continue
            if abs(a - b) > mpmath.mpf(10) ** -15 * (1 + abs(a) + abs(b)):
                worst = p
                break
        checked = len(points)
        symbolic = _is_zero(diff)
        if symbolic:
            numeric = (
                NumericCheck(
                    "disagree",
                    checked,
                    f"lhs != rhs numerically at {_fmt_point(point_as_dict(worst))}",
                    point_as_dict(worst),
                )
                if worst is not None
                else NumericCheck("agree", checked, f"equal at {checked} points")
            )
            return _warn(Verdict(self.name, self.kind, "proved", "simplification", numeric))
        if worst is not None:
            exact = _attempt(lambda: sympy.simplify(diff.subs(worst)))
            if exact is not None and exact.is_number and exact != 0 and exact.is_zero is not True:
                return Verdict(
                    self.name,
                    self.kind,
                    "refuted",
                    "exact evaluation at a sampled point",
                    NumericCheck("agree", checked, f"lhs - rhs = {sympy.N(exact, 6)}"),
                    counterexample=point_as_dict(worst),
                    detail=f"lhs - rhs = {sympy.N(exact, 8)} there",
                )
        numeric = NumericCheck("agree", checked, f"no difference found at {checked} points")
        return Verdict(
            self.name,
            self.kind,
            "unknown",
            "not decided by simplification",
            numeric,
            detail="sympy could not simplify lhs - rhs to 0; no counterexample found",
        )


@dataclass(frozen=True)
class Inequality(Claim):
    """``lhs <relation> rhs`` for every admissible value; relation in ``<=``, ``<``, ``>=``, ``>``."""

    lhs: Any = None
    rhs: Any = None
    relation: Literal["<=", "<", ">=", ">"] = "<="
    kind = "inequality"

    def statement(self) -> str:
        return f"{self.lhs} {self.relation} {self.rhs}"

    def _gap(self) -> tuple[sympy.Expr, bool]:
        """(g, strict) such that the claim says g >= 0 (or g > 0 when strict)."""
        if self.relation not in ("<=", "<", ">=", ">"):
            raise ValueError(f"relation must be one of <=, <, >=, >; got {self.relation!r}")
        lhs, rhs = sympy.sympify(self.lhs), sympy.sympify(self.rhs)
        gap = rhs - lhs if self.relation in ("<=", "<") else lhs - rhs
        return gap, self.relation in ("<", ">")

    def _shifted(self, gap: sympy.Expr) -> sympy.Expr:
        """Rewrite half-bounded domains as x = low + t (t >= 0) so sympy's assumptions see them."""
        subs = {}
        for s in _free(gap):
            low, high = self.domain.get(s, (None, None))
            if low is not None and high is None and low != 0:
                t = sympy.Symbol(f"_{s.name}_shift", nonnegative=True, integer=bool(s.is_integer))
                subs[s] = sympy.nsimplify(low) + t
            elif high is not None and low is None:
                t = sympy.Symbol(f"_{s.name}_shift", nonnegative=True, integer=bool(s.is_integer))
                subs[s] = sympy.nsimplify(high) - t
        return gap.subs(subs) if subs else gap

    def _symbolic(self, gap: sympy.Expr, strict: bool) -> str | None:
        target = "is_positive" if strict else "is_nonnegative"
        shifted = self._shifted(gap)
        for transform in (
            lambda e: e,
            sympy.simplify,
            sympy.factor,
            sympy.expand,
            sympy.cancel,
            sympy.together,
        ):
            reduced = _attempt(lambda: transform(shifted))
            if reduced is not None and getattr(reduced, target, None) is True:
                return "sign from assumptions"
        # both sides positive: log is increasing, and logs of products/exponentials often decide
        small, big = (self.lhs, self.rhs) if self.relation in ("<=", "<") else (self.rhs, self.lhs)
        small, big = self._shifted(sympy.sympify(small)), self._shifted(sympy.sympify(big))
        if small.is_positive and big.is_positive:
            log_gap = _attempt(
                lambda: sympy.simplify(sympy.expand_log(sympy.log(big) - sympy.log(small), force=True))
            )
            if log_gap is not None and getattr(log_gap, target, None) is True:
                return "sign of the log-ratio"
        symbols = _free(gap)
        if len(symbols) == 1:
            (s,) = symbols
            low, high, _ = _bounds(s, self.domain)
            if not s.is_integer:
                interval = sympy.Interval(
                    sympy.nsimplify(low) if low is not None else -oo,
                    sympy.nsimplify(high) if high is not None else oo,
                    left_open=low is None or bool(s.is_positive and low == 0),
                    right_open=high is None,
                )
                from sympy.calculus.util import minimum

                lowest = _attempt(lambda: minimum(gap, s, interval))
                if lowest is not None and lowest.is_number and lowest.is_finite is not False:
                    if (lowest > 0) == sympy.true or (not strict and (lowest >= 0) == sympy.true):
                        return "minimum over the domain"
        return None

    def check(self, seed: int = 0) -> Verdict:
        gap, strict = self._gap()
        symbols = _free(gap)
        points = sample_points(symbols, self.domain, self.n_samples, seed) if symbols else [{}]
        violation = None
        for p in points:
            bad, value = _rel_violation(gap, strict, p)
            if bad:
                violation = (p, value)
                break
        method = self._symbolic(gap, strict)
        if method:
            numeric = (
                NumericCheck(
                    "disagree",
                    len(points),
                    f"violated at {_fmt_point(point_as_dict(violation[0]))} "
                    f"(gap {mpmath.nstr(violation[1], 6)})",
                    point_as_dict(violation[0]),
                )
                if violation
                else NumericCheck("agree", len(points), f"holds at {len(points)} points")
            )
            return _warn(Verdict(self.name, self.kind, "proved", method, numeric))
        if violation is not None:
            p, _ = violation
            exact = _attempt(lambda: sympy.nsimplify(sympy.simplify(gap.subs(p))))
            if (
                exact is not None
                and exact.is_number
                and ((exact < 0) == sympy.true or (strict and exact == 0))
            ):
                return Verdict(
                    self.name,
                    self.kind,
                    "refuted",
                    "exact evaluation at a sampled point",
                    NumericCheck("agree", len(points), "violated numerically"),
                    counterexample=point_as_dict(p),
                    detail=f"gap = {sympy.N(exact, 8)} there",
                )
        return Verdict(
            self.name,
            self.kind,
            "unknown",
            "not decided symbolically",
            NumericCheck("agree", len(points), f"no violation found at {len(points)} points"),
            detail="sympy could not decide the sign; no counterexample found",
        )


_GAMMA_LIKE = (sympy.factorial, sympy.gamma, sympy.binomial, sympy.RisingFactorial, sympy.FallingFactorial)


def _limit(expr: sympy.Expr, var: sympy.Symbol, point: Any, direction: str) -> Any:
    # sympy.limit spends seconds on ratios of factorials (n n!/(n+1)! takes 6.7 s of CPU) that
    # gammasimp turns into rational functions in milliseconds: try that equal form first.
    if expr.has(*_GAMMA_LIKE):
        simpler = _attempt(lambda: sympy.gammasimp(expr))
        if simpler is not None and simpler != expr:
            value = _attempt(lambda: sympy.limit(simpler, var, point, dir=direction))
            if _settled(value, var):
                return value
    return _attempt(lambda: sympy.limit(expr, var, point, dir=direction))


def _definite(value: Any) -> bool:
    return (
        value is not None
        and not value.has(sympy.Limit)
        and not isinstance(value, sympy.AccumBounds)
        and value is not sympy.nan
        and not value.free_symbols
        and value.is_number
    )


def _settled(value: Any, var: sympy.Symbol) -> bool:
    """A limit sympy actually computed: a number, or an expression in the other symbols only."""
    if value is None or value is sympy.nan or isinstance(value, sympy.AccumBounds) or value.has(sympy.Limit):
        return False
    if value.has(sympy.AccumBounds) or value.has(sympy.nan):
        return False
    return _definite(value) or (bool(value.free_symbols) and var not in value.free_symbols)


def _approach(point: Any, direction: str, k: int) -> sympy.Expr:
    if point == oo:
        return sympy.Integer(10) ** k
    if point == -oo:
        return -(sympy.Integer(10) ** k)
    step = sympy.Integer(10) ** -k
    return sympy.sympify(point) + (-step if direction == "-" else step)


def _fix_others(symbols: list[sympy.Symbol], var: sympy.Symbol, domain: Mapping, seed: int) -> dict:
    others = [s for s in symbols if s != var]
    return sample_points(others, domain, 1, seed)[0] if others else {}


@dataclass(frozen=True)
class Limit(Claim):
    """``lim_{var -> point} expr == value`` (direction ``"+"``, ``"-"`` or ``"+-"``)."""

    expr: Any = None
    var: Any = None
    point: Any = oo
    value: Any = 0
    direction: Literal["+", "-", "+-"] = "+"
    kind = "limit"

    def statement(self) -> str:
        return f"lim[{self.var} -> {self.point}{'' if self.point in (oo, -oo) else self.direction}] {self.expr} = {self.value}"

    def check(self, seed: int = 0) -> Verdict:
        expr, value = sympy.sympify(self.expr), sympy.sympify(self.value)
        direction = "-" if self.point == oo else ("+" if self.point == -oo else self.direction)
        computed = _limit(expr, self.var, self.point, direction)
        numeric = self._numeric(expr, value, seed)
        if _settled(computed, self.var):
            same = _is_zero(sympy.simplify(computed - value)) if value not in (oo, -oo) else computed == value
            if same:
                return _warn(Verdict(self.name, self.kind, "proved", "sympy.limit", numeric))
            if (
                computed in (oo, -oo)
                or value in (oo, -oo)
                or sympy.simplify(computed - value).is_zero is False
            ):
                flipped = NumericCheck(
                    "disagree"
                    if numeric.status == "agree" and numeric.n_points
                    else ("agree" if numeric.status == "disagree" else numeric.status),
                    numeric.n_points,
                    numeric.detail,
                    numeric.point,
                )
                return _warn(
                    Verdict(
                        self.name,
                        self.kind,
                        "refuted",
                        "sympy.limit",
                        flipped,
                        counterexample={"limit": str(computed)},
                        detail=f"the limit is {computed}, not {value}",
                    )
                )
        return Verdict(
            self.name,
            self.kind,
            "unknown",
            "sympy.limit gave no definite value",
            numeric,
            detail=f"sympy returned {computed}",
        )

    def _numeric(self, expr: sympy.Expr, value: sympy.Expr, seed: int) -> NumericCheck:
        others = _fix_others(_free(expr), self.var, self.domain, seed)
        dirs = ["+", "-"] if self.direction == "+-" and self.point not in (oo, -oo) else [self.direction]
        for d in dirs:
            xs = [_approach(self.point, d, k) for k in (6, 9, 12)]
            maybe_vals = [_numeric(expr, {**others, self.var: x}, 60) for x in xs]
            if any(v is None for v in maybe_vals):
                return NumericCheck("skipped", 0, "expression undefined near the point")
            vals = [v for v in maybe_vals if v is not None]
            if value in (oo, -oo):
                ok = (vals[-1] > 1e6) if value == oo else (vals[-1] < -1e6)
            else:
                target = _numeric(value, others, 60)
                ok = target is not None and abs(vals[-1] - target) <= 1e-3 * (1 + abs(target))
            if not ok:
                return NumericCheck(
                    "disagree",
                    len(xs),
                    f"at {self.var}={xs[-1]} (dir {d}) expr = {mpmath.nstr(vals[-1], 8)}",
                    point_as_dict({**others, self.var: xs[-1]}),
                )
        return NumericCheck("agree", 3 * len(dirs), "values approach the limit")


ORDERS = ("O", "o", "Theta", "Omega", "~")


@dataclass(frozen=True)
class Asymptotic(Claim):
    """``f = order(g)`` as ``var -> point`` (default +oo), decided by the limit of ``f/g``.

    ``order`` is ``"O"`` (|f/g| bounded), ``"o"`` (f/g -> 0), ``"Theta"`` (finite non-zero limit),
    ``"Omega"`` (f/g does not go to 0) or ``"~"`` (f/g -> 1). When f/g has no limit (it oscillates)
    the verdict is ``unknown``.
    """

    f: Any = None
    g: Any = None
    var: Any = None
    order: Literal["O", "o", "Theta", "Omega", "~"] = "O"
    point: Any = oo
    kind = "asymptotic"

    def statement(self) -> str:
        return f"{self.f} = {self.order}({self.g}) as {self.var} -> {self.point}"

    def _decide(self, ratio_limit: Any) -> bool:
        L = ratio_limit
        finite = L not in (oo, -oo, sympy.zoo)
        if self.order == "O":
            return finite
        if self.order == "o":
            return finite and L == 0
        if self.order == "Theta":
            return finite and L != 0
        if self.order == "Omega":
            return L != 0
        return finite and sympy.simplify(L - 1) == 0

    def check(self, seed: int = 0) -> Verdict:
        if self.order not in ORDERS:
            raise ValueError(f"order must be one of {', '.join(ORDERS)}, got {self.order!r}")
        f, g = sympy.sympify(self.f), sympy.sympify(self.g)
        ratio = sympy.simplify(f / g)
        direction = "-" if self.point == oo else "+"
        L = _limit(ratio, self.var, self.point, direction)
        if _settled(L, self.var) and (_definite(L) or L.is_finite):
            holds = self._decide(L)
            numeric = self._numeric(ratio, L, seed, holds)
            if holds:
                return _warn(Verdict(self.name, self.kind, "proved", f"lim f/g = {L}", numeric))
            return _warn(
                Verdict(
                    self.name,
                    self.kind,
                    "refuted",
                    f"lim f/g = {L}",
                    numeric,
                    counterexample={"lim f/g": str(L)},
                    detail=f"f/g -> {L}, which contradicts f = {self.order}(g)",
                )
            )
        return Verdict(
            self.name,
            self.kind,
            "unknown",
            "f/g has no limit sympy could find",
            NumericCheck("skipped", 0, f"sympy returned {L}"),
            detail=f"lim f/g: {L}",
        )

    def _numeric(self, ratio: sympy.Expr, L: Any, seed: int, holds: bool) -> NumericCheck:
        others = _fix_others(_free(ratio), self.var, self.domain, seed)
        xs = [_approach(self.point, "+" if self.point != oo else "-", k) for k in (4, 8, 16)]
        maybe_vals = [_numeric(ratio, {**others, self.var: x}, 60) for x in xs]
        if any(v is None for v in maybe_vals):
            return NumericCheck("skipped", 0, "ratio undefined at the test points")
        a = [abs(v) for v in maybe_vals if v is not None]
        if L in (oo, -oo):
            consistent = a[2] > a[1] > a[0] and a[2] > 1e3
        elif L == 0:
            consistent = a[2] < a[1] or a[2] < 1e-6
        else:
            target = abs(_numeric(sympy.sympify(L), others, 60) or 0)
            consistent = abs(a[2] - target) <= 0.1 * max(1, target)
        return NumericCheck(
            "agree" if consistent else "disagree",
            len(xs),
            f"|f/g| at {self.var}=1e4,1e8,1e16: " + ", ".join(mpmath.nstr(v, 5) for v in a),
        )


@dataclass(frozen=True)
class Cited(Claim):
    """A result transcribed from the literature with its source, *not* derived here.

    Its verdict is ``unknown`` by construction (method ``cited, not derived``; detail: the source), and
    so is its expected verdict: sympy is not asked to prove it, and summaries count it apart from the
    claims sympy could not decide. The numeric spot-check evaluates the transcribed ``bound`` at
    admissible points and requires a finite real value (and one ``>= 0`` when ``nonnegative``, the
    default, as for a regret or an absolute error), so a transcription that goes negative or undefined
    shows ``disagree``.
    """

    quantity: str = ""  # what is bounded, e.g. "SAReg(T, m)"
    bound: Any = None  # the transcribed right-hand side: quantity <= bound
    source: str = ""
    nonnegative: bool = field(default=True, kw_only=True)
    expect: Status = field(default="unknown", kw_only=True)

    kind = "cited"

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.source.strip():
            raise ValueError(f"cited claim {self.name!r}: source must name where the result is from")

    def statement(self) -> str:
        return f"{self.quantity} <= {self.bound}  [{self.source}]"

    def check(self, seed: int = 0) -> Verdict:
        expr = sympy.sympify(self.bound)
        symbols = sorted(expr.free_symbols, key=lambda s: s.name)
        points = sample_points(symbols, self.domain, self.n_samples, seed) if symbols else [{}]
        wanted = "a finite value >= 0" if self.nonnegative else "a finite real value"
        numeric = NumericCheck("agree", len(points), f"{wanted} at {len(points)} points")
        for point in points:
            value = _numeric(expr, point)
            if value is None or not mpmath.isfinite(value) or (self.nonnegative and value < 0):
                numeric = NumericCheck(
                    "disagree",
                    len(points),
                    f"the transcribed bound is {value} (not {wanted}) there",
                    point_as_dict(point),
                )
                break
        return _warn(
            Verdict(self.name, self.kind, "unknown", "cited, not derived", numeric, detail=self.source)
        )


# -- running many ------------------------------------------------------------------------------------


def prove(claims: Iterable[Claim], seed: int = 0) -> list[Verdict]:
    """Check each claim; returns the verdicts in order."""
    return [claim.check(seed=seed) for claim in claims]


def verdict_table(verdicts: Iterable[Verdict], owners: Iterable[str] | None = None) -> Any:
    """A pandas table of verdicts (one row per claim)."""
    import pandas as pd

    rows = [v.row() for v in verdicts]
    if owners is not None:
        for row, owner in zip(rows, owners):
            row["bound"] = owner
    table = pd.DataFrame(rows)
    if owners is not None and len(table):
        table = table[["bound", *[c for c in table.columns if c != "bound"]]]
    return table


__all__ = [
    "Asymptotic",
    "Cited",
    "Claim",
    "Identity",
    "Inequality",
    "Limit",
    "NumericCheck",
    "Verdict",
    "normalize_domain",
    "point_as_dict",
    "prove",
    "sample_points",
    "symbolic_seconds",
    "verdict_table",
]
