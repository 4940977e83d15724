#!/bin/bash
# side-by-side.sh: ping-pong latency of LAM/Go against Open MPI and LAM
# 7.1.4 on this machine, in one interleaved run (A B C A B C ...), printed
# as a Markdown table of medians with the ratio LAM/Go / Open MPI (below 1
# is better).
#
#   bench/side-by-side.sh tcp     LAM/Go tcp, Open MPI tcp, LAM 7.1.4 tcp
#   bench/side-by-side.sh shm     LAM/Go usysv and sysv, Open MPI vader,
#                                 LAM 7.1.4 usysv and sysv
#   bench/side-by-side.sh lamd    LAM/Go lamd and LAM 7.1.4 lamd (messages
#                                 through the daemons; Open MPI has none:
#                                 the ratio is to LAM 7.1.4)
#   bench/side-by-side.sh coll    collectives on NPS (default "2 3 4 8")
#                                 processes of this host: OPS (default
#                                 Barrier, Allreduce of float32, Bcast,
#                                 Gather, Scatter, Allgather, Alltoall) at
#                                 CSIZES bytes (default "0 8 4096 65536
#                                 1048576 4194304"; per rank's block for
#                                 Gather, Scatter, Allgather and Alltoall)
#                                 (bench/coll and bench/c/coll.c): LAM/Go
#                                 with its default coll modules (shmem on
#                                 one host) and with lam_basic (-ssi coll
#                                 lam_basic,smp), over usysv, and Open MPI
#                                 over vader; COLL_BASE=REPO adds REPO's
#                                 build (default modules, "LAM/Go base",
#                                 and lam_basic, "base lam_basic": before/
#                                 after columns, run on this build's lamd);
#                                 COLL_EXTRA=1 adds LAM 7.1.4 and the
#                                 LAM/Go C columns; COLL_SHAPES="SEGSxPOOL
#                                 ..." a LAM/Go column per shmem pool
#                                 shape (num_segments x message_pool_size);
#                                 COLL_SSI="n=v[:n=v...] ..." a LAM/Go
#                                 column per set of -ssi parameters;
#                                 COLL_BASIC=0 leaves the lam_basic
#                                 columns out. The ratio is the
#                                 median of the per-round ratios LAM/Go
#                                 default / Open MPI.
#
# Each LAM/Go column comes twice when make build made LAM/Go's C interface
# (lib/libmpi.so): the Go program, and its C twin from bench/c built with
# LAM/Go's own mpicc ("LAM/Go C").
#
# PIN=1 binds LAM/Go's ranks one to a processor, as Open MPI binds its
# own by default when there are no more ranks than processors (and not
# otherwise, nor here): rank r to the r-th processor the script may use,
# through a wrapper that reads LAMRANK and LAMWORLD. Without it, a rank
# that the scheduler puts beside another on one processor (the machine
# busy with anything else) makes that run 2-3x slower at 64 KiB and more,
# which a median of few rounds does not always hide.
#
# MEDIAN=1 (coll) has every program time each operation and report the
# median (its average over the ranks) instead of the mean: steadier when
# other processes share the processors, as an interrupted operation moves
# the mean, not the median.
#
# SLOWEST=1 (coll) reports the slowest rank's time ("# slowest" in the
# programs' output) instead of the average over the ranks: the loops have
# no barrier between operations, and a rank that only sends (a Gather's,
# a Reduce's non-roots; an Ibcast's root) may run ahead by as many
# operations as the MPI buffers; the slowest rank's time is the
# collective's rate. A base build older than that line shows "-".
#
# ROUNDS (default 3) rounds; ITERS (default 1000) iterations for small
# messages (a tenth for those above 64 KiB); SIZES (default "1 4096 65536
# 1048576 4194304") the sizes shown. Run from the repository after
# `make build`, as root. Needs Open MPI (openmpi-bin libopenmpi-dev) and,
# for the LAM 7.1.4 columns, lam-runtime and lam4-dev and an unprivileged
# user LAMUSER (default lamtest): LAM refuses to run as root. A column
# whose MPI is missing is left out with a note. Everything the script
# starts is stopped when it ends, also on failure or interrupt.
set -euo pipefail

set_name=${1:-}
case "$set_name" in
tcp | shm | lamd | coll) ;;
*)
	echo "usage: $0 tcp|shm|lamd|coll" >&2
	exit 2
	;;
