# mpi4py's default thread level (MPI_THREAD_MULTIPLE): on each rank, 4
# threads each pass a ring of Sendrecv calls with a tag of their own, so
# every receive can take one message only. Correct: no finding. The
# threads' calls are recorded in one log, in the order they happened to
# interleave: the offline zero-buffering replay, which reads a rank's
# calls as one sequence, must not take that order for the program's and
# report a deadlock; it refuses, and the program is run again with zero
# buffering, where it ends.
# mpivet: np=2 verdict=ok mpi=openmpi interleavings=1 buffering=run
import threading

from mpi4py import MPI

comm = MPI.COMM_WORLD
rank = comm.Get_rank()
size = comm.Get_size()


def ring(tag):
    token = rank
    for _ in range(20):
        token = comm.sendrecv(token, dest=(rank + 1) % size, sendtag=tag,
                              source=(rank - 1) % size, recvtag=tag)


threads = [threading.Thread(target=ring, args=(t,)) for t in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
