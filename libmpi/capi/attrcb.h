/* attrcb.h: the C side of attribute caching (attrcb.c), seen by attr.go. */
#ifndef LAMGO_ATTRCB_H
#define LAMGO_ATTRCB_H

#include <stdint.h>
#include "mpi.h"

/* The language of a keyval's copy and delete functions: C's, or Fortran
   SUBROUTINEs taking every argument by reference and the error code
   last, whose attribute values and EXTRA_STATE are INTEGERs (MPI-1's
   MPI_KEYVAL_CREATE) or INTEGER(KIND=MPI_ADDRESS_KIND)s (MPI-2's
   MPI_COMM_CREATE_KEYVAL and MPI_TYPE_CREATE_KEYVAL). */
enum { LAMGO_LANG_C, LAMGO_LANG_F77, LAMGO_LANG_F90 };

/* Trampolines: Go cannot call a C function pointer, so it calls these
   with the user's copy or delete function (f), its language and the
   arguments. Values and extra_state travel as uintptr_t, the way Go
   keeps them; a Fortran INTEGER value is kept sign-extended. */
int lamgo_comm_copy(void *f, int lang, MPI_Comm old, int keyval, uintptr_t extra, uintptr_t in, uintptr_t *out, int *flag);
int lamgo_comm_delete(void *f, int lang, MPI_Comm comm, int keyval, uintptr_t val, uintptr_t extra);
int lamgo_type_copy(void *f, int lang, MPI_Datatype old, int keyval, uintptr_t extra, uintptr_t in, uintptr_t *out, int *flag);
int lamgo_type_delete(void *f, int lang, MPI_Datatype type, int keyval, uintptr_t val, uintptr_t extra);

/* The ints the predefined attributes point to (indexed by keyval). */
#define LAMGO_PREDEFINED_KEYVALS 64 /* user keyvals are numbered from here */
extern int lamgo_attr_ints[LAMGO_PREDEFINED_KEYVALS];

#endif
