"""Policies that play the lab's games: one batched interface, ``policy(obs, mask) -> actions``."""
