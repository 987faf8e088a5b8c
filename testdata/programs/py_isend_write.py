# A NumPy array written while its Isend is pending (buffer-based Isend):
# what the receiver gets depends on timing. Reported with the lines of the
# Isend and of the Wait that completes it.
# mpivet: np=2 verdict=error mpi=openmpi
import mpi4py

mpi4py.rc.thread_level = "funneled"
from mpi4py import MPI
import numpy as np

comm = MPI.COMM_WORLD
data = np.arange(200000, dtype="d")
if comm.Get_rank() == 0:
    req = comm.Isend(data, dest=1, tag=7)  # want "buffer-reuse"
    data[3] = -1.0  # the pending send buffer is written
    req.Wait()
else:
    comm.Recv(data, source=0, tag=7)
