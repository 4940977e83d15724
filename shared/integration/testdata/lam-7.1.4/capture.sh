#!/bin/sh
# Records LAM 7.1.4's output for every case in cases.txt as the golden files
# <case>.stdout, <case>.stderr and <case>.rc beside this script, for
# lam717_golden_test.go (which never runs LAM).
#
# Needs the real LAM (Debian 12: apt-get install -y lam-runtime lam4-dev)
# and runs it as an unprivileged user (LAM refuses root): as root, give the
# user id to run as in LAMUSER (default 65534, nobody).
# The goldens were recorded with LAM 7.1.4-7+b1 (Debian bookworm) on
# 2026-11-25, on one node booted from the schema "localhost".
#
# Normalisation (norm below; the test applies the same rules to ours):
#   - the absolute paths of the programs become EXIT and NOINIT, the
#     scratch directory DIR;
#   - this host's name (a whole word) becomes HOST;
#   - an IPv4 address becomes ADDR;
#   - a process id (a number standing where LAM writes
#     a pid: "PID 123", "n0/123", "n0 123 ", "123 (n0)", "pid 123",
#     "process 123") becomes PID.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
user=${LAMUSER:-65534}
dir=$(mktemp -d /tmp/lamgolden.XXXXXX)
trap 'rm -rf "$dir"' EXIT
cp "$here/../noinit.c" "$here/../exitafterinit.c" "$dir"
mpicc.lam -o "$dir/NOINIT" "$dir/noinit.c"
mpicc.lam -o "$dir/EXIT" "$dir/exitafterinit.c"
echo localhost >"$dir/hosts"
# Debian names LAM's mpirun mpirun.lam; LAM's messages name argv[0].
mkdir "$dir/bin"
ln -s /usr/bin/mpirun.lam "$dir/bin/mpirun"
chown -R "$user:$user" "$dir"
host=$(hostname)

# asuser runs its arguments in $dir as $user, with LAM on PATH, without
# address-space randomisation (setarch -R: with it LAM 7.1.4's MPI_Init
# fails in most runs with "Unix errno: 14 Bad address").
asuser() {
	if [ "$(id -u)" = 0 ]; then
		setpriv --reuid="$user" --regid="$user" --clear-groups \
			env -i HOME="$dir" PATH="$dir/bin":/usr/bin:/bin LAM_MPI_SESSION_PREFIX="$dir" \
			setarch -R sh -c 'cd "$1" && shift && eval "$*"' sh "$dir" "$@"
	else
		env -i HOME="$dir" PATH="$dir/bin":/usr/bin:/bin LAM_MPI_SESSION_PREFIX="$dir" \
			setarch -R sh -c 'cd "$1" && shift && eval "$*"' sh "$dir" "$@"
	fi
}

norm() {
	sed -e "s#$dir/EXIT#EXIT#g" -e "s#$dir/NOINIT#NOINIT#g" -e "s#$dir#DIR#g" \
		-e "s#\\b$host\\b#HOST#g" \
		-e 's#[0-9]\{1,3\}\.[0-9]\{1,3\}\.[0-9]\{1,3\}\.[0-9]\{1,3\}#ADDR#g' \
		-e 's#PID [0-9][0-9]*#PID PID#g' -e 's#pid [0-9][0-9]*#pid PID#g' \
		-e 's#process [0-9][0-9]*#process PID#g' \
		-e 's#\(n[0-9][0-9]*\)/[0-9][0-9]*#\1/PID#g' \
		-e 's#\(n[0-9][0-9]*\) [0-9][0-9]* #\1 PID #g' \
		-e 's#^[0-9][0-9]* (n#PID (n#'
}

asuser lamboot -v hosts >"$dir/boot.out" 2>&1
trap 'asuser lamhalt >/dev/null 2>&1 || true; asuser lamwipe hosts >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT
grep -v '^#' "$here/cases.txt" | while IFS='|' read -r name cmd; do
	[ -n "$name" ] || continue
	cmd=$(echo "$cmd" | sed -e "s#EXIT#$dir/EXIT#g" -e "s#NOINIT#$dir/NOINIT#g")
	set +e
	asuser "$cmd" </dev/null >"$dir/out" 2>"$dir/err"
	echo $? >"$here/$name.rc"
	set -e
	norm <"$dir/out" >"$here/$name.stdout"
	norm <"$dir/err" >"$here/$name.stderr"
done
