# A NumPy halo exchange: a 1-D decomposition of an N x N grid, each rank
# exchanging its boundary rows with its neighbours (nonblocking Isend and
# Irecv, Waitall) and then updating its interior with a Jacobi step.
# prints RESULT iter_us= (per iteration), timed with MPI.Wtime.
# Usage: python3 halo.py N ITERATIONS
import sys

import mpi4py

mpi4py.rc.thread_level = "funneled"
from mpi4py import MPI
import numpy as np

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
n = int(sys.argv[1]) if len(sys.argv) > 1 else 256
iters = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
up, down = (rank - 1) % size, (rank + 1) % size
u = np.random.default_rng(rank).random((n // size + 2, n))
for phase in (iters // 10, iters):
    comm.Barrier()
    t0 = MPI.Wtime()
    for _ in range(phase):
        reqs = [comm.Irecv(u[0], source=up, tag=1), comm.Irecv(u[-1], source=down, tag=2),
                comm.Isend(u[-2], dest=down, tag=1), comm.Isend(u[1], dest=up, tag=2)]
        MPI.Request.Waitall(reqs)
        u[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    t = MPI.Wtime() - t0
if rank == 0:
    print("RESULT iter_us=%.3f" % (t / iters * 1e6))
