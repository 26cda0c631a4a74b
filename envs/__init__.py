"""Game engines and environments of unolab: classic UNO (``envs.uno``, ``envs.uno_v0``) and
the team trick game (``envs.uno_tricks``, ``envs.uno_tricks_v0``).

Importing ``envs`` registers both games' environments by id (entry points by name: nothing
is built or compiled until one is made):

- Gymnasium: ``gymnasium.make("unolab/Uno-v0")`` is ``uno_v0.gym_env`` and
  ``gymnasium.make_vec("unolab/Uno-v0", num_envs=N)`` is ``uno_v0.vector_env`` (the trick
  game: ``unolab/UnoTricks-v0``); the opponent is ``heuristic`` unless given.
  ``import envs; gymnasium.register_envs(envs)`` says so to a linter.
- PettingZoo (>= 1.27): ``pettingzoo.make("aec", "unolab/uno-v0", num_players=4)`` is
  ``uno_v0.env`` (the trick game: ``unolab/uno_tricks-v0``).

Keyword arguments go through to the entry point.
"""


def _register_ids() -> None:
    """Every game's ids (``envs.games``: its env module, Gymnasium and PettingZoo ids)."""
    from gymnasium.envs.registration import register, registry

    from envs.games import GAMES

    for g in GAMES.values():
        if g.gym_id not in registry:
            register(
                g.gym_id,
                entry_point=f"{g.env_module}:gym_env",
                vector_entry_point=f"{g.env_module}:vector_env",
                kwargs={"opponent": g.default_opponent},
                disable_env_checker=True,  # checked by the tests (check_env); the checker wraps every step
            )
    try:
        import pettingzoo
    except ImportError:  # a dependency of the lab; an old PettingZoo has no registry
        return
    if not hasattr(pettingzoo, "register"):
        return
    for g in GAMES.values():
        if g.aec_id not in pettingzoo.aec_registry:
            pettingzoo.register("aec", g.aec_id, entry_point=f"{g.env_module}:env")


_register_ids()
