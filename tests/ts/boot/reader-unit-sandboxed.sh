#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The installed bootpack-read.service is sandboxed: systemd's own scorer
# (systemd-analyze security, offline) rates it at most 2.0 ("OK"; the unit
# without a sandbox scored 9.5 UNSAFE), it keeps only the two capabilities a
# reader of any file needs, and it still reaches block devices and /dev/kmsg.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
bp_require_cmd systemd-analyze

unit=$top_builddir/boot/bootpack-read.service
[ -f "$unit" ] || bp_fail "$unit not built"
cp "$unit" "$BP_TMPDIR/bootpack-read.service"
systemd-analyze security --offline=true "$BP_TMPDIR/bootpack-read.service" \
	>"$BP_TMPDIR/out" 2>"$BP_TMPDIR/err" || true
score=$(sed -n 's/.*Overall exposure level for bootpack-read.service: \([0-9.]*\).*/\1/p' \
	"$BP_TMPDIR/out")
[ -n "$score" ] || { cat "$BP_TMPDIR/out" "$BP_TMPDIR/err"; bp_fail "no exposure level printed"; }
bp_info "exposure level $score"
awk -v s="$score" 'BEGIN { exit !(s <= 2.0) }' || bp_fail "exposure level $score > 2.0"

want() { grep -qx "$1" "$unit" || bp_fail "$unit lacks '$1'"; }
want 'CapabilityBoundingSet=CAP_DAC_READ_SEARCH CAP_FOWNER'
want 'NoNewPrivileges=yes'
want 'ProtectSystem=strict'
want 'PrivateNetwork=yes'
want 'DeviceAllow=block-\* r'
want 'DeviceAllow=/dev/kmsg w'
# The reader reads the packed modules under /usr/lib/modules: ProtectKernelModules
# would hide them (every .ko of the pack skipped as missing).
! grep -qx 'ProtectKernelModules=yes' "$unit" || bp_fail "ProtectKernelModules=yes hides /usr/lib/modules"
# The reader logs to the kernel log: that must stay reachable.
! grep -qx 'ProtectKernelLogs=yes' "$unit" || bp_fail "ProtectKernelLogs=yes hides /dev/kmsg"
exit 0
