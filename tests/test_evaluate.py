"""Smoke test of the main job: evaluate.py through its command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_evaluate_runs_and_writes_json(tmp_path):
    out = tmp_path / "result.json"
    proc = subprocess.run(
        [
            sys.executable,
            "evaluate.py",
            "--players",
            "3",
            "--games",
            "300",
            "--batch",
            "64",
            "--json",
            str(out),
            "stacking=true",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "P2" in proc.stdout and "95% CI" in proc.stdout
    result = json.loads(out.read_text())
    assert result["games"] >= 300 and result["rules"]["stacking"] is True
    assert sum(seat["wins"] for seat in result["seats"]) == result["games"]
    for seat in result["seats"]:
        assert seat["ci_low"] <= seat["win_rate"] <= seat["ci_high"]


def test_evaluate_refuses_unknown_rules_option():
    proc = subprocess.run(
        [sys.executable, "evaluate.py", "--games", "10", "stackin=true"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2 and "unknown UnoRules option(s) stackin" in proc.stderr
