/* The subcommands: each gets argv from its own name on and returns the exit
 * status. */
#ifndef IOPSAMPLE_COMMANDS_H
#define IOPSAMPLE_COMMANDS_H

int cmd_run(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_events(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_cat(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_summary(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_schema(int argc, char **argv);

#endif
