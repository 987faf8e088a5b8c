! Seed 000, Fig. 2.9 with `use mpi_f08`, the Waits removed altogether: the
! accesses are reported, and the operations left pending.
! mpivet: np=2 verdict=error
program fig29f08
  use mpi_f08
  implicit none
  integer :: rank, a
  integer, allocatable, target :: buf(:)
  type(MPI_Request) :: h
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  allocate(buf(16))
  buf = 7
  a = 0
  if (rank == 0) then
    call MPI_Isend(buf, 16, MPI_INTEGER, 1, 0, MPI_COMM_WORLD, h) ! want "buffer-reuse" "request-lifecycle" "resource-leak"
    buf(3) = 1 ! want "buffer-reuse"
  else if (rank == 1) then
    call MPI_Irecv(buf, 16, MPI_INTEGER, 0, 0, MPI_COMM_WORLD, h) ! want "buffer-reuse" "request-lifecycle" "resource-leak"
    a = buf(5) ! want "buffer-reuse"
  end if
  call MPI_Barrier(MPI_COMM_WORLD)
  print *, rank, a
  call MPI_Finalize()
end program
