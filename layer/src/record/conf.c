/*
 * The reader of RUNDIR/layer.conf (conf.h). The file is a few lines: it is
 * read whole into a static buffer and split in place, with no allocation
 * (the recorder loads it in its constructor, before the program runs).
 */
#include "conf.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define CONF_BYTES 16384 /* paths of decision and expect files are the longest values */
#define CONF_LINES 64

static char text[CONF_BYTES];
static struct {
	const char *key, *value;
} lines[CONF_LINES];
static int nlines;
static char rundir[4096];

const char *mpivet_conf_dir(void) { return rundir[0] ? rundir : NULL; }

int mpivet_conf_load(const char *dir)
{
	snprintf(rundir, sizeof rundir, "%s", dir);
	char path[4400];
	snprintf(path, sizeof path, "%s/layer.conf", dir);
	nlines = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	size_t n = 0;
	ssize_t r;
	while (n < sizeof text - 1 && (r = read(fd, text + n, sizeof text - 1 - n)) > 0)
		n += (size_t)r;
	close(fd);
	text[n] = 0;
	for (char *p = text; *p && nlines < CONF_LINES;) {
		char *end = strchr(p, '\n'), *eq;
		if (end)
			*end = 0;
		if ((eq = strchr(p, '='))) {
			*eq = 0;
			lines[nlines].key = p;
			lines[nlines++].value = eq + 1;
		}
		if (!end)
			break;
		p = end + 1;
	}
	return 1;
}

const char *mpivet_conf(const char *key)
{
	for (int i = nlines - 1; i >= 0; i--)
		if (strcmp(lines[i].key, key) == 0)
			return lines[i].value;
	return NULL;
}

int mpivet_conf_is(const char *key, const char *value)
{
	const char *v = mpivet_conf(key);
	return v && strcmp(v, value) == 0;
}
