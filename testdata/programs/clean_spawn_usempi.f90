! Dynamic processes from Fortran (`use mpi`): the two ranks spawn one more
! process of this program with MPI_Comm_spawn (its command a CHARACTER
! variable, its argv an array of strings), exchange a message with it over
! the intercommunicator (its answer tells whether it got its argument:
! the parent aborts if not), and both sides disconnect it. The spawned process
! runs without mpivet's layer: the note says it was not checked.
! mpivet: np=2 verdict=ok mpi=openmpi note=MPI_Comm_spawn
program clean_spawn
  use mpi
  implicit none
  integer :: parent, inter, ierr, rank, v, n, i
  character(len=512) :: cmd
  character(len=8) :: args(2)
  call MPI_Init(ierr)
  call MPI_Comm_get_parent(parent, ierr)
  if (parent == MPI_COMM_NULL) then
    call get_command_argument(0, cmd)
    args(1) = 'child'
    args(2) = ' '
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_spawn(cmd, args, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, inter, MPI_ERRCODES_IGNORE, ierr)
    call MPI_Send(rank, 1, MPI_INTEGER, 0, 0, inter, ierr)
    call MPI_Recv(v, 1, MPI_INTEGER, 0, 1, inter, MPI_STATUS_IGNORE, ierr)
    if (v /= rank + 100) call MPI_Abort(MPI_COMM_WORLD, 1, ierr) ! no argument
    call MPI_Comm_disconnect(inter, ierr)
  else
    call get_command_argument(1, cmd)
    n = 0
    if (trim(cmd) == 'child') n = 100
    v = n
    call MPI_Comm_remote_size(parent, n, ierr)
    do i = 0, n - 1
      call MPI_Recv(rank, 1, MPI_INTEGER, i, 0, parent, MPI_STATUS_IGNORE, ierr)
      call MPI_Send(rank + v, 1, MPI_INTEGER, i, 1, parent, ierr)
    end do
    call MPI_Comm_disconnect(parent, ierr)
  end if
  call MPI_Finalize(ierr)
end program
