#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bootpack probe names the disk model that serves the disk: an image served
# by nbdkit through the delay filter (bench/boot/bootpack-delay.c) with each
# model of the table in turn, probed for 5 s, must be named after that
# model. The kernel here has no nbd driver (CONFIG_BLK_DEV_NBD not set), so
# the export is seen as a regular file through FUSE (nbdfuse, libnbd-bin):
# FUSE adds its own ~0.3 ms to a request and splits reads at 128 KiB, which
# the nearest-model rule must see through. The image is unchanged after.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
bp_require_root
bp_require_cmd nbdkit nbdfuse fusermount3 sha256sum
filter=$top_builddir/bench/boot/nbdkit-bootpack-delay-filter.so
[ -f "$filter" ] || bp_skip "filter not built (configure did not find nbdkit-plugin-dev)"
[ -c /dev/fuse ] || bp_skip "no /dev/fuse"

img=$BP_TMPDIR/probe-delay-b.img
dd if=/dev/urandom of="$img" bs=1M count=128 status=none
sum0=$(sha256sum <"$img")
mnt=$BP_TMPDIR/fuse
mkdir -p "$mnt"
bp_on_exit "fusermount3 -u '$mnt'"
models=$("$BOOTPACK" bench --help | sed -n "/^Models:/,/^\$/s/^ \([a-z0-9-]*\) .*/\1/p")
"$BOOTPACK" bench --help | sed -n "/^Models:/,/^\$/p" >"$BP_TMPDIR/models.txt"
# served FILTER MODEL OUT: probe the export through FUSE
served() {
	# shellcheck disable=SC2086  # $1 and $2: empty or one option each
	nbdkit -U - $1 file "$img" $2 --run "
		nbdfuse --readonly '$mnt' \"\$uri\" &
		for i in \$(seq 50); do [ -f '$mnt/nbd' ] && break; sleep 0.1; done
		'$BOOTPACK' probe --time 5 --json '$mnt/nbd' >'$3'; rc=\$?
		fusermount3 -u '$mnt'; wait; exit \$rc" >"$BP_TMPDIR/nbdkit.out" 2>&1
}
# The transport's own ceiling (no filter): a model whose sequential rate is
# over half of it cannot be told from a slower flash model through FUSE
# (sata-ssd's 560 MB/s through a path that carries ~100-200 MB/s); for
# those only the kind (flash) is checked, and said.
served "" "" "$BP_TMPDIR/transport.json" ||
	{ cat "$BP_TMPDIR/nbdkit.out"; bp_fail "nbdkit, nbdfuse or probe failed without the filter"; }
ceiling=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["probe"]["rate_mbs"])' \
	"$BP_TMPDIR/transport.json")
echo "# transport (FUSE, no model): $ceiling MB/s"
for model in $models; do
	served --filter="$filter" model="$model" "$BP_TMPDIR/$model.json" ||
		{ cat "$BP_TMPDIR/nbdkit.out"; bp_fail "$model: nbdkit, nbdfuse or probe failed"; }
	got=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["probe"]
print("# %s: far %.3f ms, %.1f MB/s, max_request %s, rotational %s: %s (%.2f), then %s (%.2f)" % (
      sys.argv[2], d["latency"]["far"]["ms"], d["rate_mbs"], d["max_request"], d["rotational"],
      d["model"], d["distance"], d["models"][1]["model"], d["models"][1]["distance"]), file=sys.stderr)
print(d["model"])' "$BP_TMPDIR/$model.json" "$model")
	rate=$(sed -n "s/^ $model .* \([0-9.]*\) MB\/s.*/\1/p; s/^ $model .* \([0-9.]*\) MiB\/s.*/\1/p" \
		"$BP_TMPDIR/models.txt" | head -n1)
	if [ -n "$rate" ] && python3 -c 'import sys; sys.exit(not float(sys.argv[1]) > float(sys.argv[2]) / 2)' \
		"$rate" "$ceiling"; then
		echo "# $model: $rate MB/s is beyond what FUSE carries here ($ceiling MB/s): kind only"
		python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["probe"]["rotational"])' \
			"$BP_TMPDIR/$model.json" || bp_fail "served as $model (flash), probe says rotational"
		continue
	fi
	[ "$got" = "$model" ] && continue
	# A near tie (the served model within 15 % of the nearest's distance) is
	# what 5 s through FUSE can resolve between today's similar flash models
	# (usb2-stick vs cloud-cold, eee-flash vs usb2-stick): said, not failed.
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["probe"]
dist = {m["model"]: m["distance"] for m in d["models"]}
sys.exit(not dist[sys.argv[2]] <= 1.15 * d["distance"])' "$BP_TMPDIR/$model.json" "$model" ||
		bp_fail "served as $model, probe names $got"
	echo "# $model: a near tie with $got (within 15 %)"
done
[ "$(sha256sum <"$img")" = "$sum0" ] || bp_fail "the image changed"
exit 0
