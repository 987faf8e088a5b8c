! The correct twin of bsend_detach_deadlock_f08.f90 (`use mpi_f08`,
! MPI_Buffer_detach's buffer a TYPE(C_PTR)): rank 1 receives the large
! buffered message before the barrier, so rank 0's detach, which waits for
! it to be delivered, returns. Nothing to report; the output is a native
! run's.
! mpivet: np=2 verdict=ok sameoutput=1
program bsenddetachclean
  use mpi_f08
  use, intrinsic :: iso_c_binding
  implicit none
  integer, parameter :: n = 262144
  integer :: rank, bsize
  double precision, allocatable :: x(:)
  character, allocatable, target :: buf(:)
  type(c_ptr) :: addr
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  allocate(x(n))
  x = rank
  if (rank == 0) then
    bsize = 8 * n + 2 * MPI_BSEND_OVERHEAD
    allocate(buf(bsize))
    call MPI_Buffer_attach(buf, bsize)
    call MPI_Bsend(x, n, MPI_DOUBLE_PRECISION, 1, 0, MPI_COMM_WORLD)
    call MPI_Buffer_detach(addr, bsize)
    if (bsize /= 8 * n + 2 * MPI_BSEND_OVERHEAD) print *, 'detached', bsize, 'bytes'
  else
    call MPI_Recv(x, n, MPI_DOUBLE_PRECISION, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    print *, 'received', x(1), x(n)
  end if
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_Finalize()
end program
