/* cr.c: the C side of checkpoint/restart for C programs (cr.go). */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>
#include "mpi.h"
#include "mpil_cr.h"
#include "_cgo_export.h"

/* lamgo_cr_lookup finds a function of the program by name (NULL: none). */
void *lamgo_cr_lookup(const char *name)
{
	return dlsym(RTLD_DEFAULT, name);
}

/* The program's lock around its state (MPIL_Cr_lock), which the library
   holds while the program's checkpoint function runs. */
static pthread_mutex_t lamgo_cr_mu = PTHREAD_MUTEX_INITIALIZER;

/* lamgo_cr_call calls one of the program's checkpoint functions (a C
   function or a Fortran subroutine without arguments), the checkpoint
   function under the program's lock. */
void lamgo_cr_call(void *fn, int locked)
{
	if (locked)
		pthread_mutex_lock(&lamgo_cr_mu);
	((void (*)(void))fn)();
	if (locked)
		pthread_mutex_unlock(&lamgo_cr_mu);
}

int MPIL_Cr_write_request(MPI_Request request)
{
	return lamgo_cr_write_request(request);
}

int MPIL_Cr_read_request(void *buf, int bytes, MPI_Request *request)
{
	return lamgo_cr_read_request(buf, bytes, request);
}

int MPIL_Cr_write_comm(MPI_Comm comm)
{
	return lamgo_cr_write_comm(comm);
}

int MPIL_Cr_read_comm(MPI_Comm *comm)
{
	return lamgo_cr_read_comm(comm);
}

int MPIL_Cr_lock(void)
{
	return pthread_mutex_lock(&lamgo_cr_mu) == 0 ? MPI_SUCCESS : MPI_ERR_OTHER;
}

int MPIL_Cr_unlock(void)
{
	return pthread_mutex_unlock(&lamgo_cr_mu) == 0 ? MPI_SUCCESS : MPI_ERR_OTHER;
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

int MPIL_Cr_keyval_name(int keyval, const char *name)
{
	return lamgo_cr_keyval_name(keyval, (char *)name, name ? (int)strlen(name) : 0);
}

/* The Fortran 77 bindings (gfortran's names: lower case, a trailing
   underscore; every argument by reference, the error code last). */
void mpil_cr_write_(const void *buf, MPI_Fint *count, MPI_Fint *ierr)
{
	*ierr = MPIL_Cr_write(buf, *count);
}

void mpil_cr_read_(void *buf, MPI_Fint *count, MPI_Fint *ierr)
{
	*ierr = MPIL_Cr_read(buf, *count);
}

void mpil_cr_discard_messages_(MPI_Fint *ierr)
{
	*ierr = MPIL_Cr_discard_messages();
}

void mpil_cr_write_request_(MPI_Fint *request, MPI_Fint *ierr)
{
	*ierr = MPIL_Cr_write_request((MPI_Request)*request);
}

void mpil_cr_read_request_(void *buf, MPI_Fint *bytes, MPI_Fint *request, MPI_Fint *ierr)
{
	MPI_Request r;

	*ierr = MPIL_Cr_read_request(buf, *bytes, &r);
	*request = (MPI_Fint)r;
}

void mpil_cr_write_comm_(MPI_Fint *comm, MPI_Fint *ierr)
{
	*ierr = MPIL_Cr_write_comm((MPI_Comm)*comm);
}

void mpil_cr_read_comm_(MPI_Fint *comm, MPI_Fint *ierr)
{
	MPI_Comm c;

	*ierr = MPIL_Cr_read_comm(&c);
	*comm = (MPI_Fint)c;
}

void mpil_cr_lock_(MPI_Fint *ierr)
{
	*ierr = MPIL_Cr_lock();
}

void mpil_cr_unlock_(MPI_Fint *ierr)
{
	*ierr = MPIL_Cr_unlock();
}

void mpil_cr_keyval_name_(MPI_Fint *keyval, const char *name, MPI_Fint *ierr, size_t name_len)
{
	while (name_len > 0 && name[name_len - 1] == ' ')
		name_len--;
	*ierr = lamgo_cr_keyval_name(*keyval, (char *)name, (int)name_len);
}
