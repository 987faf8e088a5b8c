! MPI_Buffer_detach waits until the messages sent from the attached buffer
! are delivered (`use mpi_f08`: its binding takes the buffer's address as a
! TYPE(C_PTR), and the MPIs export mpi_buffer_detach_f08_). Rank 0 sends a
! large message with MPI_Bsend and detaches before rank 1, in a barrier
! first, ever receives it: rank 0 waits in the detach for rank 1, rank 1 in
! the barrier for rank 0.
! mpivet: np=2 verdict=error timeout=30s
program bsenddetach
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
    ! (one line: gfortran gives the detach's call the next statement's line)
    call MPI_Buffer_detach(addr, bsize); call MPI_Barrier(MPI_COMM_WORLD) ! want "deadlock"
  else
    call MPI_Barrier(MPI_COMM_WORLD) ! want "deadlock"
    call MPI_Recv(x, n, MPI_DOUBLE_PRECISION, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  end if
  call MPI_Finalize()
end program
