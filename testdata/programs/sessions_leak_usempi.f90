! The sessions model from Fortran (`use mpi`: MPI_Session_init, never
! MPI_Init), with leaks: the group of the process set (its name a
! CHARACTER argument) and the communicator made from it are never freed
! before the session ends.
! mpivet: np=2 verdict=error mpi=mpich
program sessions_leak
  use mpi
  implicit none
  integer :: s, g, c, ierr, rank, total
  call MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, s, ierr)
  call MPI_Group_from_session_pset(s, 'mpi://WORLD', g, ierr) ! want "resource-leak"
  call MPI_Comm_create_from_group(g, 'org.mpivet.sessions_leak_usempi', MPI_INFO_NULL, MPI_ERRORS_RETURN, c, ierr) ! want "resource-leak"
  call MPI_Comm_rank(c, rank, ierr)
  call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, c, ierr)
  if (rank == 0) print '(a,i0)', 'sum ', total
  call MPI_Session_finalize(s, ierr)
end program
