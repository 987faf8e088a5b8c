/* wildcard_master_worker.c with its loop between MPI_Pcontrol(0) and
 * MPI_Pcontrol(1) (loop iteration abstraction): nothing in it is explored.
 * mpivet: np=3 args=4,pcontrol verdict=ok interleavings=1
 */
#include "wildcard_master_worker.c"
