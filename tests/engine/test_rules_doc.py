"""docs/rules.md lists every option of the rules object with its real default."""

from __future__ import annotations

import json
import re

from engine.rules import Rules
from tests.conftest import ROOT


def test_the_options_table_matches_the_rules_object() -> None:
    page = (ROOT / "docs" / "rules.md").read_text()
    table = page.split("## Options\n", 1)[1].split("\n## ", 1)[0]
    rows = dict(re.findall(r"^\| `(\w+)` \| `([^`]+)` \|", table, re.M))
    defaults = Rules().to_dict()
    assert set(rows) == set(defaults) == set(Rules.__struct_fields__)
    for option, default in defaults.items():
        assert json.loads(rows[option]) == default, option
