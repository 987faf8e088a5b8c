! MPI-IO from Fortran (use mpi_f08): a file name and a data representation
! are CHARACTER arguments, offsets INTEGER(MPI_OFFSET_KIND). Each rank
! writes its block with a collective call and a nonblocking one, reads it
! back (nonblocking) and checks it, and closes the file; a second file, opened to be
! read, is never closed (reported with its name, at its line). The files
! are made in /tmp under names rank 0 chooses (gfortran's unlink removes
! the second's name).
! mpivet: np=2 verdict=error says=mpivet-f08-second
program iofortranf08
  use mpi_f08
  implicit none
  integer, parameter :: n = 256
  integer :: rank, i, buf(n), back(n), pid, rw, wo
  integer(kind=MPI_OFFSET_KIND) :: disp
  character(len=128) :: name, second
  type(MPI_File) :: fh, fh2
  type(MPI_Request) :: req
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  pid = getpid()
  write (name, '(a,i0)') '/tmp/mpivet-f08-first-', pid
  write (second, '(a,i0)') '/tmp/mpivet-f08-second-', pid
  call MPI_Bcast(name, len(name), MPI_CHARACTER, 0, MPI_COMM_WORLD)
  call MPI_Bcast(second, len(second), MPI_CHARACTER, 0, MPI_COMM_WORLD)
  rw = MPI_MODE_CREATE + MPI_MODE_RDWR + MPI_MODE_DELETE_ON_CLOSE
  wo = MPI_MODE_CREATE + MPI_MODE_WRONLY + MPI_MODE_DELETE_ON_CLOSE
  do i = 1, n
    buf(i) = rank * n + i
  end do
  call MPI_File_open(MPI_COMM_WORLD, name, rw, MPI_INFO_NULL, fh)
  disp = rank * n * 4
  call MPI_File_set_view(fh, disp, MPI_INTEGER, MPI_INTEGER, 'native', MPI_INFO_NULL)
  call MPI_File_write_all(fh, buf, n, MPI_INTEGER, MPI_STATUS_IGNORE)
  call MPI_File_iwrite_at(fh, int(0, MPI_OFFSET_KIND), buf, n, MPI_INTEGER, req)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  call MPI_File_iread_at(fh, int(0, MPI_OFFSET_KIND), back, n, MPI_INTEGER, req)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  if (any(back /= buf)) print *, 'wrong data on rank', rank
  call MPI_File_close(fh)
  call MPI_File_open(MPI_COMM_WORLD, second, wo, MPI_INFO_NULL, fh2) ! want "resource-leak"
  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) call unlink(trim(second)) ! the open file stays, its name goes
  call MPI_Finalize()
end program iofortranf08
