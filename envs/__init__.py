"""Game engines and environments of unolab: classic UNO (``envs.uno``, ``envs.uno_v0``)."""
