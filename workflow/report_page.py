"""The HTML report's front page: the run's summary and its claims table, first on the screen.

Snakemake renders the front page from reStructuredText (``report:`` in the Snakefile) into a narrow
column beside the rule graph. ``front_page_text`` fills the template ``workflow/report/workflow.rst``
with the summary line and a raw-HTML table of every claim (kind, status, measured value against
the threshold with the metric, the note as a tooltip, statement, a link to the figure), failures
and claims not evaluated marked and listed first within their kind; a style block widens the column
and puts the rule graph below. Above the table, one folded section per paper (``PAPERS``) gathers
its claims across stages under its summary line and its reference.
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable

import pandas as pd

from expressivity.claims import OP_SYMBOLS, PAPERS, of_paper, paper_summary

#: The statuses in the order a reader needs them: what failed first.
STATUS_ORDER = ("fail", "not evaluated", "pass")

#: Widen Snakemake's front-page column (``prose max-w-lg``) for the table, put the rule graph below
#: it, and start at the top (the page is taller than the screen). Class names are Snakemake 9's.
STYLE = """<style>
.prose:has(.claims-page) { max-width: none; }
div.flex:has(> div > .prose .claims-page) { flex-direction: column; }
div.h-screen:has(.claims-page) { align-items: flex-start; justify-content: flex-start; }
.claims-page table.claims { border-collapse: collapse; width: 100%; font-size: 0.8rem; margin: 0; }
.claims-page table.claims th, .claims-page table.claims td {
  border-bottom: 1px solid #ddd; padding: 0.25rem 0.4rem; vertical-align: top; text-align: left; }
.claims-page table.claims th { background: #f3f3f3; }
.claims-page td.status { font-weight: bold; white-space: nowrap; }
.claims-page tr.fail td.status { color: #fff; background: #D55E00; }
.claims-page tr.not-evaluated td.status { color: #000; background: #F0E442; }
.claims-page tr.pass td.status { color: #009E73; }
.claims-page .small { color: #555; font-size: 0.72rem; }
.claims-page code { font-size: 0.72rem; }
.claims-page code::before, .claims-page code::after { content: none; }
.claims-page details { margin: 0.2rem 0; }
.claims-page details > summary { cursor: pointer; font-size: 0.85rem; }
</style>"""


def _measured(row) -> str:
    value = row["measured"]
    shown = "–" if isinstance(value, float) and math.isnan(value) else f"{value:.4g}"
    return f"{shown} {OP_SYMBOLS[row['op']]} {row['threshold']:g}"


def _figure_link(path: str) -> str:
    """A link that shows the figure inside the report (Snakemake's ``app``), or, where that fails,
    opens the file beside the report (``results/report.html`` -> ``../figures/...``)."""
    name = path.rsplit("/", 1)[-1].removesuffix(".png")
    target = html.escape(path, quote=True)
    show = ("app.setView({navbarMode: 'resultinfo', resultPath: this.dataset.figure, content: 'img', "
            "contentPath: results[this.dataset.figure].data_uri}); return false")
    return f'<a href="../{target}" data-figure="{target}" onclick="{show}">{html.escape(name)}</a>'


def ordered(table: pd.DataFrame, kinds: Iterable[str]) -> pd.DataFrame:
    """Claims by kind (in ``kinds`` order), then status (``STATUS_ORDER``), then registry order."""
    kinds = list(kinds)
    key = pd.DataFrame({
        "kind": table["kind"].map(lambda k: kinds.index(k) if k in kinds else len(kinds)),
        "status": table["status"].map(lambda s: STATUS_ORDER.index(s) if s in STATUS_ORDER else 0),
        "row": range(len(table)),
    }, index=table.index)
    return table.loc[key.sort_values(["kind", "status", "row"]).index]


def claims_table(table: pd.DataFrame, kinds: Iterable[str], mark: str = "data-claim") -> str:
    """One HTML table of the claims in ``table`` (rows of ``results/claims.csv``), each row marked
    with its id in the attribute ``mark``."""
    head = ("<tr><th>status</th><th>kind</th><th>claim</th><th>measured vs threshold</th>"
            "<th>statement</th><th>figure</th></tr>")
    rows = []
    for _, row in ordered(table, kinds).iterrows():
        esc = {k: html.escape(str(row[k])) for k in ("id", "kind", "status", "paper", "where",
                                                     "statement", "metric", "threshold_basis")}
        note = row.get("note")
        note = f' title="{html.escape(note, quote=True)}"' if isinstance(note, str) and note else ""
        rows.append(
            f'<tr class="{row["status"].replace(" ", "-")}" {mark}="{esc["id"]}">'
            f'<td class="status">{esc["status"]}</td><td>{esc["kind"]}</td>'
            f'<td><code>{esc["id"]}</code><br><span class="small">{esc["paper"]}, {esc["where"]}</span></td>'
            f'<td{note}>{html.escape(_measured(row))}<br><span class="small">{esc["metric"]} '
            f'(threshold: {esc["threshold_basis"]})</span></td>'
            f'<td>{esc["statement"]}</td><td>{_figure_link(str(row["figure"]))}</td></tr>')
    return f'<table class="claims">\n{head}\n' + "\n".join(rows) + "\n</table>"


def paper_section(table: pd.DataFrame, paper: str, kinds: Iterable[str]) -> str:
    """One paper's claims (``table``'s rows that name it), folded under its summary line, with its
    reference and the command that judges it alone."""
    ref = PAPERS[paper]
    rows = of_paper(table, paper)
    arxiv = f"https://arxiv.org/abs/{ref.arxiv}"
    return (f'<details data-paper="{paper}"><summary>{html.escape(paper_summary(table, paper))}'
            f"</summary>\n<p class=\"small\"><i>{html.escape(ref.title)}</i>, {html.escape(ref.venue)}; "
            f'<a href="{arxiv}">arXiv {ref.arxiv}</a>, <a href="{html.escape(ref.url, quote=True)}">'
            f"{html.escape(ref.url)}</a>; read: {html.escape(ref.read)}. Judged alone by "
            f"<code>make paper PAPER={paper}</code>.</p>\n"
            f'{claims_table(rows, kinds, mark="data-paper-claim")}\n</details>')


def front_page_text(template: str, summary: str, table: pd.DataFrame | None, kinds: Iterable[str],
                    configfiles: str) -> str:
    """``template`` (reStructuredText) with ``{{ summary }}``, ``{{ claims_table }}`` and
    ``{{ configfiles }}`` filled in; no table when the run has no claims table yet."""
    if table is None:
        block = ""
    else:
        papers = [paper_section(table, p, kinds) for p in PAPERS
                  if "papers" in table and len(of_paper(table, p))]
        sections = [
            *(["<h3>By paper</h3>", *papers] if papers else []),
            f"<h3>All {len(table)} claims of this run</h3>",
            claims_table(table, kinds),
        ]
        body = "\n".join([STYLE, '<div class="claims-page">', *sections, "</div>"])
        # raw HTML in reStructuredText, kept from Snakemake's Jinja pass over the page
        block = ".. raw:: html\n\n" + "\n".join(
            f"   {line}" for line in ["{% raw %}", *body.splitlines(), "{% endraw %}"])
    return (template.replace("{{ summary }}", summary).replace("{{ claims_table }}", block)
            .replace("{{ configfiles }}", configfiles))
