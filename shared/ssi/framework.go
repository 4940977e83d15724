package ssi

// Framework names a kind of module. The names are LAM's.
type Framework string

// The frameworks. Base is not a framework of modules: it holds the
// parameters of the SSI core itself, such as "verbose".
const (
	Base Framework = "base"
	Boot Framework = "boot"
	Coll Framework = "coll"
	RPI  Framework = "rpi"
	CR   Framework = "cr"
)

// Frameworks lists the module frameworks in the order laminfo shows their
// modules: boot, coll, rpi, cr.
var Frameworks = []Framework{Boot, Coll, RPI, CR}

// paramOrder is the order laminfo lists parameters in: base first, then
// boot, rpi, coll, cr (LAM's registration order).
var paramOrder = []Framework{Base, Boot, RPI, Coll, CR}

// APIVersion is the version of each framework's module interface. A module
// must be built against a compatible one (same major.minor).
var APIVersion = map[Framework]Version{
	Boot: {Major: 1, Minor: 1},
	Coll: {Major: 1, Minor: 1},
	RPI:  {Major: 1, Minor: 1},
	CR:   {Major: 1, Minor: 0},
}

// Known reports whether f names a framework of modules.
func (f Framework) Known() bool {
	_, ok := APIVersion[f]
	return ok
}
