/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The subcommands: each gets argv from its own name on and returns the exit
 * status. */
#ifndef IOPSAMPLE_COMMANDS_H
#define IOPSAMPLE_COMMANDS_H

#include <jansson.h>
#include <stddef.h>

int cmd_run(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_events(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_cat(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_summary(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_compare(int argc, char **argv);
/* For the report: compare's JSON of the episodes' default pairs (every
 * episode, incomplete ones too), each pair with its cells, "d" and "o",
 * where both are non-null. 0, or an exit status (export's or compare's
 * message logged). */
int compare_for_report(char **dirs, size_t ndirs, json_t **out);
int cmd_report(int argc, char **argv);
int cmd_verdict(int argc, char **argv);
int cmd_schema(int argc, char **argv);

#endif
