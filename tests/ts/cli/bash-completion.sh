#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bash completion (issue 13): driven through bash-completion's own machinery
# (_init_completion), with the words split as bash splits them (at '='),
# from the functions 'complete -p' names for bootpack and bootpack-read:
# verbs; --sort=<TAB>, --compress=, --meta= values; --model and -m list the
# models bench knows; -d offers block devices and directories; after '--'
# the command, then that command's own completion; bootpack-read's options
# and values; options read from each verb's --help (-q/-v/-V included).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
bc=/usr/share/bash-completion/bash_completion
[ -f "$bc" ] || bp_skip "needs bash-completion (setup.sh installs it)"
mkdir "$BP_TMPDIR/bin" "$BP_TMPDIR/work"
ln -s "$BOOTPACK" "$BP_TMPDIR/bin/bootpack"
ln -s "$top_builddir/bootpack-read" "$BP_TMPDIR/bin/bootpack-read"
touch "$BP_TMPDIR/work/disk.img"

cat >"$BP_TMPDIR/drive.sh" <<'SH'
. "$1"
. "$2"
PATH=$3:$PATH
cd "$4"
# comp LINE: the sorted words completing at the end of LINE offers.
comp() {
	local line=$1 w fn
	local -a ws=()
	for w in $line; do
		while [[ $w == *=* ]]; do ws+=("${w%%=*}" "="); w=${w#*=}; done
		[ -n "$w" ] && ws+=("$w")
	done
	[[ $line == *' ' || $line == *= ]] && ws+=("")
	fn=$(complete -p "${ws[0]}" | sed -n 's/.* -F \([^ ]*\) .*/\1/p')
	COMP_WORDS=("${ws[@]}"); COMP_CWORD=$((${#ws[@]} - 1)); COMP_LINE=$line; COMP_POINT=${#line}
	COMPREPLY=()
	"$fn" "${ws[0]}" "${ws[COMP_CWORD]}" "${ws[COMP_CWORD - 1]}" 2>/dev/null
	printf '%s\n' "${COMPREPLY[@]}" | sort -u | tr '\n' ' '
	echo
}
while IFS= read -r line; do
	printf '%s|%s\n' "$line" "$(comp "$line")"
done
SH

cat >"$BP_TMPDIR/lines" <<'L'
bootpack 
bootpack -
bootpack help re
bootpack dump --sort=
bootpack dump --sort=d
bootpack dump --sort 
bootpack pack --compress=
bootpack pack --meta=
bootpack pack --co
bootpack bench --model 
bootpack bench -m hdd
bootpack trace -d 
bootpack relayout --trace t 
bootpack relayout --q
bootpack image --trace t 
bootpack image --ch
bootpack verify -
bootpack probe -
bootpack probe 
bootpack probe -t 
bootpack setup --probe 
bootpack-read --max-r
bootpack trace -o t -- tru
bootpack trace -o t -- bash --nor
bootpack-read --me
bootpack-read --meth
bootpack-read --method 
bootpack-read --meta-gap 
bootpack-read --log=
bootpack-read --ioprio 
L
bash "$BP_TMPDIR/drive.sh" "$bc" "$top_srcdir/bash-completion/bootpack" "$BP_TMPDIR/bin" \
	"$BP_TMPDIR/work" <"$BP_TMPDIR/lines" >"$BP_TMPDIR/got" 2>"$BP_TMPDIR/err" ||
	{ cat "$BP_TMPDIR/err"; bp_fail "driving the completion failed"; }
cat "$BP_TMPDIR/got"
want() {	# want LINE WORDS-REGEX
	local got
	got=$(awk -F'|' -v l="$1" '$1 == l { print $2; exit }' "$BP_TMPDIR/got")
	[[ $got =~ $2 ]] || bp_fail "completing '$1' gave '$got', expected /$2/"
}
want "bootpack " "^bench dump help image pack probe relayout setup status trace verify $"
want "bootpack -" "--quiet --verbose --version"
want "bootpack help re" "^relayout $"
want "bootpack dump --sort=" "^disk size time $"
want "bootpack dump --sort=d" "^disk $"
want "bootpack dump --sort " "^disk size time $"
want "bootpack pack --compress=" "^always auto never $"
want "bootpack pack --meta=" "^both files trace $"
want "bootpack pack --co" "^--compress= $"
want "bootpack bench --model " "^cloud-cold cloud-gp3 eee-flash emmc hdd-5k160 hdd-smr pi4-sd pi4-sd-slow sata-ssd usb2-stick $"
want "bootpack bench -m hdd" "^hdd-5k160 hdd-smr $"
want "bootpack trace -d " "disk.img"
want "bootpack relayout --trace t " "disk.img"
want "bootpack relayout --q" "^--quiet $"
want "bootpack image --trace t " "disk.img"
want "bootpack image --ch" "^--chunk $"
want "bootpack verify -" "--bytes .*--json .*--pack .*--trace .*--version"
want "bootpack probe -" "--json .*--mounted .*--time"
want "bootpack probe " "disk.img"
want "bootpack probe -t " "^ *$"
want "bootpack setup --probe " "^always auto never $"
want "bootpack-read --max-r" "^--max-request $"
want "bootpack trace -o t -- tru" "^true truncate $"
want "bootpack trace -o t -- bash --nor" "--norc"
want "bootpack-read --me" "^--meta-gap --method $"
want "bootpack-read --meth" "^--method $"
want "bootpack-read --method " "^fadvise pread readahead uring $"
want "bootpack-read --meta-gap " "^0 256k auto $"
want "bootpack-read --log=" "^auto kmsg stderr $"
want "bootpack-read --ioprio " "^auto be idle keep $"