esac
ROUNDS=${ROUNDS:-3}
ITERS=${ITERS:-1000}
SIZES=${SIZES:-"1 4096 65536 1048576 4194304"}
NP=${NP:-4}
LAMUSER=${LAMUSER:-lamtest}
repo=$(cd "$(dirname "$0")/.." && pwd)
max=0
for s in $SIZES; do [ "$s" -gt "$max" ] && max=$s; done

work=$(mktemp -d /tmp/side-by-side.XXXXXX)
chmod 755 "$work"
export LAM_MPI_SESSION_PREFIX=$work/sessions
mkdir -p "$LAM_MPI_SESSION_PREFIX" "$work/out"
ours_up=false
lam_up=false
cleanup() {
	set +e
	if $ours_up; then "$repo/bin/lamhalt" >/dev/null 2>&1 || "$repo/bin/lamwipe" >/dev/null 2>&1; fi
	if $lam_up; then as_lamuser 'lamhalt >/dev/null 2>&1 || lamwipe >/dev/null 2>&1'; fi
	[ -n "${KEEP:-}" ] || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# LAM 7.1.4 runs without address-space randomisation (setarch -R, which
# its lamd and the processes it starts inherit): with it, MPI_Init fails
# in most runs here with "Unix errno: 14 Bad address".
as_lamuser() {
	setpriv --reuid="$LAMUSER" --regid="$LAMUSER" --clear-groups \
		env -i HOME="$work/lamhome" PATH=/usr/bin:/bin TMPDIR=/tmp setarch -R sh -c "cd ~ && $1"
}

note() { echo "note: $*" >&2; }

# The columns: a name and the command that runs it.
names=()
cmds=()
add() {
	names+=("$1")
	cmds+=("$2")
}

[ -x "$repo/bin/pingpong" ] && [ -x "$repo/bin/coll" ] || {
	echo "$0: build first (make build)" >&2
	exit 1
}
"$repo/bin/lamboot" -H >/dev/null 2>"$work/lamboot.err" || {
	echo "$0: lamboot failed (as root, export LAM_ALLOW_RUN_AS_ROOT=1):" >&2
	cat "$work/lamboot.err" >&2
	exit 1
}
ours_up=true

# pin: the wrapper PIN=1 puts before LAM/Go's programs (empty otherwise).
pin=
if [ "${PIN:-0}" = 1 ]; then
	cat >"$work/pin.sh" <<'PIN'
#!/bin/sh
# Bind this rank to one of the processors it may use when the job has no
# more ranks than those (LAMRANK, LAMWORLD: set by LAM/Go's mpirun).
cpus=$(taskset -pc $$ | sed 's/.*: //' | tr ',' '\n' |
	awk -F- '{ if (NF == 2) for (i = $1; i <= $2; i++) print i; else print $1 }')
n=$(echo "$cpus" | wc -l)
if [ -n "$LAMRANK" ] && [ "${LAMWORLD:-0}" -le "$n" ]; then
	exec taskset -c "$(echo "$cpus" | sed -n "$((LAMRANK + 1))p")" "$@"
fi
exec "$@"
PIN
	chmod 755 "$work/pin.sh"
	pin="$work/pin.sh "
fi
ours() { add "LAM/Go $1" "$repo/bin/mpirun -ssi rpi $1 -np 2 $pin$repo/bin/pingpong -max $max -iters $ITERS latency"; }

# The C twins built with LAM/Go's own mpicc (its C interface), when
# make build made lib/libmpi.so: columns "LAM/Go C ...".
ourc=false
if [ -x "$repo/bin/mpicc" ] && [ -f "$repo/lib/libmpi.so" ] && [ -f "$repo/include/mpi.h" ] &&
	"$repo/bin/mpicc" -O2 -o "$work/pp-lamgo" "$repo/bench/c/pingpong.c" 2>"$work/mpicc.err" &&
	"$repo/bin/mpicc" -O2 -o "$work/coll-lamgo" "$repo/bench/c/coll.c" 2>>"$work/mpicc.err"; then
	ourc=true
else
	note "bench/c does not build with LAM/Go's mpicc (make build makes lib/libmpi.so): its C columns are left out ($(grep -m1 -i 'error' "$work/mpicc.err" 2>/dev/null || true))"
fi
oursc() { if $ourc; then add "LAM/Go C $1" "$repo/bin/mpirun -ssi rpi $1 -np 2 $pin$work/pp-lamgo -max $max -iters $ITERS latency"; fi; }

ompi=false
if command -v mpicc >/dev/null && command -v mpirun >/dev/null && mpirun --version 2>&1 | grep -q "Open MPI"; then
	mpicc -O2 -o "$work/pp-ompi" "$repo/bench/c/pingpong.c"
	mpicc -O2 -o "$work/coll-ompi" "$repo/bench/c/coll.c"
	ompi=true
else
	note "Open MPI is not installed (apt-get install openmpi-bin libopenmpi-dev): its columns are left out"
fi
ompi_env="OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
ompi_run="$ompi_env mpirun -np 2 --mca pml ob1"

lam=false
if command -v mpicc.lam >/dev/null && command -v mpirun.lam >/dev/null && id "$LAMUSER" >/dev/null 2>&1; then
	mpicc.lam -O2 -o "$work/pp-lam" "$repo/bench/c/pingpong.c"
	mpicc.lam -O2 -o "$work/coll-lam" "$repo/bench/c/coll.c"
	chmod 755 "$work/pp-lam" "$work/coll-lam"
	mkdir -p "$work/lamhome"
	chown "$LAMUSER:" "$work/lamhome"
	if as_lamuser 'lamboot >boot.log 2>&1'; then
		lam=true
		lam_up=true
	else
		note "LAM 7.1.4 did not boot as $LAMUSER: its columns are left out"
	fi
else
	note "LAM 7.1.4 (lam-runtime lam4-dev) or the user $LAMUSER is missing: its columns are left out"
fi
lamcol() { add "LAM 7.1.4 $1" "as_lamuser 'mpirun.lam -ssi rpi $1 -np 2 $work/pp-lam $max $ITERS'"; }

case $set_name in
tcp)
	ours tcp
	oursc tcp
	$ompi && add "Open MPI tcp" "$ompi_run --mca btl tcp,self --mca btl_tcp_if_include lo $work/pp-ompi $max $ITERS"
	$lam && lamcol tcp
	;;
