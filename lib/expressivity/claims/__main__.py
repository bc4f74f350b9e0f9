"""``python -m expressivity.claims``: print the README's claims table (markdown).
``python -m expressivity.claims paper KEY``: check that KEY is a paper's key and say what its claims
are (``make paper`` asks before it starts); an unknown key exits with status 2, naming the keys."""

import sys
from collections import Counter

from expressivity.claims import PAPERS, markdown_table, paper_claims


def main(argv: list[str]) -> int:
    if not argv:
        print(markdown_table(), end="")
        return 0
    if argv[0] != "paper" or len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    if argv[1] not in PAPERS:
        print(f"PAPER={argv[1]!r} is no paper's key; PAPER is one of: "
              + "; ".join(f"{key} ({p.cite})" for key, p in PAPERS.items()), file=sys.stderr)
        return 2
    claims = paper_claims(argv[1])
    stages = Counter(c.stage for c in claims)
    print(f"{PAPERS[argv[1]].cite}: {len(claims)} claims, in "
          + ", ".join(f"{stage} ({n})" for stage, n in stages.items()))
    return 0


sys.exit(main(sys.argv[1:]))
