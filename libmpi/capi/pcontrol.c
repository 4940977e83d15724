/* MPI_Pcontrol: variadic in C, so written here (gen writes only fixed
   argument lists) as a strong PMPI_ name and a weak MPI_ alias. */
#include "capi.h"

int PMPI_Pcontrol(const int level, ...)
{
	return lamgo_Pcontrol(level);
}
#pragma weak MPI_Pcontrol = PMPI_Pcontrol
