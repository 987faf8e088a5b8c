/* The length and CRC32C of a rank's records (logsum.c). */
#ifndef MPIVET_LOGSUM_H
#define MPIVET_LOGSUM_H

#include <stdint.h>

/* mpivet_log_sum reads the log at path: where its records end (*end) and
 * the CRC32C of its bytes before that, magic included (*crc). 0 if the
 * file cannot be read or is no log (a rank killed while its layer
 * started). */
int mpivet_log_sum(const char *path, uint64_t *end, uint32_t *crc);

#endif
