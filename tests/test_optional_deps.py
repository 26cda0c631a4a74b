"""The default install never needs Ray: nothing outside the Ray backends imports it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHECK = """
import sys
import evaluate, train
import agents.learned, agents.ppo, agents.registry, envs.uno_v0, envs.uno_tricks_v0
import tournament.config, tournament.runner, tournament.schedule, tournament.stats, tournament.report

evaluate.main(["--no-files", "games=48", "batch=24"])
print("RAY", "ray" in sys.modules)
"""


def test_the_default_install_does_not_import_ray():
    proc = subprocess.run([sys.executable, "-c", CHECK], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().endswith("RAY False")


def test_the_ray_backend_says_how_to_install_ray():
    code = (
        "import sys; sys.modules['ray'] = None\n"  # as if not installed
        "import evaluate; evaluate.main(['--backend', 'ray', '--no-files', 'games=48'])"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "pip install -e '.[ray]'" in proc.stderr
