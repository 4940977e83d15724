#!/bin/bash
# sidebyside.sh: the ofi rpi module against our own transports, one
# interleaved run: ofi over libfabric's shm provider against usysv, and
# over its tcp provider against our tcp; and, where Debian's Open MPI is
# installed (mpicc.openmpi, mpirun.openmpi), Open MPI's ofi MTL (pml cm,
# bench/c/pingpong.c) over the same two providers. Each round runs every column at
# every size (A B C D A B C D ...), so the ratios compare runs that shared
# the machine's slow or fast period; prints the medians of one-way
# latency (µs, bench/pingpong latency) and the median per-round ratios.
#
#   libmpi/rpi/ofi/sidebyside.sh
#
# ROUNDS (default 5), SIZES (default "1 4096 65536 1048576 4194304"),
# ITERS (default 20000 round trips up to 64 KiB, 500 above). OFI_PAIRS,
# if set, replaces the columns with pairs of them ("a b,c d": b against
# a), where ofi-<provider>-read and ofi-<provider>-pull move long
# messages by remote reads (rpi_ofi_tagged=0) and by tagged pulls;
# OFI_ARGS is added to every ofi column's arguments. Run from
# the repository after `make build` (with libfabric-dev installed, so
# that bin/pingpong carries the module). Everything it starts is stopped
# when it ends.
set -euo pipefail

ROUNDS=${ROUNDS:-5}
SIZES=${SIZES:-"1 4096 65536 1048576 4194304"}
[ -x bin/pingpong ] && [ -x bin/lamboot ] || {
	echo "$0: run from the repository after make build" >&2
	exit 2
}
work=$(mktemp -d /tmp/ofi-sbs.XXXXXX)
export LAM_MPI_SESSION_PREFIX=$work LAM_MPI_SESSION_SUFFIX=ofisbs
[ "$(id -u)" != 0 ] || export LAM_ALLOW_RUN_AS_ROOT=1
cleanup() {
	set +e
	bin/lamhalt >/dev/null 2>&1 || bin/lamwipe >/dev/null 2>&1
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
bin/lamboot -H >/dev/null 2>"$work/boot.err" || {
	cat "$work/boot.err" >&2
	exit 1
}

columns=("usysv" "ofi-shm" "tcp" "ofi-tcp")
ompi=false
if command -v mpicc.openmpi >/dev/null && command -v mpirun.openmpi >/dev/null &&
	mpicc.openmpi -O2 -o "$work/pp-ompi" bench/c/pingpong.c 2>"$work/ompi.err"; then
	ompi=true
	columns+=("ompi-shm" "ompi-tcp")
else
	echo "$0: no Open MPI (openmpi-bin, libopenmpi-dev): its columns are left out" >&2
fi
args() { # column
	case $1 in
	ofi-*)
		local p=${1#ofi-} v=""
		case $p in
		*-read) p=${p%-read} v="-ssi rpi_ofi_tagged 0" ;;
		*-pull) p=${p%-pull} v="-ssi rpi_ofi_tagged 1" ;;
		esac
		# ofi for every peer: on one node usysv would carry them.
		echo "-ssi rpi ofi -ssi rpi_ofi_provider $p -ssi rpi_ofi_onnode 1 $v ${OFI_ARGS:-}"
		;;
	*) echo "-ssi rpi $1" ;;
	esac
}
one() { # column size — one-way latency in µs ("" if the run failed)
	local iters=${ITERS:-$([ "$2" -le 65536 ] && echo 20000 || echo 500)}
	case $1 in
	ompi-*)
		OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 FI_PROVIDER=${1#ompi-} \
			timeout 300 mpirun.openmpi -np 2 --mca pml cm --mca mtl ofi --mca mtl_ofi_provider_exclude none "$work/pp-ompi" -min "$2" -max "$2" -iters "$iters" latency 2>/dev/null |
			grep -v '^#' | tail -1 | awk '{print $2}' || true
		;;
	*)
		# shellcheck disable=SC2046
		timeout 300 bin/mpirun $(args "$1") -np 2 bin/pingpong -min "$2" -max "$2" -iters "$iters" latency 2>/dev/null |
			grep -v '^#' | tail -1 | awk '{print $2}' || true
		;;
	esac
}

if [ -n "${OFI_PAIRS:-}" ]; then
	IFS=, read -ra pairs <<<"$OFI_PAIRS"
	columns=()
	head="| size"
	for pair in "${pairs[@]}"; do
		set -- $pair
		columns+=("$1" "$2")
		head="$head | $1 µs | $2 µs | $2 ÷ $1"
	done
	ompi=false
fi

for ((r = 1; r <= ROUNDS; r++)); do
	for s in $SIZES; do
		for c in "${columns[@]}"; do
			v=$(one "$c" "$s")
			echo "round $r: $c $s B: ${v:-failed} µs" >&2
			[ -z "$v" ] || echo "$r $s $c $v"
		done
	done
done >"$work/raw"

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) { print "-"; exit } m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.2f", m }'; }
if [ -z "${OFI_PAIRS:-}" ]; then
	pairs=("usysv ofi-shm" "tcp ofi-tcp")
	head="| size | usysv µs | ofi/shm µs | ofi/shm ÷ usysv | tcp µs | ofi/tcp µs | ofi/tcp ÷ tcp"
fi
if $ompi; then
	pairs+=("ompi-shm ofi-shm" "ompi-tcp ofi-tcp")
	head="$head | Open MPI ofi/shm µs | ofi/shm µs | ÷ Open MPI | Open MPI ofi/tcp µs | ofi/tcp µs | ÷ Open MPI"
fi
echo "$head |"
echo "$head |" | sed 's/[^|]*/---/g; s/^---//; s/---$//'
for s in $SIZES; do
	row="| $s"
	for pair in "${pairs[@]}"; do
		set -- $pair
		a=$(awk -v s="$s" -v c="$1" '$2 == s && $3 == c {print $4}' "$work/raw" | median)
		b=$(awk -v s="$s" -v c="$2" '$2 == s && $3 == c {print $4}' "$work/raw" | median)
		ratio=$(join <(awk -v s="$s" -v c="$1" '$2 == s && $3 == c {print $1, $4}' "$work/raw" | sort) \
			<(awk -v s="$s" -v c="$2" '$2 == s && $3 == c {print $1, $4}' "$work/raw" | sort) |
			awk '$2 > 0 {print $3 / $2}' | median)
		row="$row | $a | $b | $ratio"
	done
	echo "$row |"
done
echo
echo "($ROUNDS interleaved rounds; medians; ratios are medians of per-round ratios, above 1: ofi is slower)"
