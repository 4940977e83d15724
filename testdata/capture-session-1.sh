cd ~
lamboot -v > boot.out 2>&1; echo "boot rc=$?"
cat boot.out
echo "--- lamnodes"; lamnodes; echo rc=$?
echo "--- lamnodes -i"; lamnodes -i
echo "--- lamnodes -n -c"; lamnodes -n -c
echo "--- lamnodes N C n0 n5 c3"; lamnodes N C n0 n5 c3; echo rc=$?
echo "--- tping -c 2 N"; tping -c 2 -d 0 N; echo rc=$?
echo "--- tping -c 2 h n0"; tping -c 2 -d 0 h n0; echo rc=$?
echo "--- tping n5"; tping -c 1 n5; echo rc=$?
echo "--- tping -l 10000 -c 1 N"; tping -l 10000 -c 1 -d 0 N; echo rc=$?
echo "--- lamclean -v"; lamclean -v | cat -A; echo rc=$?
echo "--- lamexec N hostname"; lamexec N hostname; echo rc=$?
echo "--- lamexec -v N true"; lamexec -v N true; echo rc=$?
echo "--- lamexec N false"; lamexec N false; echo rc=$?
echo "--- lamexec N nosuchprog"; lamexec N nosuchprog; echo rc=$?
echo "--- lamexec n5 true"; lamexec n5 true; echo rc=$?
echo "--- lamexec N sh -c 'kill -9 \$\$'"; lamexec N sh -c 'kill -9 $$'; echo rc=$?
echo "--- lamexec -np 2 echo hi"; lamexec -np 2 echo hi; echo rc=$?
echo "--- lamshrink 0"; lamshrink 0; echo rc=$?
echo "--- lamgrow localhost"; lamgrow localhost; echo rc=$?
echo "--- lamhalt -v"; lamhalt -v; echo rc=$?
echo "--- lamnodes (no lamd)"; lamnodes; echo rc=$?
echo "--- tping (no lamd)"; tping -c 1 N; echo rc=$?
echo "--- lamclean (no lamd)"; lamclean; echo rc=$?
echo "--- lamexec (no lamd)"; lamexec N true; echo rc=$?
echo "--- lamshrink (no lamd)"; lamshrink 1; echo rc=$?
echo "--- lamgrow (no lamd)"; lamgrow foo; echo rc=$?
