# A correct mpi4py program: a sum over the ranks, checked on every rank.
from mpi4py import MPI

comm = MPI.COMM_WORLD
total = comm.allreduce(comm.Get_rank() + 1, op=MPI.SUM)
assert total == comm.Get_size() * (comm.Get_size() + 1) // 2
if comm.Get_rank() == 0:
    print("total", total)
