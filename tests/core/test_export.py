"""The Markdown form of a table that study scripts print for results pages."""

import pandas as pd

from toolkit.export import markdown_table


def test_markdown_table_formats_floats_and_escapes_pipes():
    table = pd.DataFrame({"method": ["a|b", "c"], "accuracy": [0.81234, 0.5], "seeds": [5, 3]})
    assert markdown_table(table, ".2f") == (
        "| method | accuracy | seeds |\n|---|---|---|\n| a\\|b | 0.81 | 5 |\n| c | 0.50 | 3 |\n"
    )
