"""Where the benches write: a --quick smoke run never replaces the committed figures, and a
bad --out is refused before any timing."""

from __future__ import annotations

import argparse

import pytest

from bench.engine_speed import ROOT, results_out


def test_a_quick_run_writes_only_where_out_says_and_a_bad_out_is_refused_first(tmp_path):
    parser = argparse.ArgumentParser()
    assert results_out(parser, None, True, "engine_speed.json") is None  # --quick: nothing written
    assert results_out(parser, None, False, "engine_speed.json") == ROOT / "bench" / "results" / "engine_speed.json"
    assert results_out(parser, tmp_path / "x.json", True, "engine_speed.json") == tmp_path / "x.json"
    for bad in (tmp_path, "/proc/x/y.json"):  # a folder, a folder that cannot be made
        with pytest.raises(SystemExit):
            results_out(parser, bad, False, "engine_speed.json")
