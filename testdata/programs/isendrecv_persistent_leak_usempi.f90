! Free-form Fortran with `use mpi`, MPI 4.0 calls (Open MPI 4.1 has none):
! rank 1 never completes nor frees its MPI_Isendrecv_replace request (a
! leaked request still pending at MPI_Finalize; rank 0's is waited for), and
! a persistent broadcast started and completed twice is never freed. A
! persistent allreduce beside it is freed: no finding.
! mpivet: np=2 verdict=error mpi=mpich
program leak4
  use mpi
  implicit none
  integer :: ierr, rank, i, x, mine, total, v, r, a, b
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  x = 0
  mine = 1
  v = rank
  if (rank == 0) then
    call MPI_Isendrecv_replace(v, 1, MPI_INTEGER, 1, 0, 1, 0, MPI_COMM_WORLD, r, ierr)
    call MPI_Wait(r, MPI_STATUS_IGNORE, ierr)
  else
    call MPI_Isendrecv_replace(v, 1, MPI_INTEGER, 0, 0, 0, 0, MPI_COMM_WORLD, r, ierr) ! want "resource-leak" "request-lifecycle"
  end if
  call MPI_Allreduce_init(mine, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, a, ierr)
  call MPI_Bcast_init(x, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, MPI_INFO_NULL, b, ierr) ! want "resource-leak"
  do i = 1, 2
    call MPI_Start(a, ierr)
    call MPI_Wait(a, MPI_STATUS_IGNORE, ierr)
    call MPI_Start(b, ierr)
    call MPI_Wait(b, MPI_STATUS_IGNORE, ierr)
  end do
  call MPI_Request_free(a, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program
