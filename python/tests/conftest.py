"""pytest setup for chronoid's Python package.

--tap prints one TAP line per test ("ok N - nodeid", "not ok N - ...",
"ok N # SKIP reason") and the plan at the end, through pytest's terminal
writer, so that scripts/check.sh counts the cases as it counts every other
suite's.  CHRONOID_PY_EXPECT, when set, is the directory the module must
be imported from: a test run must not pass against a stale build found
elsewhere on sys.path.
"""
import os

import pytest


def pytest_addoption(parser):
    parser.addoption("--tap", action="store_true", help="also print TAP lines")


class TapReporter:
    def __init__(self, config):
        self.config = config
        self.n = 0

    def _line(self, text):
        tr = self.config.pluginmanager.get_plugin("terminalreporter")
        tr.ensure_newline()
        tr.write_line(text)

    @pytest.hookimpl(tryfirst=True)
    def pytest_report_teststatus(self, report, config):
        # No progress letters: a TAP line must start its line.
        if report.when == "call" or report.failed or report.skipped:
            return report.outcome, "", report.outcome.upper()
        return "", "", ""

    def pytest_runtest_logreport(self, report):
        # One line per test: its call phase, or the phase that failed or
        # skipped it first (setup), or a teardown failure after a pass.
        if report.when == "setup" and report.passed:
            return
        if report.when == "teardown" and not report.failed:
            return
        self.n += 1
        name = report.nodeid.replace("#", "")
        if report.skipped:
            reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else "skipped"
            self._line(f"ok {self.n} - {name} # SKIP {reason}")
        elif report.failed:
            self._line(f"not ok {self.n} - {name} ({report.when})")
        else:
            self._line(f"ok {self.n} - {name}")

    def pytest_sessionfinish(self, session):
        self._line(f"1..{self.n}")


def pytest_configure(config):
    if config.getoption("tap"):
        config.pluginmanager.register(TapReporter(config), "chronoid-tap")


@pytest.fixture(scope="session", autouse=True)
def _module_location():
    import chronoid

    want = os.environ.get("CHRONOID_PY_EXPECT")
    if want:
        got = os.path.realpath(os.path.dirname(chronoid._chronoid.__file__))
        assert got.startswith(os.path.realpath(want)), f"chronoid imported from {got}, not {want}"


@pytest.fixture(autouse=True)
def _own_claim_directory(tmp_path_factory, monkeypatch):
    """Each test claims in a directory of its own: node claims and their
    marks are host-wide (docs/node-claims.md), so a test that mints at a
    made-up time (next_at) would otherwise move the mark the next test's
    generator of the same number starts after."""
    monkeypatch.setenv("CHRONOID_CLAIM_DIR", str(tmp_path_factory.mktemp("claims") / "claims"))
