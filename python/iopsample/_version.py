# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""The package's version: the binary it drives must be of the same release
(binary.find)."""
__version__ = "0.1.0"
