/* C++ buffers whose datatypes match their declared types: bool as
 * MPI_CXX_BOOL, std::complex<double> as MPI_CXX_DOUBLE_COMPLEX and as
 * twice as many MPI_DOUBLE, a std::array<int, 4> as MPI_INT, a class's
 * double member as MPI_DOUBLE, and a std::vector's elements (heap memory:
 * nothing is said).
 * mpivet: np=2 verdict=ok
 */
#include <mpi.h>

#include <array>
#include <complex>
#include <vector>

struct Body {
	int id;
	double mass;
};

static bool ready[2];

int main(int argc, char **argv)
{
	int rank;
	std::complex<double> z[2];
	std::array<int, 4> ids{};
	Body body{};
	std::vector<double> v(8);
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		MPI_Send(ready, 2, MPI_CXX_BOOL, 1, 0, MPI_COMM_WORLD);
		MPI_Send(z, 2, MPI_CXX_DOUBLE_COMPLEX, 1, 1, MPI_COMM_WORLD);
		MPI_Send(z, 4, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD);
		MPI_Send(ids.data(), 4, MPI_INT, 1, 3, MPI_COMM_WORLD);
		MPI_Send(&body.mass, 1, MPI_DOUBLE, 1, 4, MPI_COMM_WORLD);
		MPI_Send(v.data(), 8, MPI_DOUBLE, 1, 5, MPI_COMM_WORLD);
	} else if (rank == 1) {
		MPI_Recv(ready, 2, MPI_CXX_BOOL, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Recv(z, 2, MPI_CXX_DOUBLE_COMPLEX, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Recv(z, 4, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Recv(ids.data(), 4, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Recv(&body.mass, 1, MPI_DOUBLE, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Recv(v.data(), 8, MPI_DOUBLE, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	MPI_Finalize();
	return 0;
}
