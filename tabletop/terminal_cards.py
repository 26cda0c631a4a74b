"""Cards in the terminal: each in its colour (wilds in magenta), for every game's board."""

from __future__ import annotations

from rich.text import Text

CARD_STYLES = {"R": "bold red", "Y": "bold yellow", "G": "bold green", "B": "bold blue", "W": "bold magenta"}


def card_text(name: str) -> Text:
    """A card in its colour (wilds in magenta)."""
    return Text(name, style=CARD_STYLES.get(name[0], ""))


def cards_text(names: list[str]) -> Text:
    text = Text()
    for i, name in enumerate(names):
        if i:
            text.append(" ")
        text.append_text(card_text(name))
    return text
