/* fortran.h: what the Fortran bindings (fortran.c, fortran_special.c)
   share: the addresses mpif.h's common blocks give MPI_BOTTOM,
   MPI_IN_PLACE and the ignored statuses, and their C meaning. */
#ifndef LAMGO_FORTRAN_H
#define LAMGO_FORTRAN_H

#include <stddef.h>
#include "mpi.h"

/* gfortran's names of mpif.h's common blocks. */
extern MPI_Fint mpi_fortran_bottom_;
extern MPI_Fint mpi_fortran_in_place_;
extern MPI_Fint mpi_fortran_status_ignore_[6];
extern MPI_Fint mpi_fortran_statuses_ignore_[6];

/* The program's own copies of them (fortran_special.c): a Fortran
   executable allocates mpif.h's common blocks itself, and the library,
   which Go links -Bsymbolic, would otherwise see only its own. */
extern void *lamgo_f_bottom, *lamgo_f_in_place, *lamgo_f_status_ignore, *lamgo_f_statuses_ignore;

static inline void *lamgo_f2c_buf(void *p)
{
	if (p == (void *)&mpi_fortran_bottom_ || p == lamgo_f_bottom)
		return MPI_BOTTOM;
	if (p == (void *)&mpi_fortran_in_place_ || p == lamgo_f_in_place)
		return MPI_IN_PLACE;
	return p;
}

static inline MPI_Status *lamgo_f2c_status(MPI_Fint *p)
{
	if (p == mpi_fortran_status_ignore_ || p == mpi_fortran_statuses_ignore_ ||
	    (void *)p == lamgo_f_status_ignore || (void *)p == lamgo_f_statuses_ignore)
		return MPI_STATUS_IGNORE;
	return (MPI_Status *)p;
}

/* lamgo_f2c_string copies a blank-padded Fortran string of length n into
   a NUL-terminated C one of size max (trailing blanks dropped). */
void lamgo_f2c_string(const char *f, size_t n, char *c, size_t max);
/* lamgo_c2f_string copies a C string into a Fortran one of length n,
   padding with blanks. */
void lamgo_c2f_string(const char *c, char *f, size_t n);

#endif
