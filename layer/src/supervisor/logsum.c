/*
 * The length and CRC32C of a rank's records, which the supervisor writes
 * into the rank's exit record once the rank has ended, so that mpivet can
 * tell a log cut short or changed since (trace.Process.checkLog) from one
 * it may replay: a damaged log would otherwise read as a shorter run, or a
 * run with other matches, and a replay would force another interleaving.
 *
 * The records end where a reader of the log stops (record/record.h): at
 * the first zero or impossible header, or at a record the file does not
 * hold whole. Computed once per rank, after its end, by reading the log:
 * nothing on the rank's hot path.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "logsum.h"

static uint32_t table[256];

static void make_table(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0x82f63b78u : c >> 1; /* Castagnoli, reflected */
		table[i] = c;
	}
}

static uint32_t crc_soft(uint32_t crc, const unsigned char *p, size_t n)
{
	while (n--)
		crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) static uint32_t crc_hard(uint32_t crc, const unsigned char *p, size_t n)
{
	uint64_t c = crc;
	for (; n >= 8; n -= 8, p += 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		c = __builtin_ia32_crc32di(c, w);
	}
	uint32_t c32 = (uint32_t)c;
	for (; n; n--)
		c32 = __builtin_ia32_crc32qi(c32, *p++);
	return c32;
}
#endif

/* crc32c continues crc (the register, not inverted) over n bytes at p. */
static uint32_t crc32c(uint32_t crc, const unsigned char *p, size_t n)
{
#if defined(__x86_64__)
	if (__builtin_cpu_supports("sse4.2"))
		return crc_hard(crc, p, n);
#endif
	return crc_soft(crc, p, n);
}

/* walk advances *next over the whole records whose headers lie in buf (the
 * bytes at file offset at); 1 when the records end at *next. */
static int walk(const unsigned char *buf, uint64_t at, uint64_t len, uint64_t *next, uint64_t fsize)
{
	while (*next + 8 <= at + len) {
		uint64_t h;
		memcpy(&h, buf + (*next - at), 8);
		uint64_t size = h & 0xffffffffu;
		if (h == 0 || size < 8 || size % 8 || *next + size > fsize)
			return 1;
		*next += size;
	}
	return 0;
}

#define BUF (1u << 20)

int mpivet_log_sum(const char *path, uint64_t *end, uint32_t *crc)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	struct stat st;
	unsigned char *buf = malloc(BUF);
	char magic[8];
	if (!buf || fstat(fd, &st) != 0 || pread(fd, magic, 8, 0) != 8 || memcmp(magic, "MPIVET01", 8) != 0) {
		free(buf);
		close(fd);
		return 0;
	}
	make_table();
	uint64_t fsize = (uint64_t)st.st_size, next = 8, at = 0;
	uint32_t c = 0xffffffffu;
	for (;;) {
		ssize_t n = pread(fd, buf, BUF, (off_t)at);
		if (n <= 0)
			break;
		int done = walk(buf, at, (uint64_t)n, &next, fsize);
		/* the records the walk passed are whole: sum their bytes in buf */
		uint64_t to = next < at + (uint64_t)n ? next : at + (uint64_t)n;
		c = crc32c(c, buf, to - at);
		at = to;
		if (done)
			break;
	}
	free(buf);
	close(fd);
	*end = next;
	*crc = ~c;
	return 1;
}
