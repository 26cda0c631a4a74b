"""A fingerprint of the games the default rules deal and play: what a new rules option must
leave unchanged (``tests/data/default_games.json`` was written before the house rules)."""

from __future__ import annotations

import hashlib

import numpy as np

from envs.uno import ACTION_NAMES, ADDED_ACTIONS, ADDED_OBS_NAMES, OBS_NAMES, UnoEngine, UnoRules

CASES = [(2, 0), (3, 1), (4, 2), (7, 3)]  # (players, seed)
#: The layout the recording was made in: today's without the entries added since (the house
#: rules' new phase and actions, never set or legal under the default rules).
FIRST_OBS = np.array([i for i, name in enumerate(OBS_NAMES) if name not in ADDED_OBS_NAMES])
FIRST_ACTIONS = np.array([i for i, name in enumerate(ACTION_NAMES) if name not in ADDED_ACTIONS])


def fingerprint(players: int, seed: int, rules: UnoRules | None = None, steps: int = 400) -> str:
    """SHA-256 of every observation, mask, reward and end of 64 games under seeded random play,
    seen in the first layout (so the recording stays comparable when the layout grows)."""
    eng = UnoEngine(64, players, rules or UnoRules(), seed=seed)
    obs, mask = eng.reset()
    choices = np.random.default_rng(seed)
    digest = hashlib.sha256()
    for _ in range(steps):
        first_mask = mask[:, FIRST_ACTIONS]
        actions = FIRST_ACTIONS[np.argmax(np.where(first_mask, choices.random(first_mask.shape), -1.0), axis=1)]
        obs, mask, rewards, done = eng.step(actions)
        for part in (obs[:, FIRST_OBS], mask[:, FIRST_ACTIONS], rewards, done):
            digest.update(np.ascontiguousarray(part).tobytes())
    return digest.hexdigest()


if __name__ == "__main__":
    import json
    from pathlib import Path

    data = {f"{p}p_seed{s}": fingerprint(p, s) for p, s in CASES}
    Path(__file__).with_name("data").joinpath("default_games.json").write_text(json.dumps(data, indent=2) + "\n")
    print(data)
