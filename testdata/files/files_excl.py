# A Python program that refuses to overwrite its result: rank 0 creates
# result.txt exclusively (mode "x": an error if it exists) and writes the
# workers' values in the order its wildcard receives take them (2 orders
# at 3 ranks). Used by corpus.TestFilesRestored: every replay must find no
# result.txt, and the file must end as the first run wrote it.
import time

from mpi4py import MPI

comm = MPI.COMM_WORLD
if comm.Get_rank() == 0:
    with open("result.txt", "x") as f:
        got = [comm.recv(source=MPI.ANY_SOURCE, tag=0) for _ in range(comm.Get_size() - 1)]
        f.write(" ".join(map(str, got)) + "\n")
else:
    if comm.Get_rank() == 2:
        time.sleep(1)  # the first run takes rank 1's first
    comm.send(comm.Get_rank(), dest=0, tag=0)
