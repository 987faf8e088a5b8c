# mpi4py ping-pong of an 8-byte NumPy array (buffer-based Send/Recv):
# prints RESULT latency_us= (half a round trip), timed with MPI.Wtime.
# Usage: python3 pingpong.py ITERATIONS
import sys

import mpi4py

mpi4py.rc.thread_level = "funneled"  # as mpivet explores: one thread calls MPI
from mpi4py import MPI
import numpy as np

comm = MPI.COMM_WORLD
rank = comm.Get_rank()
n = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
buf = np.zeros(1, dtype="d")
for phase in (n // 10, n):  # a warm-up, then the timed loop
    comm.Barrier()
    t0 = MPI.Wtime()
    for _ in range(phase):
        if rank == 0:
            comm.Send(buf, dest=1, tag=0)
            comm.Recv(buf, source=1, tag=0)
        else:
            comm.Recv(buf, source=0, tag=0)
            comm.Send(buf, dest=0, tag=0)
    t = MPI.Wtime() - t0
if rank == 0:
    print("RESULT latency_us=%.3f" % (t / n / 2 * 1e6))
