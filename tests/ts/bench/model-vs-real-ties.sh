#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/boot/model-vs-real.py: which pairs of strategies count as ordered.
# A pair the real boot orders (medians more than 1 % apart, no run
# directory) and the model orders the other way, by more than 1 %: exit 1.
# The same pair with the model's figures 0.25 % apart (it claims no such
# precision): agree. The real boot's medians within 1 %: agree whatever the
# model says.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"

bp_require_cmd python3
mvr=$top_srcdir/bench/boot/model-vs-real.py

# real A B: the real boot's reads busy of stock and ureadahead
real() {
	printf '{"rows": [{"model": "m", "strategy": "stock", "busy_read_unscaled_s": %s},
	 {"model": "m", "strategy": "ureadahead", "busy_read_unscaled_s": %s}]}\n' "$1" "$2" \
		>"$BP_TMPDIR/real.json"
}
# model A B: bp-strategies' seconds of the same two
model() {
	printf '{"ranking": {"models": [{"model": "m", "strategies": [
	 {"strategy": "stock", "seconds": %s}, {"strategy": "ureadahead", "seconds": %s}]}]}}\n' \
		"$1" "$2" >"$BP_TMPDIR/model.json"
}
verdict() {
	local rc=0

	python3 "$mvr" "$BP_TMPDIR/real.json" "$BP_TMPDIR/model.json" >"$BP_TMPDIR/out" 2>&1 ||
		rc=$?
	cat "$BP_TMPDIR/out"
	echo "$rc"
}

real 2.423 2.448
model 2.468 2.362
[ "$(verdict | tail -n1)" = 1 ] || bp_fail "a pair ordered the other way by the model (4 %) is not a disagreement"
bp_grep 'DISAGREE stock vs ureadahead' "$BP_TMPDIR/out"

model 2.368 2.362
[ "$(verdict | tail -n1)" = 0 ] || bp_fail "the model's figures 0.25 % apart count as an order"

real 2.428 2.422
model 2.0 3.0
[ "$(verdict | tail -n1)" = 0 ] || bp_fail "the real boot's figures 0.25 % apart count as an order"
