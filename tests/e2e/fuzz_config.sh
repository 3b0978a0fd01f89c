# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The config loader under libFuzzer for a bounded time (FUZZ_SECONDS, set by
# make check; `make fuzz` runs it longer): no crash, leak or undefined
# behaviour, every refusal one line with its position, every accepted config
# loading back from its resolved form (tests/fuzz/fuzz_config.c).
. "$(dirname "$0")/lib/common.sh"

FUZZER=$BUILD/fuzz/fuzz_config
if [ ! -x "$FUZZER" ]; then
	skip config_loader_survives_fuzzing "no $FUZZER (built by make check and make fuzz)"
	exit 0
fi
check config_loader_survives_fuzzing "$TESTS/fuzz/run" "$FUZZER" "${FUZZ_SECONDS:-20}"
