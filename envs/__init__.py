"""Game engines and environments of unolab: classic UNO (``envs.uno``, ``envs.uno_v0``) and
the team trick game (``envs.uno_tricks``, ``envs.uno_tricks_v0``).

Importing ``envs`` registers the Gymnasium ids (entry points by name: nothing is built or
compiled until ``make``): ``gymnasium.make("unolab/Uno-v0")`` is ``uno_v0.gym_env`` and
``gymnasium.make_vec("unolab/Uno-v0", num_envs=N)`` is ``uno_v0.vector_env`` (the trick game:
``unolab/UnoTricks-v0``); keyword arguments go through, the opponent is ``heuristic`` unless
given. ``import envs; gymnasium.register_envs(envs)`` says so to a linter.
"""

GYMNASIUM_IDS = {"unolab/Uno-v0": "envs.uno_v0", "unolab/UnoTricks-v0": "envs.uno_tricks_v0"}


def _register_gymnasium_ids() -> None:
    from gymnasium.envs.registration import register, registry

    for env_id, module in GYMNASIUM_IDS.items():
        if env_id not in registry:
            register(
                env_id,
                entry_point=f"{module}:gym_env",
                vector_entry_point=f"{module}:vector_env",
                kwargs={"opponent": "heuristic"},
                disable_env_checker=True,  # checked by the tests (check_env); the checker wraps every step
            )


_register_gymnasium_ids()
