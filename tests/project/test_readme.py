"""The README's claims table is generated from the registry and must not go stale."""

import importlib.util


def test_readme_claims_table_is_current(root):
    spec = importlib.util.spec_from_file_location("readme_claims", root / "tests/readme_claims.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    text = module.README.read_text()
    assert module.with_table(text) == text, "README.md's claims table is stale: run `make readme`"


def test_readme_names_the_two_commands(root):
    text = (root / "README.md").read_text()
    assert "\nmake\n" in text and "\nmake test\n" in text
