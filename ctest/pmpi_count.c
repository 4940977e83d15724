/*
 * pmpi_count.c: a profiling library, as the MPI standard's profiling
 * interface expects one to be written: it defines MPI_Send, counts the
 * call and passes it on to PMPI_Send. Linked before the MPI library, its
 * MPI_Send replaces the library's for the program:
 *
 *   mpicc -shared -fPIC -o libpmpicount.so pmpi_count.c
 *   mpicc -o pmpi pmpi.c -L. -lpmpicount -Wl,-rpath,$PWD
 */
#include <mpi.h>

static int sends;

int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    sends++;
    return PMPI_Send(buf, count, type, dest, tag, comm);
}

/* pmpi_count_sends returns how many times the program called MPI_Send. */
int pmpi_count_sends(void)
{
    return sends;
}
