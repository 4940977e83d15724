/* A program that never calls MPI_Init: mpirun's no-init case. */
int main(void) { return 0; }
