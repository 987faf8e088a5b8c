! Dynamic processes from Fortran (mpi_f08), with a leak: each rank's part in
! MPI_Comm_spawn gives it an intercommunicator to the spawned process,
! which the program must free (MPI_Comm_disconnect or MPI_Comm_free) and
! never does. The spawned process (this program, run without the layer)
! answers each parent over the intercommunicator, frees its side and ends.
! mpivet: np=2 verdict=error mpi=openmpi note=MPI_Comm_spawn
program spawn_leak
  use mpi_f08
  implicit none
  type(MPI_Comm) :: parent, inter
  character(len=512) :: cmd
  integer :: rank, v, n, i
  call MPI_Init()
  call MPI_Comm_get_parent(parent)
  if (parent == MPI_COMM_NULL) then
    call get_command_argument(0, cmd)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    call MPI_Comm_spawn(cmd, MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, inter, MPI_ERRCODES_IGNORE) ! want "resource-leak"
    call MPI_Send(rank, 1, MPI_INTEGER, 0, 0, inter)
    call MPI_Recv(v, 1, MPI_INTEGER, 0, 1, inter, MPI_STATUS_IGNORE)
  else
    call MPI_Comm_remote_size(parent, n)
    do i = 0, n - 1
      call MPI_Recv(v, 1, MPI_INTEGER, i, 0, parent, MPI_STATUS_IGNORE)
      call MPI_Send(v, 1, MPI_INTEGER, i, 1, parent)
    end do
    call MPI_Comm_free(parent)
  end if
  call MPI_Finalize()
end program
