/* cr.c: the C side of checkpoint/restart for C programs (cr.go). */

#define _GNU_SOURCE
#include <dlfcn.h>
#include "mpi.h"
#include "mpil_cr.h"
#include "_cgo_export.h"

/* lamgo_cr_lookup finds a function of the program by name (NULL: none). */
void *lamgo_cr_lookup(const char *name)
{
	return dlsym(RTLD_DEFAULT, name);
}

/* lamgo_cr_call calls one of the program's checkpoint functions. */
void lamgo_cr_call(void *fn)
{
	((void (*)(void))fn)();
}

int MPIL_Cr_write(const void *buf, int count)
{
	return lamgo_cr_write((void *)buf, count);
}

int MPIL_Cr_read(void *buf, int count)
{
	return lamgo_cr_read(buf, count);
}

int MPIL_Cr_discard_messages(void)
{
	return lamgo_cr_discard();
}
