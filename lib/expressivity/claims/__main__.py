"""``python -m expressivity.claims``: print the README's claims table (markdown)."""

from expressivity.claims import markdown_table

print(markdown_table(), end="")
