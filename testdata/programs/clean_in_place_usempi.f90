! Nonblocking collectives with MPI_IN_PLACE from Fortran (`use mpi`): the
! in-place argument is the binding's own constant, not a buffer of the
! program, and is neither protected nor compared with the other buffers.
! Two in-place collectives pending at once are no overlap of buffers. The
! ranks compute on other data of the same arrays while the collectives are
! pending and use the results only after the Wait.
! mpivet: np=3 verdict=ok
program inplaceusempi
  use mpi
  implicit none
  integer :: ierr, rank, size, req, i, k, two(2)
  integer :: v(64), g(64), w(64)
  double precision :: s
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  s = 0
  do k = 1, 3
    v = rank + k
    g = rank
    w = 0
    call MPI_Iallreduce(MPI_IN_PLACE, v, 4, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req, ierr)
    do i = 33, 64
      w(i) = w(i) + i
    end do
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    s = s + v(1)
    ! the root gathers in place: its own block is already in g
    if (rank == 0) then
      call MPI_Igather(MPI_IN_PLACE, 2, MPI_INTEGER, g, 2, MPI_INTEGER, 0, MPI_COMM_WORLD, req, ierr)
    else
      call MPI_Igather(g, 2, MPI_INTEGER, w, 2, MPI_INTEGER, 0, MPI_COMM_WORLD, req, ierr)
    end if
    do i = 33, 64
      v(i) = v(i) + 1
    end do
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    ! the root scatters in place (it keeps its own block) while another
    ! in-place collective is pending
    call MPI_Iallreduce(MPI_IN_PLACE, v, 2, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, two(1), ierr)
    if (rank == 1) then
      call MPI_Iscatter(g, 2, MPI_INTEGER, MPI_IN_PLACE, 2, MPI_INTEGER, 1, MPI_COMM_WORLD, two(2), ierr)
    else
      call MPI_Iscatter(w, 2, MPI_INTEGER, g, 2, MPI_INTEGER, 1, MPI_COMM_WORLD, two(2), ierr)
    end if
    do i = 33, 64
      w(i) = w(i) + 1
    end do
    call MPI_Waitall(2, two, MPI_STATUSES_IGNORE, ierr)
    call MPI_Iallgather(MPI_IN_PLACE, 1, MPI_INTEGER, g, 1, MPI_INTEGER, MPI_COMM_WORLD, req, ierr)
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    if (rank == 2) then
      call MPI_Ireduce(MPI_IN_PLACE, g, 3, MPI_INTEGER, MPI_MAX, 2, MPI_COMM_WORLD, req, ierr)
    else
      call MPI_Ireduce(g, w, 3, MPI_INTEGER, MPI_MAX, 2, MPI_COMM_WORLD, req, ierr)
    end if
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    call MPI_Allreduce(MPI_IN_PLACE, g, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    s = s + g(1) + w(40)
  end do
  if (rank == 0) print *, s > 0
  call MPI_Finalize(ierr)
end program
