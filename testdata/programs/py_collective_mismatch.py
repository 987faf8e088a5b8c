# Collectives whose members disagree, from mpi4py: an Allreduce of NumPy
# arrays with another reduction operation on rank 0, and a Bcast whose
# ranks give different type signatures (doubles against 64-bit integers:
# the same size, so the MPI does not notice), on a communicator of its own
# (the check reports a communicator's first disagreement).
# mpivet: np=2 verdict=error mpi=openmpi
import mpi4py

mpi4py.rc.thread_level = "funneled"
from mpi4py import MPI
import numpy as np

comm = MPI.COMM_WORLD
rank = comm.Get_rank()
a = np.full(4, float(rank + 1))
b = np.empty(4)
comm.Allreduce(a, b, op=MPI.MAX if rank == 0 else MPI.SUM)  # want "collective-mismatch"
data = np.zeros(8, dtype="d" if rank == 0 else "q")
dup = comm.Dup()
dup.Bcast(data, root=0)  # want "collective-mismatch"
dup.Free()
