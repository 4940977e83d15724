#!/bin/sh
# Records LAM 7.1.4's laminfo output for every case in cases.txt, as the
# golden files in lam-7.1.4/: <case>.stdout, <case>.stderr and <case>.rc.
# Needs the real LAM: apt-get install -y lam-runtime (Debian 12).
# The goldens were recorded with LAM 7.1.4-7+b1 from Debian bookworm on
# 2026-11-22; this script only documents how, the tests never run LAM.
set -eu
cd "$(dirname "$0")"
out=lam-7.1.4
mkdir -p "$out"
grep -v '^#' cases.txt | while IFS='|' read -r name args; do
	[ -n "$name" ] || continue
	# shellcheck disable=SC2086
	set +e
	laminfo $args >"$out/$name.stdout" 2>"$out/$name.stderr"
	echo $? >"$out/$name.rc"
	set -e
done
