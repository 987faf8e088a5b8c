# A wildcard race in mpi4py (pickle-based send/recv): rank 0 takes two
# messages from any source and assumes rank 1's comes first. Only the
# interleaving where rank 2's message is matched first raises, and mpivet's
# replay of the other match finds it, at the line of the raise.
# mpivet: np=3 verdict=error mpi=openmpi interleavings=2
import mpi4py

mpi4py.rc.thread_level = "funneled"  # the clock protocol needs one thread calling MPI
from mpi4py import MPI


def worker(comm):
    rank = comm.Get_rank()
    if rank == 0:
        first = comm.recv(source=MPI.ANY_SOURCE, tag=0)
        second = comm.recv(source=MPI.ANY_SOURCE, tag=0)
        if first["from"] != 1:
            raise RuntimeError("expected rank 1 first, got %d" % first["from"])  # want "program-failure"
        assert second["from"] == 2
    else:
        comm.send({"from": rank}, dest=0, tag=0)


worker(MPI.COMM_WORLD)
