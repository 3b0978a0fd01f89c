# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Which iopsample a bench script runs: $IOPSAMPLE; else the build its
BUILD_DIR argument names, when given; else the one on PATH; else the build
beside these scripts (../build). With none, one line naming where it looked,
and exit 69 (EX_UNAVAILABLE), as the recipes do."""
import os
import shutil
import sys


def iopsample(build):
    here = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build", "iopsample"))
    given = os.path.join(build, "iopsample") if len(sys.argv) > 1 else None
    for path in (os.environ.get("IOPSAMPLE"), given, shutil.which("iopsample"), here):
        if path and os.access(path, os.X_OK) and not os.path.isdir(path):
            return os.path.abspath(path)
    print("%s: no iopsample: $IOPSAMPLE is %s, %snone on PATH, none at %s" % (
        os.path.basename(sys.argv[0]), repr(os.environ["IOPSAMPLE"]) if "IOPSAMPLE" in os.environ else "unset",
        "none in %s, " % build if given else "", here), file=sys.stderr)
    sys.exit(69)
