#!/bin/sh
# validate.sh: build and run the C test suite (suite.txt) with another
# MPI's wrapper compiler and mpirun, to check that the tests test MPI's
# semantics and not one implementation's. With Open MPI:
#
#   apt-get install -y openmpi-bin libopenmpi-dev
#   ctest/validate.sh            (MPICC=mpicc MPIRUN="mpirun --oversubscribe")
#
# Open MPI 4 hides the MPI-1 functions MPI-3 removed (MPI_Errhandler_create
# and the like) unless OMPI_OMIT_MPI1_COMPAT_DECLS=0; its library still
# has them. Then the Fortran singletons of libmpi/capi/testdata/f77 that
# test MPI's semantics. Prints one line per run and exits 1 if any failed.
set -eu
dir=$(cd "$(dirname "$0")" && pwd)
MPICC=${MPICC:-mpicc}
MPIF77=${MPIF77:-mpif77}
MPIRUN=${MPIRUN:-mpirun --oversubscribe}
CFLAGS=${CFLAGS:--DOMPI_OMIT_MPI1_COMPAT_DECLS=0 -Wall -Wno-deprecated-declarations}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck disable=SC2086
$MPICC $CFLAGS -shared -fPIC -o "$work/libpmpicount.so" "$dir/pmpi_count.c"
bad=0
grep -v '^#' "$dir/suite.txt" | while read -r prog np want args; do
	[ -n "$prog" ] || continue
	if [ ! -x "$work/$prog" ]; then
		if [ -f "$dir/$prog.f" ]; then
			$MPIF77 -fallow-argument-mismatch -o "$work/$prog" "$dir/$prog.f"
		else
			extra=
			[ "$prog" = pmpi ] && extra="-L$work -lpmpicount -Wl,-rpath,$work"
			# shellcheck disable=SC2086
			$MPICC $CFLAGS -o "$work/$prog" "$dir/$prog.c" $extra
		fi
	fi
	rc=0
	# shellcheck disable=SC2086
	timeout 120 $MPIRUN -np "$np" "$work/$prog" $args </dev/null >"$work/out" 2>"$work/err" || rc=$?
	ok=true
	[ "$rc" = "$want" ] || ok=false
	grep -q '^FAIL' "$work/out" && ok=false
	[ "$want" = 0 ] && ! grep -q "^PASS $prog: " "$work/out" && ok=false
	if $ok; then
		echo "ok   $prog -np $np (exit $rc)"
	else
		echo "FAIL $prog -np $np: exit $rc, want $want"
		sed 's/^/     /' "$work/out" "$work/err" | head -20
		echo 1 >"$work/bad"
	fi
done
# The library's Fortran singletons that test MPI's semantics (not
# faddr.f, which checks LAM/Go's MPI_ADDRESS error where Open MPI
# truncates, nor fenv.f, whose MPI_WTIME > 0 check Open MPI's clock
# origin fails).
f77dir="$dir/../libmpi/capi/testdata/f77"
for prog in fattr fcomm fcover fcover2 fdtype fdtype1 fgreq fmisc fp2p; do
	$MPIF77 -fallow-argument-mismatch -o "$work/$prog" "$f77dir/$prog.f"
	rc=0
	# shellcheck disable=SC2086
	timeout 120 $MPIRUN -np 1 "$work/$prog" </dev/null >"$work/out" 2>"$work/err" || rc=$?
	if [ "$rc" = 0 ] && grep -q "ok $prog" "$work/out" && ! grep -q FAIL "$work/out"; then
		echo "ok   testdata/f77/$prog -np 1"
	else
		echo "FAIL testdata/f77/$prog -np 1: exit $rc"
		sed 's/^/     /' "$work/out" "$work/err" | head -20
		echo 1 >"$work/bad"
	fi
done
[ ! -f "$work/bad" ]
