// Package ssi is the System Services Interface core: the frameworks
// (boot, rpi, coll, cr), the registry of modules and their parameters,
// parameter resolution and module selection.
//
// A module registers itself from its package's init with Register. A
// binary chooses which modules it carries by importing their packages.
// Every parameter has a full name <type>_<module>_<name> (for example
// rpi_tcp_short) and is resolved, in order, from the command line's
// "-ssi key value" arguments, from the environment variable
// LAM_MPI_SSI_<key>, and from the registered default.
//
// Select queries every module of a framework for its priority (0–100; a
// negative priority or an error means the module cannot run here), applies
// the <type>_<module>_priority override, honours a restriction to named
// modules ("-ssi rpi tcp,usysv"), and picks the highest priority. Ties break
// deterministically, as LAM 7.1.4 does: the name that sorts last wins, then
// the higher module version.
package ssi
