/* Exercises layer/src/heap/alloc.c alone (heap_test.go builds it with this
 * driver and runs it): the blocks the interposed allocator keeps, found by
 * their starts and interior addresses, forgotten when freed, quarantined,
 * grown by realloc; and the allocator's lock never held across a call
 * that allocates. Exit status 0: every expectation held. */
#include "../../src/heap/heap.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

__thread int mpivet_guard;
void mpivet_heap_report(int kind, unsigned call, int param, uint64_t site, uint64_t buf, uint64_t lo, uint64_t hi,
			const struct mpivet_block *b, uint64_t other)
{
	(void)kind, (void)call, (void)param, (void)site, (void)buf, (void)lo, (void)hi, (void)b, (void)other;
}

static int failed;

static void expect(const char *what, const void *a, int state, const void *start, uint64_t size)
{
	struct mpivet_block b;
	int got = mpivet_heap_find((uint64_t)a, &b);
	if (got != state || (state != HEAP_NONE && (b.start != (uint64_t)start || b.size != size))) {
		printf("%s: got state %d block %#lx+%lu, want %d %p+%lu\n", what, got, (unsigned long)b.start,
		       (unsigned long)b.size, state, start, (unsigned long)size);
		failed = 1;
	}
}

static void *churn(void *arg)
{
	for (int i = 0; i < 20000; i++)
		free(malloc(16 + (size_t)(i % 5000)));
	return arg;
}

int main(void)
{
	static int global[16];
	int local[16];
	char *small = malloc(100), *large = malloc(100000), *al = aligned_alloc(64, 640);
	void *pm;
	if (posix_memalign(&pm, 4096, 5000))
		return 2;
	expect("small start", small, HEAP_LIVE, small, 100);
	expect("small interior", small + 99, HEAP_LIVE, small, 100);
	expect("small end", small + 100, HEAP_NONE, 0, 0);
	expect("large interior", large + 77777, HEAP_LIVE, large, 100000);
	expect("aligned", al + 600, HEAP_LIVE, al, 640);
	expect("posix_memalign", (char *)pm + 4999, HEAP_LIVE, pm, 5000);
	expect("stack", local, HEAP_NONE, 0, 0);
	expect("global", global, HEAP_NONE, 0, 0);
	int *c = calloc(10, sizeof(int));
	expect("calloc", c + 9, HEAP_LIVE, c, 40);
	c = realloc(c, 50000 * sizeof(int));
	expect("realloc", c + 49999, HEAP_LIVE, c, 200000);
	/* blocks made and freed between searches: the sorted copy follows (of
	 * more blocks than glibc's qsort sorts without malloc) */
	static char *many[100];
	for (int i = 0; i < 100; i++)
		many[i] = malloc(8192);
	for (int i = 0; i < 300; i++)
		free(malloc(20000 + (size_t)i));
	expect("many", many[50] + 8000, HEAP_LIVE, many[50], 8192);
	expect("large after churn", large + 99999, HEAP_LIVE, large, 100000);
	char *keep = malloc(100);
	free(small);
	expect("freed", small + 10, HEAP_FREED, small, 100);
	free(large); /* over the quarantine's size: given back, not kept */
	expect("freed large", large + 10, HEAP_NONE, 0, 0);
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, churn, NULL);
	pid_t pid = fork(); /* while the threads allocate: the child's lock is free */
	if (pid == 0) {
		free(malloc(10));
		_exit(0);
	}
	int st = 1;
	waitpid(pid, &st, 0);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	expect("after threads", keep + 50, HEAP_LIVE, keep, 100);
	if (st != 0)
		printf("the forked child did not exit cleanly: %d\n", st), failed = 1;
	for (int i = 0; i < 100; i++)
		free(many[i]);
	free(keep), free(c), free(al), free(pm);
	return failed;
}
