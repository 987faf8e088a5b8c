# A correct mpi4py program, under mpi4py's default thread level
# (MPI_THREAD_MULTIPLE): pickle-based and buffer-based point-to-point, a
# NumPy halo exchange with Sendrecv, nonblocking sends completed, a
# wildcard receive whose every match is handled, and collectives. No
# finding.
# mpivet: np=3 verdict=ok mpi=openmpi
from mpi4py import MPI
import numpy as np

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
left, right = (rank - 1) % size, (rank + 1) % size

# halo exchange of NumPy arrays
u = np.full(10, float(rank))
halo = np.empty(1)
comm.Sendrecv(u[-1:], dest=right, sendtag=1, recvbuf=halo, source=left, recvtag=1)
assert halo[0] == float(left)

# nonblocking, completed
reqs = [comm.Isend(u, dest=right, tag=2), comm.Irecv(np.empty(10), source=left, tag=2)]
MPI.Request.Waitall(reqs)
r = comm.isend({"rank": rank}, dest=right, tag=3)
assert comm.recv(source=left, tag=3)["rank"] == left
r.wait()

# a wildcard receive at rank 0 whose every match is fine
if rank == 0:
    got = sorted(comm.recv(source=MPI.ANY_SOURCE, tag=4) for _ in range(size - 1))
    assert got == list(range(1, size))
else:
    comm.send(rank, dest=0, tag=4)

total = comm.allreduce(rank, op=MPI.SUM)
assert total == size * (size - 1) // 2
arr = np.zeros(4) if rank else np.arange(4.0)
comm.Bcast(arr, root=0)
assert (arr == np.arange(4.0)).all()
comm.Barrier()
