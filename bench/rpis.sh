#!/bin/bash
# rpis.sh: two rpi modules of one build against each other, round by
# round (ab.sh compares two builds) — for "what does this module cost"
# questions, such as crtcp (tcp whose links count bytes for checkpoints)
# against tcp:
#
#   bench/rpis.sh RPI_A RPI_B SIZE [ROUNDS]      e.g. bench/rpis.sh tcp crtcp 8 9
#
# Each round runs bench/pingpong (latency, µs one-way at SIZE bytes) over
# RPI_A and then over RPI_B, so a pair shares the machine's slow or fast
# period; prints each round and the median of the B/A ratios (below 1: B
# is faster). ITERS overrides the round trips per run. Run from the
# repository after `make build`; the universe it boots (a private session
# prefix) is halted when it ends.
set -euo pipefail

a=${1:-}
b=${2:-}
size=${3:-}
rounds=${4:-9}
repo=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$repo/bin/pingpong" ] && [ -n "$a" ] && [ -n "$b" ] && [[ "$size" =~ ^[0-9]+$ ]] || {
	echo "usage: $0 RPI_A RPI_B SIZE [ROUNDS] (after make build)" >&2
	exit 2
}
work=$(mktemp -d /tmp/rpis.XXXXXX)
export LAM_MPI_SESSION_PREFIX=$work LAM_MPI_SESSION_SUFFIX=rpis
cleanup() {
	set +e
	"$repo/bin/lamhalt" >/dev/null 2>&1 || "$repo/bin/lamwipe" >/dev/null 2>&1
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# A test machine's root (the tools refuse root unless told).
[ "$(id -u)" != 0 ] || export LAM_ALLOW_RUN_AS_ROOT=1
"$repo/bin/lamboot" -H >/dev/null

iters=${ITERS:-$([ "$size" -le 65536 ] && echo 100000 || echo 2000)}
one() { # rpi — prints the one-way latency
	"$repo/bin/mpirun" -ssi rpi "$1" -np 2 "$repo/bin/pingpong" -min "$size" -max "$size" -iters "$iters" latency 2>/dev/null |
		tail -1 | awk '{print $2}'
}

echo "# $size bytes: $a, $b (µs one-way), $b/$a"
ratios=()
for ((i = 1; i <= rounds; i++)); do
	x=$(one "$a")
	y=$(one "$b")
	ratio=$(awk -v y="$y" -v x="$x" 'BEGIN { printf "%.3f", y / x }')
	ratios+=("$ratio")
	echo "$x $y $ratio"
done
printf '%s\n' "${ratios[@]}" | sort -n | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "median ratio %.3f (%d rounds)\n", m, NR }'
