! Free-form Fortran with `use mpi_f08`, MPI 4.0 calls (Open MPI 4.1 has
! none): rank 1 never completes nor frees its MPI_Isendrecv request (a
! leaked request still pending at MPI_Finalize; rank 0's is waited for), and
! a persistent allreduce started and completed twice is never freed. A
! persistent broadcast beside it is freed: no finding.
! mpivet: np=2 verdict=error mpi=mpich
program leak4
  use mpi_f08
  implicit none
  integer :: rank, i, x, mine, total, outv, inv
  type(MPI_Request) :: r, a, b
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  x = 0
  mine = 1
  outv = rank
  if (rank == 0) then
    call MPI_Isendrecv(outv, 1, MPI_INTEGER, 1, 0, inv, 1, MPI_INTEGER, 1, 0, MPI_COMM_WORLD, r)
    call MPI_Wait(r, MPI_STATUS_IGNORE)
  else
    call MPI_Isendrecv(outv, 1, MPI_INTEGER, 0, 0, inv, 1, MPI_INTEGER, 0, 0, MPI_COMM_WORLD, r) ! want "resource-leak" "request-lifecycle"
  end if
  call MPI_Allreduce_init(mine, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, a) ! want "resource-leak"
  call MPI_Bcast_init(x, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, MPI_INFO_NULL, b)
  do i = 1, 2
    call MPI_Start(a)
    call MPI_Wait(a, MPI_STATUS_IGNORE)
    call MPI_Start(b)
    call MPI_Wait(b, MPI_STATUS_IGNORE)
  end do
  call MPI_Request_free(b)
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_Finalize()
end program
