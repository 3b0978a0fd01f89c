# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""docs/notebooks/quickstart.ipynb, executed headless in a Jupyter kernel
(nbclient, ipykernel): the %%iops table's bytes are what the cell says it
wrote and read (its own count of what write() and read() returned), the
histogram and the frame's plot are pictures, the cell's value the Episode."""
import os
import re

import nbformat
import pytest
from nbclient import NotebookClient

from conftest import TOP

NOTEBOOK = os.path.join(TOP, "docs", "notebooks", "quickstart.ipynb")


def text_of(output):
    if output.get("output_type") == "stream":
        return output["text"]
    return output.get("data", {}).get("text/plain", "")


@pytest.fixture(scope="module")
def nb_dir(tmp_path_factory):
    """The notebook's folder, and the kernel's TMPDIR."""
    return str(tmp_path_factory.mktemp("nb"))


@pytest.fixture(scope="module")
def executed(binary, nb_dir):
    nb = nbformat.read(NOTEBOOK, as_version=4)
    here = nb_dir
    saved = {k: os.environ.get(k) for k in ("PYTHONPATH", "TMPDIR")}
    # the kernel imports this tree's package, and makes its files here
    os.environ["PYTHONPATH"] = os.path.join(TOP, "python") + (os.pathsep + saved["PYTHONPATH"]
                                                              if saved["PYTHONPATH"] else "")
    os.environ["TMPDIR"] = here
    try:
        NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": here}}).execute()
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return nb


def cell_with(nb, source_start):
    return next(c for c in nb.cells if c.cell_type == "code" and c.source.startswith(source_start))


def test_the_iops_table_holds_what_the_cell_wrote_and_read(executed):
    cell = cell_with(executed, "%%iops")
    said = "".join(text_of(o) for o in cell.outputs)
    wrote, read = map(int, re.search(r"the cell wrote (\d+) bytes and read (\d+)", said).groups())
    assert wrote == 256 * 4096 and read == wrote
    tables = [o for o in cell.outputs if "text/html" in o.get("data", {})]
    assert len(tables) == 1 and "IOPS Profile" in tables[0]["data"]["text/html"]
    plain = tables[0]["data"]["text/plain"]
    figures = dict(re.findall(r"^([A-Z][A-Za-z ]+):\s+(.*)$", plain, re.M))
    assert figures["Bytes Written"].endswith("(%s bytes)" % format(wrote, ","))
    assert figures["Bytes Read"].endswith("(%s bytes)" % format(read, ","))
    assert figures["Write Operations"] == "256"
    assert figures["Read Operations"] == "17"  # 16 batches and the read at the end of the file
    assert "Files only" in plain
    value = [o for o in cell.outputs if o.get("output_type") == "execute_result"]
    assert value and value[0]["data"]["text/plain"].startswith("Episode(")


def test_the_histogram_and_the_frame_plot_are_images(executed):
    hist = cell_with(executed, "%%iops")
    assert any("image/png" in o.get("data", {}) for o in hist.outputs)
    plot = cell_with(executed, "ep = _")
    assert any("image/png" in o.get("data", {}) for o in plot.outputs)
    sums = "".join(text_of(o) for o in cell_with(executed, "frame.filter").outputs)
    assert re.search(r"by_kind.file.write_bytes\s+1048576\b", sums), sums
    assert re.search(r"by_kind.file.write_calls\s+256\b", sums), sums


def test_the_notebook_leaves_no_dataset_behind(executed, nb_dir):
    cleanup = cell_with(executed, "import shutil")
    assert not [o for o in cleanup.outputs if o.get("output_type") == "error"]
    left = [p for p in os.listdir(nb_dir) if p.startswith("iopsample-quickstart-")]
    assert left == [], left


def test_a_cell_with_top_level_await_runs_in_the_kernel(binary, nb_dir):
    """The kernel's loop runs the cell that holds the magic: the cell's own
    await still runs (on a loop of its own), and its value is the cell's."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("import sys; sys.path.insert(0, %r)\n%%load_ext iopsample"
                                          % os.path.join(TOP, "python")),
                nbformat.v4.new_code_cell("%%iops --sources proc_io\nimport asyncio\n"
                                          "await asyncio.sleep(0.01)\n6 * 7"),
                nbformat.v4.new_code_cell("_")]
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": nb_dir}}).execute()
    magic, after = nb.cells[1], nb.cells[2]
    assert not [o for o in magic.outputs if o.get("output_type") == "error"], magic.outputs
    values = [text_of(o) for o in magic.outputs if o.get("output_type") == "execute_result"]
    assert values == ["42"], magic.outputs
    assert any("IOPS Profile" in text_of(o) for o in magic.outputs)
    assert [text_of(o) for o in after.outputs] == ["42"]


def test_an_interrupted_cell_with_top_level_await_stops_and_ends_interrupted(binary, nb_dir, tmp_path):
    """The kernel's interrupt while the cell's await runs on its own loop:
    the cell's thread ends with it (not left running behind the episode),
    and the episode ends interrupted."""
    save = str(tmp_path)
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("import sys; sys.path.insert(0, %r)\n%%load_ext iopsample"
                                          % os.path.join(TOP, "python")),
                nbformat.v4.new_code_cell("%%%%iops --sources proc_io --save %s\nimport asyncio\n"
                                          "await asyncio.sleep(60)" % save),
                nbformat.v4.new_code_cell("import threading, time\n"
                                          "time.sleep(0.5)\n"
                                          "print(sorted(t.name for t in threading.enumerate() if t.name == 'iops-cell'))")]
    # the second cell is given 5 s, then interrupted, and the rest run
    NotebookClient(nb, timeout=120, interrupt_on_timeout=True, allow_errors=True, kernel_name="python3",
                   timeout_func=lambda cell: 5 if "sleep(60)" in cell.source else 120,
                   resources={"metadata": {"path": nb_dir}}).execute()
    magic, after = nb.cells[1], nb.cells[2]
    errors = [o for o in magic.outputs if o.get("output_type") == "error"]
    # as the same cell without %%iops ends: ipykernel 6 cancels a cell's
    # top-level await (CancelledError); a cell run in this thread gets the
    # KeyboardInterrupt
    assert errors and errors[0]["ename"] in ("KeyboardInterrupt", "CancelledError"), magic.outputs
    assert [text_of(o).strip() for o in after.outputs] == ["[]"], after.outputs
    (name,) = os.listdir(save)
    import iopsample
    assert iopsample.Episode(os.path.join(save, name)).status == "interrupted"
