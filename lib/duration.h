/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Durations as users write them ("100ms", "1.5s") and as iopsample prints them. */
#ifndef IOPSAMPLE_DURATION_H
#define IOPSAMPLE_DURATION_H

#include <stddef.h>
#include <stdint.h>

#define NS_PER_US 1000LL
#define NS_PER_MS 1000000LL
#define NS_PER_S 1000000000LL

/* "<number><unit>", unit one of ns us ms s m h; the number may have a decimal
 * fraction as long as the result is a whole number of nanoseconds. On error
 * returns -EINVAL or -ERANGE and points *why at a phrase for the message. */
int duration_parse(const char *s, int64_t *ns, const char **why);

/* The shortest exact spelling: 60000000000 -> "1m", 1500000 -> "1500us". */
void duration_format(int64_t ns, char *buf, size_t len);

/* For a person, three significant figures in the unit that fits:
 * "812 ns", "53.2 µs", "4.17 ms", "1.50 s", "2 min 5 s", "1 h 2 min". */
void duration_human(int64_t ns, char *buf, size_t len);

#endif
