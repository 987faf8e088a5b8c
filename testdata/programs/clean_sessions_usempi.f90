! The sessions model from Fortran (`use mpi`): MPI starts with
! MPI_Session_init, never MPI_Init; the communicator is made from the group
! of the process set mpi://WORLD, the info of the session is read; all
! reduce, and the program frees its group, communicator and info before it
! ends its session.
! mpivet: np=2 verdict=ok mpi=mpich
program clean_sessions
  use mpi
  implicit none
  integer :: s, g, c, info, ierr, rank, total
  call MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, s, ierr)
  call MPI_Group_from_session_pset(s, 'mpi://WORLD', g, ierr)
  call MPI_Comm_create_from_group(g, 'org.mpivet.clean_sessions_usempi', MPI_INFO_NULL, MPI_ERRORS_RETURN, c, ierr)
  call MPI_Session_get_info(s, info, ierr)
  call MPI_Comm_rank(c, rank, ierr)
  call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, c, ierr)
  if (rank == 0) print '(a,i0)', 'sum ', total
  call MPI_Info_free(info, ierr)
  call MPI_Comm_free(c, ierr)
  call MPI_Group_free(g, ierr)
  call MPI_Session_finalize(s, ierr)
end program
