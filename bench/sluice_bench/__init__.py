# SPDX-License-Identifier: BSD-3-Clause
"""sluice-bench: benchmark searches over sluice-gen (issue 3). So far: NDR/PDR search."""
from .search import Trial, interleave, search, search_steps  # noqa: F401
