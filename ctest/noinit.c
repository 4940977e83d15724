/*
 * noinit.c: a program that never calls MPI_Init: mpirun must report it
 * as it reports any such program (it is not an MPI program), whatever
 * language it is written in. It prints one line and exits 0.
 * Ranks: any (the suite runs it on 2).
 */
#include <stdio.h>

int main(void)
{
    printf("noinit: exiting without MPI_Init\n");
    return 0;
}
