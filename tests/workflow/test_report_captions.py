"""Every caption of the HTML report is valid reStructuredText (no warnings in the report)."""

import io
from pathlib import Path

import docutils.core
import pytest

ROOT = Path(__file__).resolve().parents[2]
CAPTIONS = sorted((ROOT / "workflow/report").rglob("*.rst"))


@pytest.mark.parametrize("caption", CAPTIONS, ids=[str(c.relative_to(ROOT)) for c in CAPTIONS])
def test_caption_is_valid_restructuredtext(caption):
    warnings = io.StringIO()
    docutils.core.publish_string(caption.read_text(), writer="null",
                                 settings_overrides={"warning_stream": warnings, "report_level": 2})
    assert warnings.getvalue() == "", warnings.getvalue()
