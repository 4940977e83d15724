#!/bin/bash
# paired.sh: LAM/Go against Open MPI at one message size, round by round:
# each round runs Open MPI's ping-pong and then ours, and divides ours by
# it. Pairs that close in time share the machine's slow or fast period
# (this machine's latencies swing between runs), so the median of the
# per-round ratios is steadier than a ratio of medians.
#
#   bench/paired.sh usysv|sysv|tcp SIZE [ROUNDS]
#
# ITERS (default 200000 for up to 64 KiB, 2000 above) round trips per run;
# ours measures a tenth of that above 64 KiB, and so does the C twin. Run
# from the repository after `make build`, as root, with Open MPI installed
# (openmpi-bin libopenmpi-dev). Prints each round and the median ratio
# (LAM/Go / Open MPI: below 1 is better). When make build made LAM/Go's C
# interface (lib/libmpi.so), each round also runs bench/c/pingpong.c built
# with LAM/Go's mpicc, and the medians of its ratios to Open MPI and to
# the Go program are printed too, and the same program's run without the
# C fast path (LAM_MPI_CAPI_FAST=0, docs/capi.md) with the ratio of the
# two. Everything it starts is stopped when it ends.
set -euo pipefail

rpi=${1:-}
size=${2:-}
rounds=${3:-9}
case "$rpi" in
usysv | sysv) btl=vader,self ;;
tcp) btl=tcp,self ;;
*)
	echo "usage: $0 usysv|sysv|tcp SIZE [ROUNDS]" >&2
	exit 2
	;;
esac
[[ "$size" =~ ^[0-9]+$ ]] || {
	echo "$0: SIZE must be a number of bytes" >&2
	exit 2
}
iters=${ITERS:-$([ "$size" -le 65536 ] && echo 200000 || echo 2000)}
repo=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$repo/bin/pingpong" ] || {
	echo "$0: build first (make build)" >&2
	exit 1
}
command -v mpicc >/dev/null || {
	echo "$0: needs Open MPI (apt-get install openmpi-bin libopenmpi-dev)" >&2
	exit 1
}

work=$(mktemp -d /tmp/paired.XXXXXX)
export LAM_MPI_SESSION_PREFIX=$work/sessions
mkdir -p "$LAM_MPI_SESSION_PREFIX"
up=false
cleanup() {
	set +e
	if $up; then "$repo/bin/lamhalt" >/dev/null 2>&1 || "$repo/bin/lamwipe" >/dev/null 2>&1; fi
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mpicc -O2 -o "$work/pp-ompi" "$repo/bench/c/pingpong.c"
ourc=false
if [ -f "$repo/lib/libmpi.so" ] && "$repo/bin/mpicc" -O2 -o "$work/pp-lamgo" "$repo/bench/c/pingpong.c" 2>"$work/mpicc.err"; then
	ourc=true
else
	echo "note: bench/c/pingpong.c does not build with LAM/Go's mpicc (make build makes lib/libmpi.so): no C column" >&2
fi
"$repo/bin/lamboot" -H >/dev/null 2>"$work/lamboot.err" || {
	echo "$0: lamboot failed (as root, export LAM_ALLOW_RUN_AS_ROOT=1):" >&2
	cat "$work/lamboot.err" >&2
	exit 1
}
up=true

last() { tail -1 | awk '{print $2}'; }
median() { sort -n | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.3f", m }'; }
div() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b == 0) print "-"; else printf "%.3f", a / b }'; }
if $ourc; then
	echo "# $rpi, $size bytes, $iters round trips a run; µs one-way: LAM/Go, Open MPI, ratio, LAM/Go C, C/Open MPI, C/Go, C without the fast path, C/C without"
else
	echo "# $rpi, $size bytes, $iters round trips a run; µs one-way: LAM/Go, Open MPI, ratio"
fi
ratios=()
cratios=()
cgratios=()
csratios=()
for ((r = 1; r <= rounds; r++)); do
	o=$(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun -np 2 --mca pml ob1 --mca btl "$btl" \
		"$work/pp-ompi" "$size" "$iters" "$size" 2>/dev/null | last)
	g=$("$repo/bin/mpirun" -ssi rpi "$rpi" -np 2 "$repo/bin/pingpong" -min "$size" -max "$size" -iters "$iters" latency 2>/dev/null | last)
	ratio=$(div "$g" "$o")
	ratios+=("$ratio")
	if $ourc; then
		c=$("$repo/bin/mpirun" -ssi rpi "$rpi" -np 2 "$work/pp-lamgo" -min "$size" -max "$size" -iters "$iters" latency 2>/dev/null | last)
		cratios+=("$(div "$c" "$o")")
		cgratios+=("$(div "$c" "$g")")
		s=$(LAM_MPI_CAPI_FAST=0 "$repo/bin/mpirun" -ssi rpi "$rpi" -np 2 "$work/pp-lamgo" -min "$size" -max "$size" -iters "$iters" latency 2>/dev/null | last)
		csratios+=("$(div "$c" "$s")")
		echo "$g $o $ratio $c ${cratios[-1]} ${cgratios[-1]} $s ${csratios[-1]}"
	else
		echo "$g $o $ratio"
	fi
done
echo "median ratio $(printf '%s\n' "${ratios[@]}" | median) ($rounds rounds)"
if $ourc; then
	echo "median ratio C/Open MPI $(printf '%s\n' "${cratios[@]}" | median), C/Go $(printf '%s\n' "${cgratios[@]}" | median), C/C without the fast path $(printf '%s\n' "${csratios[@]}" | median)"
fi
