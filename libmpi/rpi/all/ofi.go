package all

// The ofi module is linked into every build, without a build tag of its
// own: its cgo half is compiled only with the tag ofi (where libfabric
// is installed), and without it the module declines at run time ("this
// build has no libfabric"). Registering it in every build keeps laminfo,
// the generated parameter list and lamssi(7) the same whichever way the
// tree was built.
import _ "github.com/lamgo/lam/libmpi/rpi/ofi" // libfabric (OFI) fabrics: tcp, shm, verbs, EFA, ...
