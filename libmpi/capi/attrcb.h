/* attrcb.h: the C side of attribute caching (attrcb.c), seen by attr.go. */
#ifndef LAMGO_ATTRCB_H
#define LAMGO_ATTRCB_H

#include <stdint.h>
#include "mpi.h"

/* Trampolines: Go cannot call a C function pointer, so it calls these
   with the user's copy or delete function (f) and the arguments. Values
   and extra_state travel as uintptr_t, the way Go keeps them. */
int lamgo_comm_copy(void *f, MPI_Comm old, int keyval, uintptr_t extra, uintptr_t in, uintptr_t *out, int *flag);
int lamgo_comm_delete(void *f, MPI_Comm comm, int keyval, uintptr_t val, uintptr_t extra);
int lamgo_type_copy(void *f, MPI_Datatype old, int keyval, uintptr_t extra, uintptr_t in, uintptr_t *out, int *flag);
int lamgo_type_delete(void *f, MPI_Datatype type, int keyval, uintptr_t val, uintptr_t extra);

/* The ints the predefined attributes point to (indexed by keyval). */
#define LAMGO_PREDEFINED_KEYVALS 64 /* user keyvals are numbered from here */
extern int lamgo_attr_ints[LAMGO_PREDEFINED_KEYVALS];

#endif
