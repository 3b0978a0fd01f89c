# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""A PEP 517 (and PEP 660) build backend for the iopsample package, from
Python's standard library alone, so that `pip install ./python` works with
no index: pip installs a backend's `requires` into an isolated environment
from PyPI, which an offline machine cannot reach. It builds exactly what a
pure package needs: a py3-none-any wheel of the packages pyproject.toml's
[tool.iopsample] lists, its metadata from [project], and an sdist.

Reproducible: the archives' times are SOURCE_DATE_EPOCH (else 1980-01-01)
and their members sorted."""
import base64
import hashlib
import io
import os
import tarfile
import time
import zipfile

try:
    import tomllib
except ImportError:  # Python before 3.11
    tomllib = None

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _project():
    if tomllib is None:
        raise RuntimeError("building iopsample needs Python 3.11 or later (tomllib), or install "
                           "the package's files by hand: make install puts them in place")
    with open(os.path.join(HERE, "pyproject.toml"), "rb") as f:
        conf = tomllib.load(f)
    return conf["project"], conf.get("tool", {}).get("iopsample", {})


def _epoch():
    return max(int(os.environ.get("SOURCE_DATE_EPOCH", "315532800")), 315532800)


def _metadata(project):
    lines = ["Metadata-Version: 2.1", "Name: " + project["name"], "Version: " + project["version"],
             "Summary: " + project["description"], "Requires-Python: " + project.get("requires-python", "")]
    if "license" in project:
        lines.append("License: " + project["license"]["text"])
    for a in project.get("authors", []):
        lines.append("Author: " + a["name"])
    for c in project.get("classifiers", []):
        lines.append("Classifier: " + c)
    for extra, reqs in sorted(project.get("optional-dependencies", {}).items()):
        lines.append("Provides-Extra: " + extra)
        lines += ['Requires-Dist: %s; extra == "%s"' % (r, extra) for r in reqs]
    for r in project.get("dependencies", []):
        lines.append("Requires-Dist: " + r)
    body = ""
    if project.get("readme"):
        lines.append("Description-Content-Type: text/markdown")
        with open(os.path.join(HERE, project["readme"]), encoding="utf-8") as f:
            body = "\n" + f.read()
    return ("\n".join(lines) + "\n" + body).encode("utf-8")


def _package_files(tool):
    """(path in the archive, path on disk) of every .py of the packages."""
    out = []
    for pkg in tool.get("packages", []):
        for root, dirs, files in os.walk(os.path.join(HERE, pkg)):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(files):
                if name.endswith(".py"):
                    disk = os.path.join(root, name)
                    out.append((os.path.relpath(disk, HERE).replace(os.sep, "/"), disk))
    return out


class _Wheel:
    def __init__(self, path):
        self.zip = zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED)
        self.record = []
        self.date = time.gmtime(_epoch())[:6]

    def add(self, arcname, data):
        info = zipfile.ZipInfo(arcname, self.date)
        info.external_attr = 0o644 << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        self.zip.writestr(info, data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        self.record.append("%s,sha256=%s,%d" % (arcname, digest, len(data)))

    def close(self, dist_info):
        record = dist_info + "/RECORD"
        self.record.append(record + ",,")
        info = zipfile.ZipInfo(record, self.date)
        info.external_attr = 0o644 << 16
        self.zip.writestr(info, "\n".join(self.record) + "\n")
        self.zip.close()


def _build(wheel_directory, editable):
    project, tool = _project()
    name, version = project["name"], project["version"]
    dist_info = "%s-%s.dist-info" % (name, version)
    filename = "%s-%s-py3-none-any.whl" % (name, version)
    wheel = _Wheel(os.path.join(wheel_directory, filename))
    if editable:  # PEP 660: a .pth that puts this folder on sys.path
        wheel.add("%s.pth" % name, (HERE + "\n").encode())
    else:
        for arcname, disk in _package_files(tool):
            with open(disk, "rb") as f:
                wheel.add(arcname, f.read())
    wheel.add(dist_info + "/METADATA", _metadata(project))
    wheel.add(dist_info + "/WHEEL", b"Wheel-Version: 1.0\nGenerator: iopsample_backend\n"
                                    b"Root-Is-Purelib: true\nTag: py3-none-any\n")
    wheel.add(dist_info + "/top_level.txt", ("\n".join(tool.get("packages", [])) + "\n").encode())
    wheel.close(dist_info)
    return filename


# ---- PEP 517 ------------------------------------------------------------------

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _build(wheel_directory, editable=False)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    return _build(wheel_directory, editable=True)


def build_sdist(sdist_directory, config_settings=None):
    project, tool = _project()
    base = "%s-%s" % (project["name"], project["version"])
    filename = base + ".tar.gz"
    members = [("pyproject.toml", os.path.join(HERE, "pyproject.toml")),
               ("build_backend/iopsample_backend.py", os.path.abspath(__file__))]
    if project.get("readme"):
        members.append((project["readme"], os.path.join(HERE, project["readme"])))
    members += _package_files(tool)
    pkg_info = _metadata(project)
    with tarfile.open(os.path.join(sdist_directory, filename), "w:gz", format=tarfile.PAX_FORMAT) as tar:
        def add(arcname, data):
            info = tarfile.TarInfo("%s/%s" % (base, arcname))
            info.size, info.mtime, info.mode = len(data), _epoch(), 0o644
            tar.addfile(info, io.BytesIO(data))
        add("PKG-INFO", pkg_info)
        for arcname, disk in sorted(members):
            with open(disk, "rb") as f:
                add(arcname, f.read())
    return filename
