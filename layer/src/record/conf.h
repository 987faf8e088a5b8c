/*
 * The run's settings: RUNDIR/layer.conf, lines key=value that mpivet
 * writes before it launches the ranks (driver.WriteLayerConf): a file in the
 * shared run directory reaches ranks on every host, whatever the launcher
 * does with environment variables. The keys are api.Conf* in Go,
 * MPIVET_CONF_* here (generated/format.h).
 *
 * One reader for every part of the layer: the recorder loads the file when
 * the log opens, the services above it look their keys up when they start,
 * and the rank supervisor, a program of its own without MPI, loads it too.
 * Plain C, no MPI: the supervisor is built from this file and its own.
 */
#ifndef MPIVET_CONF_H
#define MPIVET_CONF_H

/* mpivet_conf_load reads DIR/layer.conf; 0 if there is none (every key is
 * then unset). Called once, before any lookup. */
int mpivet_conf_load(const char *dir);

/* mpivet_conf gives the value of key (the last line that sets it), or NULL
 * if no line sets it. */
const char *mpivet_conf(const char *key);

/* mpivet_conf_dir gives the run directory layer.conf was read from (NULL
 * before). */
const char *mpivet_conf_dir(void);

/* mpivet_conf_is reports whether key is set to value. */
int mpivet_conf_is(const char *key, const char *value);

#endif
