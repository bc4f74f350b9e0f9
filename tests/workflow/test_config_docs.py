"""config/README.md is generated from the schema (`make config-docs`) and must not go stale."""

import config_docs
from config_schema import load_schema


def test_config_readme_is_current(root):
    page = root / "config/README.md"
    assert page.is_file(), "config/README.md is missing: run `make config-docs`"
    assert page.read_text() == config_docs.render(), "config/README.md is stale: run `make config-docs`"


def _leaves(node, path=()):
    for key, prop in node.get("properties", {}).items():
        if prop.get("type") == "object":
            yield from _leaves(prop, (*path, key))
        else:
            yield ".".join((*path, key)), prop


def test_every_key_is_described_once(root):
    """Every leaf key of the schema has a description and one row in the page."""
    schema = load_schema(root / "workflow/schemas/config.schema.yaml")
    text = config_docs.render()
    leaves = list(_leaves(schema))
    assert len(leaves) > 50
    for key, prop in leaves:
        assert prop.get("description"), f"{key} has no description in the schema"
        assert text.count(f"| `{key}` |") == 1, key
