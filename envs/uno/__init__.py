"""Classic UNO (docs/uno.md): rules, batched engine, actions, observations, positions."""

from envs.core import IllegalActionError
from envs.uno.actions import ACTION_NAMES, ADDED_ACTIONS, NUM_ACTIONS, action_id, action_name
from envs.uno.engine import UnoEngine
from envs.uno.observation import ADDED_OBS_NAMES, OBS_NAMES, OBS_SIZE, decode, observation_bounds
from envs.uno.render import describe_turn, render_position
from envs.uno.rules import UnoRules

# The names every game package exposes (records, replays and tournaments use them).
Engine = UnoEngine
Rules = UnoRules

__all__ = [
    "ACTION_NAMES",
    "ADDED_ACTIONS",
    "ADDED_OBS_NAMES",
    "OBS_NAMES",
    "Engine",
    "Rules",
    "describe_turn",
    "render_position",
    "NUM_ACTIONS",
    "OBS_SIZE",
    "IllegalActionError",
    "UnoEngine",
    "UnoRules",
    "action_id",
    "action_name",
    "decode",
    "observation_bounds",
]
