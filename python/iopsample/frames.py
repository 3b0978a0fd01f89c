# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Rows to a pandas frame: nested objects flattened to dotted columns as
`iopsample export` names them (by_syscall.read.bytes, by_device.vda.reads),
arrays (the histograms) kept whole, one column of lists.

Every row of a source's file has the same keys (CONTRACT §5), so the first
row gives the columns and one compiled function per source takes each row
apart: a row that lacks one of them is a damaged file, reported as such.
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


def _typed(values, schema_dtype=None):
    """A column of values as pandas holds them best: int64 (Int64, the
    nullable integer, when some are null: counts stay exact), float64,
    bool (boolean), string; lists and mixed values as objects."""
    import numpy as np
    import pandas as pd

    kinds = set(map(type, values))
    nulls = _NONE in kinds
    kinds.discard(_NONE)
    if kinds == {int}:
        return pd.array(values, dtype="Int64") if nulls else np.array(values, dtype=np.int64)
    if kinds and kinds <= {int, float}:
        return np.array([np.nan if v is None else v for v in values] if nulls else values, dtype=np.float64)
    if kinds == {bool}:
        return pd.array(values, dtype="boolean") if nulls else np.array(values, dtype=bool)
    if kinds == {str}:
        return pd.array(values, dtype="string")
    if not kinds and schema_dtype:  # null in every row: the schema knows the type
        return pd.array(values, dtype=schema_dtype)
    return np.array(values, dtype=object) if kinds != {list} else _object_column(values)


def _object_column(values):
    import numpy as np

    out = np.empty(len(values), dtype=object)
    out[:] = values  # a list each, not a 2-D array
    return out


def frame(rows, path, schema_dtypes=None):
    """A DataFrame of rows (dicts, one per interval) indexed by t_mono_ns.
    schema_dtypes: {top-level field: pandas dtype}, asked for only when a
    column is null in every row; a callable that returns it."""
    try:
        import numpy as np
        import pandas as pd
    except ImportError as e:
        raise ImportError("iopsample's frames need pandas (%s): apt install python3-pandas, or "
                          "pip install 'iopsample[frames]'; rows() needs nothing" % e) from None

    if not rows:
        return pd.DataFrame(index=pd.Index([], dtype=np.int64, name="t_mono_ns"))
    paths = columns_of(rows[0])
    get = _extractor(paths)
    try:
        records = list(map(get, rows))
    except (KeyError, TypeError) as e:
        bad = next(i for i, r in enumerate(rows) if not _has_all(r, paths))
        raise CorruptEpisodeError("%s: row %d lacks %s, which the first row has: rows of one file "
                                  "must have the same keys" % (path, bad + 1, e)) from None
    names = [".".join(p) for p in paths]
    data, dtypes = {}, None
    for name, values in zip(names, zip(*records)):
        values = list(values)
        if schema_dtypes is not None and all(v is None for v in values) and dtypes is None:
            dtypes = schema_dtypes() or {}
        data[name] = _typed(values, (dtypes or {}).get(name))
    index = pd.Index(data.pop("t_mono_ns"), name="t_mono_ns")
    return pd.DataFrame(data, index=index, copy=False)


def _has_all(row, paths):
    try:
        for p in paths:
            v = row
            for k in p:
                v = v[k]
        return True
    except (KeyError, TypeError):
        return False