shm)
	for m in usysv sysv; do
		if "$repo/bin/laminfo" -parsable -param rpi "$m" 2>/dev/null | grep -q "rpi_${m}_priority"; then
			ours "$m"
			oursc "$m"
		else
			note "this LAM/Go has no rpi module $m: its column is left out"
		fi
	done
	$ompi && add "Open MPI vader" "$ompi_run --mca btl vader,self $work/pp-ompi $max $ITERS"
	if $lam; then
		lamcol usysv
		lamcol sysv
	fi
	;;
lamd)
	ours lamd
	oursc lamd
	$lam && lamcol lamd
	;;
coll)
	# NP, OP, SIZES and ITERS are replaced in each run.
	run="mpirun -ssi rpi usysv -np NP"
	add "LAM/Go" "$repo/bin/$run $pin$repo/bin/coll -iters ITERS MEDFLAG-sizes SIZES OP"
	if [ "${COLL_BASIC:-1}" = 1 ]; then
		add "LAM/Go lam_basic" "$repo/bin/$run -ssi coll lam_basic,smp $pin$repo/bin/coll -iters ITERS MEDFLAG-sizes SIZES OP"
	fi
	# COLL_SHAPES="SEGSxPOOL ...": a LAM/Go column per shmem pool shape
	# (coll_base_shmem_num_segments buffers in a pool of
	# coll_base_shmem_message_pool_size bytes), beside the default's.
	for shape in ${COLL_SHAPES:-}; do
		segs=${shape%x*} pool=${shape#*x}
		add "LAM/Go ${segs}x$((pool / segs / 1024))K" "$repo/bin/$run -ssi coll_base_shmem_num_segments $segs -ssi coll_base_shmem_message_pool_size $pool $pin$repo/bin/coll -iters ITERS MEDFLAG-sizes SIZES OP"
	done
	# COLL_SSI="name=value[:name=value...] ...": a LAM/Go column per
	# setting, with those -ssi parameters (e.g.
	# coll_base_allreduce_direct=0:coll=lam_basic,smp).
	for set in ${COLL_SSI:-}; do
		args=
		IFS=: read -ra kvs <<<"$set"
		for kv in "${kvs[@]}"; do args="$args-ssi ${kv%%=*} ${kv#*=} "; done
		add "LAM/Go $set" "$repo/bin/$run $args$pin$repo/bin/coll -iters ITERS MEDFLAG-sizes SIZES OP"
	done
	if [ -n "${COLL_BASE:-}" ]; then
		# COLL_BASE=<another checkout, built>: its bench/coll with its
		# default modules, and its lam_basic, beside ours (before/after
		# tables; its lamd protocol must be this one's).
		add "LAM/Go base" "$repo/bin/$run $pin$COLL_BASE/bin/coll -iters ITERS MEDFLAG-sizes SIZES OP"
		if [ "${COLL_BASIC:-1}" = 1 ]; then
			add "base lam_basic" "$COLL_BASE/bin/$run -ssi coll lam_basic,smp $pin$COLL_BASE/bin/coll -iters ITERS MEDFLAG-sizes SIZES OP"
		fi
	fi
	$ompi && add "Open MPI" "$ompi_env mpirun -np NP --oversubscribe --mca btl vader,self $work/coll-ompi -iters ITERS MEDFLAG-sizes SIZES OP"
	if [ "${COLL_EXTRA:-0}" = 1 ]; then
		$lam && add "LAM 7.1.4" "as_lamuser 'mpirun.lam -ssi rpi usysv -np NP $work/coll-lam -iters ITERS MEDFLAG-sizes SIZES OP'"
		$ourc && add "LAM/Go C" "$repo/bin/$run $pin$work/coll-lamgo -iters ITERS MEDFLAG-sizes SIZES OP"
	fi
	;;
esac

if [ "$set_name" = coll ]; then
	NPS=${NPS:-"2 3 4 8"}
	OPS=${OPS:-"barrier allreduce bcast gather scatter allgather alltoall"}
	CSIZES=${CSIZES:-"0 8 4096 65536 1048576 4194304"}
	list=${CSIZES// /,}
	medflag=
	if [ "${MEDIAN:-0}" = 1 ]; then medflag="-median "; fi
	for ((r = 1; r <= ROUNDS; r++)); do
		for np in $NPS; do
			for op in $OPS; do
				for i in "${!names[@]}"; do
					cmd=${cmds[$i]//ITERS/$ITERS}
					cmd=${cmd//SIZES/$list}
					cmd=${cmd//MEDFLAG/$medflag}
					cmd=${cmd//NP/$np}
					if ! eval "${cmd//OP/$op}" >"$work/out/$i.$np.$op.$r" 2>"$work/out/$i.$np.$op.$r.err"; then
						note "${names[$i]} $op on $np failed in round $r: $(tail -n 3 "$work/out/$i.$np.$op.$r.err" | tr '\n' ' ')"
					fi
				done
			done
		done
	done
	# value <column> <np> <op> <round> <size>
	if [ "${SLOWEST:-0}" = 1 ]; then
		value() { awk -v s="$5" '$1 == "#" && $2 == "slowest" && $3 == s { print $4 }' "$work/out/$1.$2.$3.$4" 2>/dev/null; }
	else
		value() { awk -v s="$5" '$1 == s && NF == 2 { print $2 }' "$work/out/$1.$2.$3.$4" 2>/dev/null; }
	fi
	med() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
	ref=-1
	for i in "${!names[@]}"; do
		[ "${names[$i]}" = "Open MPI" ] && ref=$i
	done
	what="µs per operation (OSU's average over the ranks)"
	if [ -n "$medflag" ]; then what="the median operation's µs (averaged over the ranks)"; fi
	if [ "${SLOWEST:-0}" = 1 ]; then what="$what, the slowest rank's"; fi
	echo "Collectives on processes of this host, $what, medians of $ROUNDS interleaved rounds; ratio = median of the per-round ratios LAM/Go / Open MPI (lam_basic / Open MPI and lam_basic / base likewise)."
	echo
	header="| np | operation | bytes |"
	rule="|---|---|---|"
	for i in "${!names[@]}"; do
		header="$header ${names[$i]} |"
		rule="$rule---|"
	done
	# ratio_of A B: the median of the per-round ratios column A / column B.
	ratio_of() {
		local r a b
		for ((r = 1; r <= ROUNDS; r++)); do
			a=$(value "$1" "$np" "$op" "$r" "$s")
			b=$(value "$2" "$np" "$op" "$r" "$s")
			[ -n "$a" ] && [ -n "$b" ] && awk -v a="$a" -v b="$b" 'BEGIN { if (b > 0) printf "%.4f\n", a / b }'
		done | med | awk '$1 != "-" { printf "%.2f", $1; next } { print }'
	}
	base=-1 basic=-1
	for i in "${!names[@]}"; do
		[ "${names[$i]}" = "base lam_basic" ] && base=$i
		[ "${names[$i]}" = "LAM/Go lam_basic" ] && basic=$i
	done
	header="$header ratio | lam_basic / Open MPI |"
	rule="$rule---|---|"
	if [ "$base" -ge 0 ]; then
		header="$header lam_basic / base |"
		rule="$rule---|"
	fi
	echo "$header"
	echo "$rule"

	for np in $NPS; do
		for op in $OPS; do
			sizes=$CSIZES
			case $op in barrier | ibarrier) sizes=0 ;; esac
			for s in $sizes; do
				line="| $np | $op | $s |"
				for i in "${!names[@]}"; do
					line="$line $(for ((r = 1; r <= ROUNDS; r++)); do value "$i" "$np" "$op" "$r" "$s"; done | med) |"
				done
				ratio=-
				if [ "$ref" -ge 0 ]; then
					ratio=$(for ((r = 1; r <= ROUNDS; r++)); do
						a=$(value 0 "$np" "$op" "$r" "$s")
						b=$(value "$ref" "$np" "$op" "$r" "$s")
						[ -n "$a" ] && [ -n "$b" ] && awk -v a="$a" -v b="$b" 'BEGIN { if (b > 0) printf "%.4f\n", a / b }'
					done | med)
					[ "$ratio" != - ] && ratio=$(printf "%.2f" "$ratio")
				fi
				line="$line $ratio |"
				if [ "$ref" -ge 0 ] && [ "$basic" -ge 0 ]; then line="$line $(ratio_of "$basic" "$ref") |"; else line="$line - |"; fi
				if [ "$base" -ge 0 ]; then
					if [ "$basic" -ge 0 ]; then line="$line $(ratio_of "$basic" "$base") |"; else line="$line - |"; fi
				fi
				echo "$line"
			done
		done
	done
	exit 0
fi

for ((r = 1; r <= ROUNDS; r++)); do
	for i in "${!names[@]}"; do
		if ! eval "${cmds[$i]}" >"$work/out/$i.$r" 2>"$work/out/$i.$r.err"; then
			note "${names[$i]} failed in round $r: $(tail -n 3 "$work/out/$i.$r.err" | tr '\n' ' ')"
		fi
	done
done

# median <column> <size>: the median over the rounds, or "-".
median() {
	cat "$work/out/$1".[0-9]* 2>/dev/null | awk -v s="$2" '$1 == s { print $2 }' | sort -g |
		awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

ref=-1
for i in "${!names[@]}"; do
	case ${names[$i]} in "Open MPI"*) ref=$i ;; esac
done
if [ "$ref" -lt 0 ]; then # lamd: LAM 7.1.4 is the peer
	for i in "${!names[@]}"; do
		case ${names[$i]} in "LAM 7.1.4"*) ref=$i ;; esac
	done
fi
header="| size (bytes) |"
rule="|---|"
for i in "${!names[@]}"; do
	header="$header ${names[$i]} |"
	rule="$rule---|"
	if [ "$ref" -ge 0 ] && [[ ${names[$i]} == LAM/Go* ]]; then
		header="$header ratio |"
		rule="$rule---|"
	fi
done
echo "One-way latency in µs (half a round trip), median of $ROUNDS interleaved rounds; ratio = LAM/Go / ${names[$ref]:-Open MPI}."
echo
echo "$header"
echo "$rule"
for s in $SIZES; do
	line="| $s |"
	refv=-
	[ "$ref" -ge 0 ] && refv=$(median "$ref" "$s")
	for i in "${!names[@]}"; do
		v=$(median "$i" "$s")
		line="$line $v |"
		if [ "$ref" -ge 0 ] && [[ ${names[$i]} == LAM/Go* ]]; then
			line="$line $(awk -v a="$v" -v b="$refv" 'BEGIN { if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.2f", a / b }') |"
		fi
	done
	echo "$line"
done
