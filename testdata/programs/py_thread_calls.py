# mpi4py's default thread level (MPI_THREAD_MULTIPLE), with a second
# thread that does call MPI (a barrier on a communicator of its own) after
# the main thread's wildcard receives: the clock protocol goes on when that
# thread calls MPI, and both orders of the wildcard receives are explored.
# Both orders are correct.
# mpivet: np=3 verdict=ok mpi=openmpi interleavings=2
import threading

from mpi4py import MPI

comm = MPI.COMM_WORLD
side = comm.Dup()
rank = comm.Get_rank()
if rank == 0:
    got = sorted(comm.recv(source=MPI.ANY_SOURCE, tag=0) for _ in range(2))
    assert got == [1, 2]
else:
    comm.send(rank, dest=0, tag=0)

t = threading.Thread(target=side.Barrier)
t.start()
t.join()
side.Free()
