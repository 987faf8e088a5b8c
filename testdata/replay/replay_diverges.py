# A Python program whose replays take another line than the run they
# replay: rank 0 sends to rank 1 from one line on a fresh start and from
# another once a stamp file exists (left by an earlier run), then takes a
# message from each worker with wildcard receives (2 interleavings). Both lines make the same MPI call with the same arguments
# from the same place in mpi4py: only the Python line tells the replay
# apart, which the divergence check must do. Used by
# corpus.TestPythonReplayDivergence. Usage: replay_diverges.py STAMP
import os
import sys

import mpi4py

mpi4py.rc.thread_level = "funneled"
from mpi4py import MPI

comm = MPI.COMM_WORLD
stamp = sys.argv[1]
if comm.Get_rank() == 0:
    if os.path.exists(stamp):
        comm.send("go", dest=1, tag=1)  # resumed
    else:
        comm.send("go", dest=1, tag=1)  # fresh
    for _ in range(comm.Get_size() - 1):
        comm.recv(source=MPI.ANY_SOURCE, tag=0)
    open(stamp, "w").close()
else:
    if comm.Get_rank() == 1:
        comm.recv(source=0, tag=1)
    comm.send(comm.Get_rank(), dest=0, tag=0)
