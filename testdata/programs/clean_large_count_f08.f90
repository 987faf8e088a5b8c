! Fortran 2008 large-count calls used correctly (`use mpi_f08` with
! INTEGER(KIND=MPI_COUNT_KIND) counts: MPICH's *_f08ts_large_ and
! *_f08_large_ bindings; Open MPI 4.1 has none): two wildcard receives
! from ranks 1 and 2 (either order is fine: the sum is checked), a ring of
! MPI_Isend/MPI_Irecv and one of MPI_Sendrecv, MPI_Bcast, MPI_Allreduce, a
! datatype made by MPI_Type_vector and freed, and a window made by
! MPI_Win_create (an MPI_ADDRESS_KIND disp_unit) with MPI_Put to the right
! neighbour in a fence epoch. Values are checked; both matches of the
! wildcard are explored.
! mpivet: np=3 verdict=ok mpi=mpich interleavings=2
program cleanlargef08
  use mpi_f08
  implicit none
  integer :: rank, size, left, right, x, y, sum, a(6), got(2)
  integer, asynchronous :: mem(2)
  integer(kind=MPI_COUNT_KIND) :: one, n2
  integer(kind=MPI_ADDRESS_KIND) :: winsize, unit, disp
  type(MPI_Datatype) :: cols
  type(MPI_Request) :: reqs(2)
  type(MPI_Win) :: win
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)
  one = 1
  n2 = 2
  left = mod(rank + size - 1, size)
  right = mod(rank + 1, size)
  x = rank
  if (rank == 0) then
    call MPI_Recv(y, one, MPI_INTEGER, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    sum = y
    call MPI_Recv(y, one, MPI_INTEGER, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    call check(sum + y == 3, 'wildcard sum')
  else
    call MPI_Send(x, one, MPI_INTEGER, 0, 0, MPI_COMM_WORLD)
  end if
  call MPI_Irecv(y, one, MPI_INTEGER, left, 1, MPI_COMM_WORLD, reqs(1))
  call MPI_Isend(x, one, MPI_INTEGER, right, 1, MPI_COMM_WORLD, reqs(2))
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
  call check(y == left, 'isend ring')
  call MPI_Sendrecv(x, one, MPI_INTEGER, right, 2, y, one, MPI_INTEGER, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call check(y == left, 'sendrecv ring')
  y = rank
  call MPI_Bcast(y, one, MPI_INTEGER, 1, MPI_COMM_WORLD)
  call check(y == 1, 'bcast')
  call MPI_Allreduce(x, y, one, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call check(y == 3, 'allreduce')
  a = [1, 2, 3, 4, 5, 6]
  call MPI_Type_vector(n2, one, 3_MPI_COUNT_KIND, MPI_INTEGER, cols)
  call MPI_Type_commit(cols)
  call MPI_Sendrecv(a, one, cols, right, 3, got, n2, MPI_INTEGER, left, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call check(got(1) == 1 .and. got(2) == 4, 'vector')
  call MPI_Type_free(cols)
  winsize = 8
  unit = 4
  mem = -1
  call MPI_Win_create(mem, winsize, unit, MPI_INFO_NULL, MPI_COMM_WORLD, win)
  call MPI_Win_fence(0, win)
  disp = 1
  call MPI_Put(x, one, MPI_INTEGER, right, disp, one, MPI_INTEGER, win)
  call MPI_Win_fence(0, win)
  call MPI_F_sync_reg(mem)
  call check(mem(2) == left .and. mem(1) == -1, 'put')
  call MPI_Win_free(win)
  call MPI_Finalize()
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(*), intent(in) :: what
    if (.not. ok) then
      print *, 'wrong value: ', what, rank
      call MPI_Abort(MPI_COMM_WORLD, 1)
    end if
  end subroutine check
end program cleanlargef08
