! Correct nonblocking buffers in Fortran (`use mpi`): the send buffer is read
! while pending, other elements of the same array are computed on, and the
! received data is used only after MPI_WAITALL.
! mpivet: np=2 verdict=ok
program cleanbuf
  use mpi
  implicit none
  integer :: ierr, rank, size, peer, i, it, reqs(2)
  double precision :: work(4096), s
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  peer = mod(rank + 1, size)
  work = rank
  s = 0
  do it = 1, 5
    ! receive into work(1:8), send work(9:16); compute on work(17:)
    call MPI_Irecv(work(1), 8, MPI_DOUBLE_PRECISION, mod(rank + size - 1, size), it, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_Isend(work(9), 8, MPI_DOUBLE_PRECISION, peer, it, MPI_COMM_WORLD, reqs(2), ierr)
    do i = 9, 16
      s = s + work(i)
    end do
    do i = 17, 64
      work(i) = work(i) * 0.5d0 + s
    end do
    call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
    work(9:16) = work(1:8) + 1
  end do
  if (rank == 0) print *, s, work(9)
  call MPI_Finalize(ierr)
end program
