! Fortran 2008 large-count calls with arrays of counts and displacements
! used correctly (`use mpi_f08` with INTEGER(KIND=MPI_COUNT_KIND) counts
! and INTEGER(KIND=MPI_ADDRESS_KIND) displacements: MPICH's
! mpi_*_f08ts_large_ and mpi_*_f08_large_ bindings; Open MPI 4.1 has
! none): MPI_Gatherv, MPI_Alltoallv and MPI_Reduce_scatter, a datatype made
! by MPI_Type_indexed that carries a message and is freed. Values are
! checked.
! mpivet: np=2 verdict=ok mpi=mpich
program cleanlargearraysf08
  use mpi_f08
  implicit none
  integer :: rank, mine(2), all(4), part(2), s(4), r(4)
  integer(kind=MPI_COUNT_KIND) :: one, two, counts(2), blens(2), idispls(2)
  integer(kind=MPI_ADDRESS_KIND) :: displs(2)
  type(MPI_Datatype) :: t
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  one = 1
  two = 2
  blens = [1_MPI_COUNT_KIND, 1_MPI_COUNT_KIND]
  idispls = [0_MPI_COUNT_KIND, 2_MPI_COUNT_KIND]
  call MPI_Type_indexed(two, blens, idispls, MPI_INTEGER, t)
  call MPI_Type_commit(t)
  mine = [rank, rank + 10]
  counts = [2_MPI_COUNT_KIND, 2_MPI_COUNT_KIND]
  displs = [0_MPI_ADDRESS_KIND, 2_MPI_ADDRESS_KIND]
  call MPI_Gatherv(mine, two, MPI_INTEGER, all, counts, displs, MPI_INTEGER, 0, MPI_COMM_WORLD)
  if (rank == 0 .and. any(all /= [0, 10, 1, 11])) print *, 'wrong gather', all
  s = [1, 2, 3, 4] + 10 * rank
  call MPI_Alltoallv(s, counts, displs, MPI_INTEGER, r, counts, displs, MPI_INTEGER, MPI_COMM_WORLD)
  if (rank == 0 .and. any(r /= [1, 2, 11, 12])) print *, 'wrong alltoallv', r
  if (rank == 1 .and. any(r /= [3, 4, 13, 14])) print *, 'wrong alltoallv', r
  call MPI_Reduce_scatter(s, part, counts, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0 .and. any(part /= [12, 14])) print *, 'wrong reduce_scatter', part
  ! two elements 2 apart, in one message of the indexed type
  if (rank == 0) then
    s = [5, 6, 7, 8]
    call MPI_Send(s, one, t, 1, 0, MPI_COMM_WORLD)
  else
    r = 0
    call MPI_Recv(r, one, t, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    if (r(1) /= 5 .or. r(3) /= 7) print *, 'wrong indexed', r
  end if
  call MPI_Type_free(t)
  call MPI_Finalize()
end program cleanlargearraysf08
