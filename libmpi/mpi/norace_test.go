//go:build !race

package mpi_test

const race = false
