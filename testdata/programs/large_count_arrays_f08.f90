! Fortran 2008 large-count calls with arrays of counts and displacements
! (`use mpi_f08` with INTEGER(KIND=MPI_COUNT_KIND) counts and
! INTEGER(KIND=MPI_ADDRESS_KIND) displacements: MPICH's
! mpi_*_f08ts_large_ and mpi_*_f08_large_ bindings; Open MPI 4.1 has
! none), with bugs: a datatype made by MPI_Type_indexed never freed, and an
! MPI_Reduce_scatter whose ranks give different reduction operations
! (a sum on rank 0, a maximum on rank 1). An MPI_Gatherv between them is
! right.
! mpivet: np=2 verdict=error mpi=mpich
program largearraysf08
  use mpi_f08
  implicit none
  integer :: rank, i, mine(2), all(4), part(2)
  integer(kind=MPI_COUNT_KIND) :: one, two, counts(2), blens(2), idispls(2)
  integer(kind=MPI_ADDRESS_KIND) :: displs(2)
  type(MPI_Datatype) :: t
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  one = 1
  two = 2
  blens = [1_MPI_COUNT_KIND, 1_MPI_COUNT_KIND]
  idispls = [0_MPI_COUNT_KIND, 2_MPI_COUNT_KIND]
  call MPI_Type_indexed(two, blens, idispls, MPI_INTEGER, t) ! want "resource-leak"
  call MPI_Type_commit(t)
  mine = [rank, rank + 10]
  counts = [2_MPI_COUNT_KIND, 2_MPI_COUNT_KIND]
  displs = [0_MPI_ADDRESS_KIND, 2_MPI_ADDRESS_KIND]
  call MPI_Gatherv(mine, two, MPI_INTEGER, all, counts, displs, MPI_INTEGER, 0, MPI_COMM_WORLD)
  if (rank == 0 .and. any(all /= [0, 10, 1, 11])) print *, 'wrong gather', all
  all = [1, 2, 3, 4] + rank
  if (rank == 0) then
    call MPI_Reduce_scatter(all, part, counts, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD) ! want "collective-mismatch"
  else
    call MPI_Reduce_scatter(all, part, counts, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD) ! want "collective-mismatch"
  end if
  call MPI_Finalize()
end program largearraysf08
