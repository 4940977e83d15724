/* usrop.c: the trampoline through which Go calls a user's reduction
   function (MPI_Op_create): Go cannot call a C function pointer. */
#include "capi.h"

void lamgo_call_user_fn(MPI_User_function *fn, void *in, void *inout, int len, MPI_Datatype datatype)
{
	fn(in, inout, &len, &datatype);
}
