# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Rows to a pandas frame: nested objects flattened to dotted columns as
`iopsample export` names them (by_syscall.read.bytes, by_device.vda.reads),
arrays (the histograms) kept whole, one column of lists.

Every row of a source's file has the same keys (CONTRACT §5), so the first
row gives the columns and one compiled function per source takes each row
apart: a row that lacks one of them is a damaged file, reported as such,
unless the schema says the object it lacks it in has members that come and
go (`"*varying"` in the dtypes' tree: net's by_mount), where the columns
are every row's and a row without one holds null.
Each column's dtype is the schema's (`iopsample schema --dialect pandas`),
not the values': a count null in every row is still a count.
pandas and numpy are imported when a frame is asked for: rows need neither."""
from .errors import CorruptEpisodeError


def columns_of(row, prefix=()):
    """The paths to row's leaves, depth first in the row's own key order."""
    out = []
    for key, value in row.items():
        path = prefix + (key,)
        if isinstance(value, dict) and value:
            out.extend(columns_of(value, path))
        else:
            out.append(path)
    return out


def _extractor(paths):
    """A function that returns a row's leaves as a tuple, in paths' order."""
    getters = ", ".join("r" + "".join("[%r]" % k for k in path) for path in paths)
    return eval("lambda r: (%s,)" % getters)  # the keys are repr()'d: data, never code


_NONE = type(None)


def dtype_at(tree, path):
    """The dtype the schema gives the column at path (a tuple of keys), from
    `iopsample schema --dialect pandas`'s tree: a member's own, or a map's
    entries' ("*"); None where the schema says nothing."""
    node = tree
    for key in path:
        if not isinstance(node, dict):
            return None
        node = node.get(key, node.get("*"))
    return node if isinstance(node, str) else None


def _typed(values, dtype=None):
    """A column of values in the schema's dtype (dtype_at): int64, or the
    nullable Int64 where the schema allows null, whether or not a row is
    null (counts stay exact, and a column's dtype is the same whichever
    backend or host wrote it); float64; bool or boolean; string. Without
    one, the values' own: lists and mixed values as objects."""
    import numpy as np
    import pandas as pd

    kinds = set(map(type, values))
    nulls = _NONE in kinds
    kinds.discard(_NONE)
    if dtype in ("int64", "Int64") and kinds <= {int}:
        return pd.array(values, dtype="Int64") if nulls or dtype == "Int64" else np.array(values, dtype=np.int64)
    if dtype == "float64" and kinds <= {int, float}:
        return np.array([np.nan if v is None else v for v in values], dtype=np.float64)
    if dtype in ("bool", "boolean") and kinds <= {bool}:
        return pd.array(values, dtype="boolean") if nulls or dtype == "boolean" else np.array(values, dtype=bool)
    if dtype == "string" and kinds <= {str}:
        return pd.array(values, dtype="string")
    if kinds == {int}:
        return pd.array(values, dtype="Int64") if nulls else np.array(values, dtype=np.int64)
    if kinds and kinds <= {int, float}:
        return np.array([np.nan if v is None else v for v in values] if nulls else values, dtype=np.float64)
    if kinds == {bool}:
        return pd.array(values, dtype="boolean") if nulls else np.array(values, dtype=bool)
    if kinds == {str}:
        return pd.array(values, dtype="string")
    return np.array(values, dtype=object) if kinds != {list} else _object_column(values)


def _object_column(values):
    import numpy as np

    out = np.empty(len(values), dtype=object)
    out[:] = values  # a list each, not a 2-D array
    return out


def column_name(path):
    """A flattened row's column name: the dotted path, as export names its
    columns, and a label as export's grid names it (label.<key>, not the
    row's labels.<key>), so that frames and grids join."""
    if len(path) == 2 and path[0] == "labels":
        return "label." + path[1]
    return ".".join(path)


def frame(rows, path, schema_tree=None):
    """A DataFrame of rows (dicts, one per interval) indexed by t_mono_ns.
    schema_tree: a callable that returns `iopsample schema --dialect
    pandas`'s tree of the source's dtypes (dtype_at)."""
    try:
        import numpy as np
        import pandas as pd
    except ImportError as e:
        raise ImportError("iopsample's frames need pandas (%s): apt install python3-pandas, or "
                          "pip install 'iopsample[frames]'; rows() needs nothing" % e) from None

    if not rows:
        return pd.DataFrame(index=pd.Index([], dtype=np.int64, name="t_mono_ns"))
    tree = schema_tree() if schema_tree is not None else None
    paths = columns_of(rows[0])
    got = _varying_records(rows, tree) if _has_varying(tree) else None
    if got is not None:
        paths, records = got
    else:
        try:
            records = list(map(_extractor(paths), rows))
        except (KeyError, TypeError) as e:
            bad = next(i for i, r in enumerate(rows) if not _has_all(r, paths))
            raise CorruptEpisodeError("%s: row %d lacks %s, which the first row has: rows of one file "
                                      "must have the same keys" % (path, bad + 1, e)) from None
    data = {}
    for p, values in zip(paths, zip(*records)):
        data[column_name(p)] = _typed(list(values), dtype_at(tree, p) if tree else None)
    index = pd.Index(data.pop("t_mono_ns"), name="t_mono_ns")
    return pd.DataFrame(data, index=index, copy=False)


def _has_varying(tree):
    """Whether the dtypes' tree has an object whose members come and go."""
    return isinstance(tree, dict) and (bool(tree.get("*varying")) or any(map(_has_varying, tree.values())))


def _varying(tree, path):
    """Whether path lies in an object whose members come and go."""
    node = tree
    for key in path:
        if not isinstance(node, dict):
            return False
        if node.get("*varying"):
            return True
        node = node.get(key, node.get("*"))
    return False


def _lookup(row, path):
    v = row
    for k in path:
        v = v[k]
    return v


def _varying_records(rows, tree):
    """(paths, records) of rows whose varying objects' members may differ:
    every row's columns, in the order first seen, null where a row lacks
    one; None when a row lacks a column outside such an object (damaged:
    frame() says which)."""
    seen = {}
    for r in rows:
        for p in columns_of(r):
            seen.setdefault(p, None)
    # an empty object is a column of its own only where no row has members
    paths = [p for p in seen if not any(len(q) > len(p) and q[:len(p)] == p for q in seen)]
    records = []
    for r in rows:
        rec = []
        for p in paths:
            try:
                v = _lookup(r, p)
            except (KeyError, TypeError):
                if not _varying(tree, p):
                    return None
                v = None
            rec.append(None if isinstance(v, dict) and not v else v)
        records.append(tuple(rec))
    return paths, records


def _has_all(row, paths):
    try:
        for p in paths:
            v = row
            for k in p:
                v = v[k]
        return True
    except (KeyError, TypeError):
        return False
