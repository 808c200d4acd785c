#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# dracut pre-mount hook (sourced): boot 2 of the bootpack loop, the relayout
# of the root while it is not mounted (see bootpack-setup(8)). Never fails
# the boot.
type getargbool >/dev/null 2>&1 || . /lib/dracut-lib.sh

if getargbool 1 bootpack && [ -x /bin/bootpack-relayout-root ]; then
	bp_dev=${root#block:}
	case $bp_dev in
	UUID=* | LABEL=* | PARTUUID=* | PARTLABEL=*) bp_dev=$(label_uuid_to_dev "$bp_dev") ;;
	esac
	/bin/bootpack-relayout-root "$bp_dev" || :
	unset bp_dev
fi
