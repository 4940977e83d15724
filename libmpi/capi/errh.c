/* The error handler trampoline: Go cannot call a C function pointer, so
   it calls this, which calls the user's handler as MPI says, with the
   communicator's handle and the error code by address. LAM passed two
   more arguments, which LAM-era handlers may read with va_arg: an errno
   value (0 here) and a message. */
#include "capi.h"

void lamgo_call_errhandler(MPI_Comm_errhandler_function *fn, MPI_Comm comm, int code, const char *msg)
{
	fn(&comm, &code, 0, msg);
}
