/* wildcard_master_worker.c under bounded mixing with K=0: one deviation per
 * replay, 1 + sum_k (min(W, T-k+1) - 1) = 4 interleavings for W=2, T=4.
 * mpivet: np=3 args=4 verdict=ok interleavings=4 flags=--mixing-bound=0
 */
#include "wildcard_master_worker.c"
