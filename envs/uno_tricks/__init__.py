"""The team trick game (docs/tricks.md): rules, batched engine, actions, observations, positions."""

from envs.core import IllegalActionError
from envs.uno_tricks.actions import ACTION_NAMES, NUM_ACTIONS, action_id, action_name
from envs.uno_tricks.engine import TricksEngine
from envs.uno_tricks.observation import OBS_NAMES, OBS_SIZE, decode, observation_bounds
from envs.uno_tricks.render import describe_turn, render_position
from envs.uno_tricks.rules import TricksRules

# The names every game package exposes (records, replays, env wrappers and tournaments use them).
Engine = TricksEngine
Rules = TricksRules
#: Observation entries and actions added after the first layout (none yet; see envs.uno).
ADDED_OBS_NAMES: tuple[str, ...] = ()
ADDED_ACTIONS: tuple[str, ...] = ()

__all__ = [
    "ACTION_NAMES",
    "ADDED_ACTIONS",
    "ADDED_OBS_NAMES",
    "OBS_NAMES",
    "NUM_ACTIONS",
    "OBS_SIZE",
    "Engine",
    "IllegalActionError",
    "Rules",
    "TricksEngine",
    "TricksRules",
    "action_id",
    "action_name",
    "decode",
    "describe_turn",
    "observation_bounds",
    "render_position",
]
