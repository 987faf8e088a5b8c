# A pickle-based isend whose request is never waited: the message is
# received, but the request is leaked and the operation never completed.
# Dropping the request also lets the interpreter free the pickled message
# while the send is pending (freed-buffer, at the interpreter's free(): no
# line of the script).
# mpivet: np=2 verdict=error mpi=openmpi nolocation=freed-buffer
import mpi4py

mpi4py.rc.thread_level = "funneled"
from mpi4py import MPI


def notify(comm, value):
    return comm.isend({"value": value}, dest=1, tag=5)  # want "request-lifecycle" "resource-leak"


comm = MPI.COMM_WORLD
if comm.Get_rank() == 0:
    notify(comm, 42)  # the request is dropped
else:
    msg = comm.recv(source=0, tag=5)
    assert msg["value"] == 42
comm.Barrier()
