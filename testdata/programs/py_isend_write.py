# A NumPy array written while its Isend is pending (buffer-based Isend):
# what the receiver gets depends on timing. Reported at the line of the
# write (read from the interpreter's frame in the buffer checker's fault
# handler), with the lines of the Isend and of the Wait that completes it.
# A write in a function whose frame the layer has not seen (no frame
# object yet, which the handler must not make) is reported at the line
# that called the function.
# mpivet: np=2 verdict=error mpi=openmpi
import mpi4py

mpi4py.rc.thread_level = "funneled"
from mpi4py import MPI
import numpy as np


def scale(a):
    a *= 2.0


comm = MPI.COMM_WORLD
data = np.arange(200000, dtype="d")
if comm.Get_rank() == 0:
    req = comm.Isend(data, dest=1, tag=7)  # want "buffer-reuse"
    data[3] = -1.0  # want "buffer-reuse"
    req.Wait()
    req = comm.Isend(data, dest=1, tag=8)  # want "buffer-reuse"
    scale(data)  # want "buffer-reuse"
    req.Wait()
else:
    comm.Recv(data, source=0, tag=7)
    comm.Recv(data, source=0, tag=8)
