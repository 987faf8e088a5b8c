/* Allocation churn, for what the layer's interposed allocator (layer/src/heap) costs:
 * n rounds of freeing one of 1024 live blocks and allocating another of 16 to
 * 527 bytes; it prints the CPU time per malloc+free pair. Not an MPI program:
 * run it natively and with LD_PRELOAD of the layer (docs/performance.md). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000000;
	void *live[1024] = {0};
	struct timespec a, b;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	unsigned x = 1;
	for (long i = 0; i < n; i++) {
		x = x * 1103515245 + 12345;
		unsigned k = (x >> 8) & 1023;
		free(live[k]);
		live[k] = malloc(16 + ((x >> 20) & 511));
	}
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	printf("%.1f ns per malloc+free\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n);
	return 0;
}
