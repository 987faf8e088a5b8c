! Dynamic processes from Fortran (mpi_f08), with a leak: each rank's part in
! MPI_Comm_spawn_multiple (its commands and their arguments arrays of
! strings) gives it an intercommunicator to the spawned process,
! which the program must free (MPI_Comm_disconnect or MPI_Comm_free) and
! never does. The spawned process (this program, run without the layer)
! answers each parent over the intercommunicator (the answer tells whether
! it got its argument: the parent aborts if not), frees its side and ends.
! mpivet: np=2 verdict=error mpi=openmpi note=MPI_Comm_spawn_multiple
program spawn_leak
  use mpi_f08
  implicit none
  type(MPI_Comm) :: parent, inter
  character(len=512) :: cmd(1)
  character(len=8) :: args(1, 2)
  integer :: rank, v, n, i, procs(1)
  type(MPI_Info) :: infos(1)
  call MPI_Init()
  call MPI_Comm_get_parent(parent)
  if (parent == MPI_COMM_NULL) then
    call get_command_argument(0, cmd(1))
    args(1, 1) = 'child'
    args(1, 2) = ' '
    procs(1) = 1
    infos(1) = MPI_INFO_NULL
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    call MPI_Comm_spawn_multiple(1, cmd, args, procs, infos, 0, MPI_COMM_WORLD, inter, MPI_ERRCODES_IGNORE) ! want "resource-leak"
    call MPI_Send(rank, 1, MPI_INTEGER, 0, 0, inter)
    call MPI_Recv(v, 1, MPI_INTEGER, 0, 1, inter, MPI_STATUS_IGNORE)
    if (v /= rank + 100) call MPI_Abort(MPI_COMM_WORLD, 1) ! the child got no argument
  else
    call get_command_argument(1, cmd(1))
    n = 0
    if (trim(cmd(1)) == 'child') n = 100
    v = n
    call MPI_Comm_remote_size(parent, n)
    do i = 0, n - 1
      call MPI_Recv(rank, 1, MPI_INTEGER, i, 0, parent, MPI_STATUS_IGNORE)
      call MPI_Send(rank + v, 1, MPI_INTEGER, i, 1, parent)
    end do
    call MPI_Comm_free(parent)
  end if
  call MPI_Finalize()
end program
