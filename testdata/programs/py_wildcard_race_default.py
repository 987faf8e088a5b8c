# The wildcard race of py_wildcard_race.py, with mpi4py's default thread
# level (MPI_THREAD_MULTIPLE): only the main thread calls MPI, so the
# clock protocol runs and the replay of the other match finds the raise.
# mpivet: np=3 verdict=error mpi=openmpi interleavings=2
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
