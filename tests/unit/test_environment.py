"""environment.yml lists exactly the pinned packages of pyproject.toml."""

import tomllib

import yaml


def test_environment_yml_mirrors_pyproject_pins(root):
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    pins = set(project["dependencies"]) | {p for group in project["optional-dependencies"].values()
                                           for p in group}
    for pin in pins:
        assert "==" in pin, f"{pin} is not pinned exactly"
    env = yaml.safe_load((root / "environment.yml").read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict) and "pip" in d)
    assert {p for p in pip if "==" in p} == pins
    python = next(d for d in env["dependencies"] if isinstance(d, str) and d.startswith("python="))
    assert python.split("=")[1] >= project["requires-python"].lstrip(">=")
