# SPDX-License-Identifier: GPL-2.0-or-later
# budget-oracle.sh --- the automatic budget's rule, computed by the tests
# themselves (sourced by pack/budget-auto, bench/budget-per-model and
# image/budget-target; no code of bootpack's): the smallest of the traced
# bytes, a quarter of the memory, and the disk's rate times the trace's last
# first access.
# shellcheck shell=bash

# bp_budget_want TRACED MEM RATE_BPS LAST_NS: prints "BUDGET TERM"
bp_budget_want() {
	awk -v a="$1" -v m="$2" -v r="$3" -v t="$4" 'BEGIN {
		b = a; w = "traced"
		if (int(m / 4) < b) { b = int(m / 4); w = "memory" }
		d = int(r * t / 1e9); if (d < b) { b = d; w = "disk" }
		printf "%d %s\n", b, w }'
}
