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


def test_the_network_speed_bench_times_both_shipped_uno_agents_against_their_plain_twins(capsys):
    """A --quick run writes nothing; the plain twin has the same layers and weights, so on
    views already in canonical colours it computes what the symmetric network does."""
    import torch

    from agents.learned import load_checkpoint, network_from
    from bench.network_speed import main, views, without_symmetry

    assert main(["--quick"]) == 0
    out = capsys.readouterr().out
    assert "2 players, 256 views" in out and "4 players, 256 views" in out and "nothing written" in out
    net = network_from(load_checkpoint(ROOT / "models" / "uno_4p_ppo.pt", "uno"))
    obs, mask = views(4, 64)
    canonical = obs.gather(-1, net.sym_obs_sources[net.relabelling(obs)])  # its own canonical order: no relabelling
    assert torch.equal(net.relabelling(canonical), torch.zeros(len(obs), dtype=torch.long))
    with torch.no_grad():
        torch.testing.assert_close(without_symmetry(net)(canonical, mask), net(canonical, mask))
