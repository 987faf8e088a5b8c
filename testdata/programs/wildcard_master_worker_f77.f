! Fixed-form Fortran with mpif.h, the twin of wildcard_master_worker.c: a
! master hands 4 tasks to 2 workers and collects the results with wildcard
! receives (MPI_RECV from MPI_ANY_SOURCE, status array), giving each worker
! that returns a result the next task. 8 interleavings, as in C; each result
! is checked, so a wrong piggyback or match shows.
! mpivet: np=3 verdict=ok interleavings=8
      program mwf77
      include 'mpif.h'
      integer ierr, rank, nprocs, ntask, next, ndone, total, w
      integer r(2), m(1), st(MPI_STATUS_SIZE)
      call MPI_INIT(ierr)
      call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
      call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
      ntask = 4
      if (rank .eq. 0) then
        next = 0
        ndone = 0
        total = 0
        do w = 1, nprocs - 1
          m(1) = next
          call MPI_SEND(m, 1, MPI_INTEGER, w, 1, MPI_COMM_WORLD, ierr)
          next = next + 1
        end do
        do while (ndone .lt. ntask)
          call MPI_RECV(r, 2, MPI_INTEGER, MPI_ANY_SOURCE, 2,
     &                  MPI_COMM_WORLD, st, ierr)
          if (r(2) .ne. r(1) * r(1)) call MPI_ABORT(MPI_COMM_WORLD, 2,
     &                                              ierr)
          total = total + r(2)
          ndone = ndone + 1
          if (next .lt. ntask) then
            m(1) = next
            call MPI_SEND(m, 1, MPI_INTEGER, st(MPI_SOURCE), 1,
     &                    MPI_COMM_WORLD, ierr)
            next = next + 1
          end if
        end do
        do w = 1, nprocs - 1
          m(1) = total
          call MPI_SEND(m, 1, MPI_INTEGER, w, 3, MPI_COMM_WORLD, ierr)
        end do
      else
 10     continue
        call MPI_RECV(m, 1, MPI_INTEGER, 0, MPI_ANY_TAG,
     &                MPI_COMM_WORLD, st, ierr)
        if (st(MPI_TAG) .ne. 3) then
          r(1) = m(1)
          r(2) = m(1) * m(1)
          call MPI_SEND(r, 2, MPI_INTEGER, 0, 2, MPI_COMM_WORLD, ierr)
          goto 10
        end if
      end if
      call MPI_FINALIZE(ierr)
      end
