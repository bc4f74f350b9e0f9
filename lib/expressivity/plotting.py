"""One figure style for the whole project: colour-blind-safe palette, labelled axes, PNG + PDF.

Figures are written deterministically: no timestamps in the PDF metadata, fixed DPI, so the same
tables give the same files. The PNG records the figure's titles (text chunk ``Title``), so a test
can read what a figure claims.

A title says what is plotted. Where it states a result (a rate, a verdict), the words come from
the claim's own measurement: ``expressivity.claims.verdict_lines`` of the stage's claims table,
never from a number the plot script computed on its own.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

#: Okabe & Ito (2008) colour-blind-safe palette.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")

STYLE = {
    "figure.figsize": (6.0, 4.0),
    "figure.dpi": 150,
    "savefig.dpi": 150,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.prop_cycle": matplotlib.cycler(color=PALETTE),
    "legend.frameon": False,
    "font.size": 10,
    "svg.hashsalt": "expressivity",
}


@contextmanager
def figure(nrows: int = 1, ncols: int = 1, **kwargs):
    """``with figure() as (fig, ax): ...`` in the project style; the figure is closed afterwards."""
    with plt.rc_context(STYLE):
        fig, ax = plt.subplots(nrows, ncols, **kwargs)
        try:
            yield fig, ax
        finally:
            plt.close(fig)


def titles(fig) -> list[str]:
    """The figure's title and every panel's title, as drawn."""
    found = [fig._suptitle.get_text()] if fig._suptitle is not None else []
    found += [ax.get_title(loc) for ax in fig.axes for loc in ("left", "center", "right")]
    return [text for text in found if text]


def _clear_of_title(fig, pad_px: float = 6.0) -> None:
    """Lower the panels until the figure's title (several lines of verdicts) clears them by
    ``pad_px``: ``tight_layout`` can leave a long title a few pixels over a tall figure's top
    panel."""
    if fig._suptitle is None or not fig.axes:
        return
    renderer = fig.canvas.get_renderer()
    overlap = (max(ax.get_tightbbox(renderer).y1 for ax in fig.axes) + pad_px
               - fig._suptitle.get_window_extent(renderer).y0)
    if overlap > 0:
        fig.subplots_adjust(top=fig.subplotpars.top - overlap / fig.bbox.height)


def save(fig, png: str | os.PathLike, pdf: str | os.PathLike | None = None) -> None:
    """Write ``fig`` as PNG (150 dpi, its titles in the text chunk ``Title``) and, when ``pdf``
    is given, as PDF without a creation date."""
    for path in (png, pdf):
        if path is not None:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    _clear_of_title(fig)
    fig.savefig(png, metadata={"Software": None, "Title": "\n".join(titles(fig))})
    if pdf is not None:
        fig.savefig(pdf, metadata={"CreationDate": None, "Producer": None, "Creator": None})


def log2_axis(ax, values, label: str = "n") -> None:
    """A base-2 logarithmic x axis with a tick at each of ``values`` (labelled as integers) and no
    minor ticks."""
    from matplotlib.ticker import FixedLocator, NullLocator

    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator(list(values)))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xticklabels([f"{v:g}" for v in values])
    ax.set_xlabel(label)
