#!/bin/bash
# ab.sh: two builds of LAM/Go against each other, round by round — for
# "no regression" checks of a change (before: a clone at the old commit,
# after: this tree, both after `make build`):
#
#   bench/ab.sh OLD_REPO NEW_REPO CASE [ROUNDS]
#
# CASE is usysv:SIZE, sysv:SIZE, tcp:SIZE (pingpong latency, µs one-way)
# or barrier:NP, allreduce:NP (bench/coll on NP ranks, 8-byte allreduce),
# ibarrier:NP, iallreduce:NP (their nonblocking forms, each then Wait),
# or bcast, gather, scatter, allgather, alltoall, allreduce:NP:SIZE
# (bench/coll's operation on NP ranks, SIZE bytes: per rank's block for
# gather, scatter, allgather and alltoall). COLL_ARGS adds mpirun
# arguments to the collective cases (e.g. "-ssi coll lam_basic").
# Each build runs in a universe of its own (its own lamd, session suffix),
# and each round runs OLD then NEW, so a pair shares the machine's slow or
# fast period; prints each round and the median of the NEW/OLD ratios
# (below 1: the new build is faster). ITERS overrides the round trips or
# operations per run. Everything it starts is stopped when it ends.
set -euo pipefail

old=${1:-}
new=${2:-}
case=${3:-}
rounds=${4:-9}
[ -x "$old/bin/pingpong" ] && [ -x "$new/bin/pingpong" ] && [ -n "$case" ] || {
	echo "usage: $0 OLD_REPO NEW_REPO usysv|sysv|tcp:SIZE|barrier|allreduce|ibarrier|iallreduce:NP|OP:NP:SIZE [ROUNDS] (both built)" >&2
	exit 2
}
kind=${case%%:*}
arg=${case#*:}
csize=
if [[ "$arg" == *:* ]]; then
	csize=${arg#*:}
	arg=${arg%%:*}
fi
[[ "$arg" =~ ^[0-9]+$ && "$csize" =~ ^[0-9]*$ ]] || {
	echo "$0: $case: want KIND:NUMBER" >&2
	exit 2
}

work=$(mktemp -d /tmp/ab.XXXXXX)
export LAM_MPI_SESSION_PREFIX=$work/sessions
mkdir -p "$LAM_MPI_SESSION_PREFIX"
booted=()
cleanup() {
	set +e
	for r in "${booted[@]}"; do
		LAM_MPI_SESSION_SUFFIX=$(basename "$r") "$r/bin/lamhalt" >/dev/null 2>&1 ||
			LAM_MPI_SESSION_SUFFIX=$(basename "$r") "$r/bin/lamwipe" >/dev/null 2>&1
	done
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

for r in "$old" "$new"; do
	LAM_MPI_SESSION_SUFFIX=$(basename "$r") "$r/bin/lamboot" -H >/dev/null 2>"$work/boot.err" || {
		cat "$work/boot.err" >&2
		exit 1
	}
	booted+=("$r")
done
[ "$(basename "$old")" != "$(basename "$new")" ] || {
	echo "$0: the two repositories need different folder names (they name the universes)" >&2
	exit 2
}

one() { # repo — prints the measured number
	local r=$1
	export LAM_MPI_SESSION_SUFFIX
	LAM_MPI_SESSION_SUFFIX=$(basename "$r")
	case $kind in
	usysv | sysv | tcp)
		local iters=${ITERS:-$([ "$arg" -le 65536 ] && echo 200000 || echo 2000)}
		"$r/bin/mpirun" -ssi rpi "$kind" -np 2 "$r/bin/pingpong" -min "$arg" -max "$arg" -iters "$iters" latency 2>/dev/null |
			tail -1 | awk '{print $2}'
		;;
	barrier | allreduce | ibarrier | iallreduce | bcast | gather | scatter | allgather | alltoall)
		local size=${csize:-$([ "${kind#i}" = barrier ] && echo 0 || echo 8)}
		# shellcheck disable=SC2086 # COLL_ARGS is a list of arguments
		"$r/bin/mpirun" ${COLL_ARGS:-} -np "$arg" "$r/bin/coll" -min "$size" -max "$size" -iters "${ITERS:-100000}" "$kind" 2>/dev/null |
			grep -v '^#' | tail -1 | awk '{print $2}'
		;;
	*)
		echo "$0: unknown case $kind" >&2
		exit 2
		;;
	esac
}

echo "# $case: old, new, new/old"
ratios=()
for ((i = 1; i <= rounds; i++)); do
	o=$(one "$old")
	n=$(one "$new")
	ratio=$(awk -v n="$n" -v o="$o" 'BEGIN { printf "%.3f", n / o }')
	ratios+=("$ratio")
	echo "$o $n $ratio"
done
printf '%s\n' "${ratios[@]}" | sort -n | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "median ratio %.3f (%d rounds)\n", m, NR }'
