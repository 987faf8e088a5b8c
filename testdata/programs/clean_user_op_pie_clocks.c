/* clean_user_op_pie.c with the clock protocol on (it then also sees every
 * MPI_Type_free) and with its symbols and debug information: the operations
 * are compared and shown by the name of their function.
 * mpivet: np=3 verdict=ok
 */
#include "clean_user_op_pie.c"
