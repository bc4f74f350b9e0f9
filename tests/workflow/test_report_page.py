"""The report's front page (workflow/report_page.py): every claim in one table, what failed first
within its kind, one section per paper, text escaped, the raw HTML kept from Snakemake's Jinja
pass."""

import math

import pandas as pd

from report_page import claims_table, front_page_text


def claims(*rows):
    base = {"paper": "P & Q", "papers": "kajitsuka2024", "where": "Thm 1", "statement": "x < y",
            "metric": "m", "op": "<=", "threshold": 1.0, "threshold_basis": "mathematics", "note": "",
            "measured": 0.5}
    return pd.DataFrame([{**base, "figure": f"figures/s/{r[0]}.png", "id": f"s.{r[0]}", "kind": r[1],
                          "status": r[2]} for r in rows])


def test_failures_and_undecided_come_first_within_each_kind():
    table = claims(("a", "check", "pass"), ("b", "finding", "pass"), ("c", "finding", "not evaluated"),
                   ("d", "finding", "fail"), ("e", "check", "fail"))
    html = claims_table(table, ("finding", "check"))
    order = [html.index(f'data-claim="s.{name}"') for name in "dcbea"]
    assert order == sorted(order)
    assert '<tr class="not-evaluated"' in html and '<tr class="fail"' in html


def test_text_is_escaped_and_undecided_values_shown_as_such():
    table = claims(("a", "finding", "not evaluated")).assign(measured=math.nan)
    html = claims_table(table, ("finding",))
    assert "x &lt; y" in html and "P &amp; Q" in html and "– ≤ 1" in html


def test_the_table_is_raw_html_outside_jinja():
    page = front_page_text("{{ summary }}\n\n{{ claims_table }}\n\n{{ configfiles }}", "S.",
                           claims(("a", "finding", "pass")), ("finding",), "Run with c")
    assert page.startswith("S.\n\n.. raw:: html\n\n   {% raw %}")
    assert page.rstrip().endswith("{% endraw %}\n\nRun with c")
    assert all(line.startswith("   ") for line in page.split(".. raw:: html\n\n")[1].split("\n\nRun")[0]
               .splitlines())
    assert "{{ claims_table }}" not in front_page_text("{{ claims_table }}", "S.", None, (), "")


def test_each_paper_gathers_its_claims_across_stages():
    table = claims(("a", "finding", "fail"), ("b", "check", "pass"), ("c", "check", "pass"))
    table["papers"] = ["kajitsuka2024", "yun2020a kajitsuka2024", "yun2020a"]
    table.loc[2, "id"] = "t.c"  # another stage
    page = front_page_text("{{ claims_table }}", "", table, ("finding", "check"), "")
    sections = {part.split('"', 1)[0]: part for part in page.split('<details data-paper="')[1:]}
    assert set(sections) == {"kajitsuka2024", "yun2020a"}  # papers without claims have no section
    for paper, ids in (("kajitsuka2024", ["s.a", "s.b"]), ("yun2020a", ["s.b", "t.c"])):
        section = sections[paper].split("</details>")[0]
        assert [i for i in ("s.a", "s.b", "t.c") if f'data-paper-claim="{i}"' in section] == ids
        assert f"make paper PAPER={paper}" in section
    assert "Kajitsuka &amp; Sato 2024 (2 claims): Findings: 0/1 passed, 1 failed" in page
    assert page.index("By paper") < page.index("All 3 claims")
    assert page.count('data-claim="') == 3  # the table of all claims holds each once
