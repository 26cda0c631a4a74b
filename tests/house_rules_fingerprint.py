"""A fingerprint of the games the default rules deal and play: what a new rules option must
leave unchanged (``tests/data/default_games.json`` was written before the house rules)."""

from __future__ import annotations

import hashlib

import numpy as np

from envs.uno import UnoEngine, UnoRules

CASES = [(2, 0), (3, 1), (4, 2), (7, 3)]  # (players, seed)


def fingerprint(players: int, seed: int, rules: UnoRules | None = None, steps: int = 400) -> str:
    """SHA-256 of every observation, mask, reward and end of 64 games under seeded random play."""
    eng = UnoEngine(64, players, rules or UnoRules(), seed=seed)
    obs, mask = eng.reset()
    choices = np.random.default_rng(seed)
    digest = hashlib.sha256()
    for _ in range(steps):
        actions = np.argmax(np.where(mask, choices.random(mask.shape), -1.0), axis=1)
        obs, mask, rewards, done = eng.step(actions)
        for part in (obs, mask, rewards, done):
            digest.update(np.ascontiguousarray(part).tobytes())
    return digest.hexdigest()


if __name__ == "__main__":
    import json
    from pathlib import Path

    data = {f"{p}p_seed{s}": fingerprint(p, s) for p, s in CASES}
    Path(__file__).with_name("data").joinpath("default_games.json").write_text(json.dumps(data, indent=2) + "\n")
    print(data)
