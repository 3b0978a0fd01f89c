# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""The package as Python projects package it: pyproject.toml names
setuptools' standard backend, the version has one source (_version.py,
which the binary's release must equal: binary.find refuses another), and
requires-python is true to the code (every module parses as that Python's
grammar). tests/e2e/install.sh builds and installs it: pip offline into a
venv, make install's dist-info, pybuild's python3-iopsample."""
import ast
import glob
import os
import tomllib

from conftest import TOP

PY = os.path.join(TOP, "python")


def project():
    with open(os.path.join(PY, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)


def test_a_standard_backend_and_one_version_source():
    conf = project()
    assert conf["build-system"]["build-backend"] == "setuptools.build_meta"
    assert "version" not in conf["project"] and conf["project"]["dynamic"] == ["version"]
    assert conf["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "iopsample._version.__version__"}
    import iopsample
    with open(os.path.join(TOP, "VERSION")) as f:
        assert iopsample.__version__ == f.read().strip(), "the package's release is not the binary's"


def test_requires_python_is_what_the_code_parses_as():
    spec = project()["project"]["requires-python"]
    assert spec.startswith(">=3."), spec
    minor = int(spec[len(">=3."):])
    modules = glob.glob(os.path.join(PY, "iopsample", "*.py"))
    assert len(modules) >= 9
    for m in modules:
        with open(m) as f:
            ast.parse(f.read(), m, feature_version=(3, minor))
    # and one year older would not do: os.pidfd_open is 3.9's
    with open(os.path.join(PY, "iopsample", "runner.py")) as f:
        assert "os.pidfd_open" in f.read() and minor == 9
