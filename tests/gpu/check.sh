#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The gpu source on a real GPU (make check-gpu; make check runs it too, and
# it reports itself skipped, with why, where no NVIDIA driver or no PyTorch
# with CUDA is). tests/gpu/check.py says what it checks.
#   tests/gpu/check.sh [BUILD_DIR]
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-${BUILD:-$here/../../build}}
export IOPSAMPLE=${IOPSAMPLE:-$build/iopsample}
exec "${PYTHON:-python3}" "$here/check.py"
