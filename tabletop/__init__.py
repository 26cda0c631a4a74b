"""Playing at a table: a person against the lab's agents (terminal and web page) and
Score Buddy, the scorekeeper for real-card UNO tables.

Every rule comes from the engines in :mod:`envs`; this package only decides who moves,
what a person may see, and how it is shown.
"""
