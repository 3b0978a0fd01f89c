# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The house's layers (docs/guide.md's "Where things are"): lib <- collectors <-
# engine <- cmd, lib <- reader <- cmd. Each file includes only its own
# layer's headers and those below; each object links only to those; no two
# files depend on each other, round any cycle (tests/e2e/lib/layers.py).
. "$(dirname "$0")/lib/common.sh"

check layers_include_and_link_only_downwards_with_no_cycle \
	"$PY" "$TESTS/e2e/lib/layers.py" "$TESTS/.." "$BUILD"
