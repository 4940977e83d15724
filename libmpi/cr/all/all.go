// Package all links every cr module this project implements. A binary
// that must know every cr module (laminfo, and the programs that select
// one) imports it for its side effects:
//
//	import _ "github.com/lamgo/lam/libmpi/cr/all"
//
// A module is added here, by a blank import, only once it works; none is
// listed that cannot run.
package all

import _ "github.com/lamgo/lam/libmpi/cr/self" // application-level checkpoints (-ssi cr self)
