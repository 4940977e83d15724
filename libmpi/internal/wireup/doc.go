// Package wireup starts an MPI process's part of a job: it reaches the
// local lamd, chooses the rpi module, tells mpirun where this process can
// be reached, learns where every other process is, connects to them and
// builds the core engine over the links. A process started without
// mpirun becomes a world of one.
package wireup
