# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""What the export tests compare `iopsample export` with, written from the
documented column rules (docs/data-model.md, "Exporting"), not from the C.

flatten(row): a source row's numbers under their column names (an array's
elements as FIELD.K, an object's members as FIELD.KEY, recursively).
read_csv/read_jsonl: a table as docs/data-model.md says to load it with
pandas (Debian's, /usr/bin/python3).
"""
import pandas as pd

from epi import expect

ENVELOPE = {"episode", "source", "available_in_deployment", "seq", "t_mono_ns", "t_wall_ns",
            "interval_ns", "final", "labels"}


def flatten(row):
    out = {}

    def walk(name, v):
        if isinstance(v, list):
            for i, x in enumerate(v):
                walk("%s.%d" % (name, i), x)
        elif isinstance(v, dict):
            for k, x in v.items():
                walk("%s.%s" % (name, k), x)
        else:
            out[name] = v

    for k, v in row.items():
        if k not in ENVELOPE:
            walk(k, v)
    return out


def text_columns(columns):
    """The columns docs/data-model.md says to read as strings."""
    return {c: "string" for c in columns if c == "episode" or c.startswith("label.")}


def read_csv(path):
    head = pd.read_csv(path, nrows=0).columns
    return pd.read_csv(path, dtype=text_columns(head), keep_default_na=False, na_values=[""])


def read_jsonl(path):
    df = pd.read_json(path, lines=True, dtype=False, convert_dates=False)
    return df.astype(text_columns(df.columns))


def columns_of(path):
    with open(path) as f:
        return f.readline().rstrip("\n").split(",")


def cells(df, episode):
    return df[df["episode"] == episode].reset_index(drop=True)


def column_sum(df, column):
    """A column's sum as an exact integer (pandas keeps a column with empty
    cells as float64, exact below 2^53)."""
    s = df[column].dropna()
    expect(all(float(v).is_integer() for v in s), column + ": a count that is not an integer")
    return sum(int(v) for v in s)


def schema_rules(schemas):
    """{(field, rule)} for every field the schemas in the folder annotate:
    "x-gauge": true is max, "x-cell" its rule; the recipes list the same."""
    import glob
    import json
    found = set()

    def walk(node, key=None):
        if isinstance(node, dict):
            if node.get("x-gauge") is True:
                found.add((key, "max"))
            if "x-cell" in node:
                found.add((key, node["x-cell"]))
            for k, v in node.items():
                walk(v, k)
        elif isinstance(node, list):
            for v in node:
                walk(v)
    for path in glob.glob(schemas + "/*.schema.json"):
        with open(path) as f:
            walk(json.load(f))
    return found
