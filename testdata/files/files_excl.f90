! A Fortran program that refuses to overwrite its result: rank 0 opens
! result.dat with status='new' (an error if it exists) and writes the
! workers' values in the order its wildcard receives take them (2 orders
! at 3 ranks). Used by corpus.TestFilesRestored: every replay must find
! no result.dat, and the file must end as the first run wrote it.
program files_excl
  use mpi
  implicit none
  integer :: rank, size, ierr, v, i, ios
  integer :: st(MPI_STATUS_SIZE)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  if (rank == 0) then
    open(unit=10, file='result.dat', status='new', iostat=ios)
    if (ios /= 0) then
      print *, 'result.dat exists: not overwriting results'
      call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    end if
    do i = 1, size - 1
      call MPI_Recv(v, 1, MPI_INTEGER, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, st, ierr)
      write(10, '(I0)') v
    end do
    close(10)
  else
    v = rank
    if (rank == 2) call sleep(1) ! the first run takes rank 1's first
    call MPI_Send(v, 1, MPI_INTEGER, 0, 0, MPI_COMM_WORLD, ierr)
  end if
  call MPI_Finalize(ierr)
end program files_excl
