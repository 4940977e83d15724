cd ~
lamboot > /dev/null 2>&1
echo "--- lamshrink n0"; lamshrink n0; echo rc=$?
lamboot > /dev/null 2>&1
echo "--- lamshrink n5"; lamshrink n5; echo rc=$?
echo "--- lamnodes bogus"; lamnodes bogus; echo rc=$?
echo "--- lamnodes h o"; lamnodes h o; echo rc=$?
echo "--- tping (no where)"; tping; echo rc=$?
echo "--- tping -c 1 -v N"; tping -c 1 -v N; echo rc=$?
echo "--- lamclean"; lamclean; echo rc=$?
echo "--- lamexec -nw N sleep 1"; lamexec -nw N sleep 1; echo rc=$?
echo "--- lamexec (no args)"; lamexec; echo rc=$?
echo "--- lamexec N sh -c 'echo out; echo err >&2; exit 3'"; lamexec N sh -c 'echo out; echo err >&2; exit 3'; echo rc=$?
echo "--- lamexec -x FOO=1 -x BAR=2 N env"; lamexec -x FOO=1 -x BAR=2 N env | grep -e FOO -e BAR; 
echo "--- lamhalt -d"; lamhalt -d; echo rc=$?
echo "--- lamhalt (no lamd)"; lamhalt; echo rc=$?
