/* A backtracking matcher over a parsed pattern: a group is a list of
 * alternatives, each a sequence of terms, each term one thing repeated
 * min..max times. Greedy repetition of a single-byte term runs without
 * recursion; groups recurse with an explicit continuation, so a pattern
 * of n terms needs stack in proportion to n, not to the subject's length. */
#include "jregex.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NESTING_MAX 32
#define REPEAT_MAX 100000u

enum term_kind { T_BYTES, T_BOL, T_EOL, T_GROUP, T_AHEAD, T_NOT_AHEAD };

struct seq {
	struct term *t;
	size_t n;
};

struct term {
	enum term_kind kind;
	unsigned min, max; /* UINT_MAX: unbounded */
	uint8_t set[32];   /* T_BYTES: the bytes it matches */
	struct seq *alts;  /* T_GROUP and the lookaheads */
	size_t nalts;
};

struct jregex {
	struct term root; /* a group of the top-level alternatives */
	bool anchored;    /* every alternative starts with ^: try offset 0 only */
};

/* ---- compiling ------------------------------------------------------------ */

struct parser {
	const char *pattern, *p;
	int depth;
	struct errbuf *why;
};

static int fail(struct parser *ps, const char *what)
{
	return errbuf_set(ps->why, EINVAL, "pattern \"%s\": %s at offset %zu", ps->pattern, what,
			  (size_t)(ps->p - ps->pattern));
}

static void set_add(uint8_t set[32], unsigned c)
{
	set[c / 8] |= (uint8_t)(1u << (c % 8));
}

static bool set_has(const uint8_t set[32], unsigned char c)
{
	return set[c / 8] & (1u << (c % 8));
}

static void set_range(uint8_t set[32], unsigned lo, unsigned hi)
{
	for (unsigned c = lo; c <= hi; c++)
		set_add(set, c);
}

static void set_invert(uint8_t set[32])
{
	for (int i = 0; i < 32; i++)
		set[i] = (uint8_t)~set[i];
}

/* \d \w \s and their complements into set; false for any other letter. */
static bool class_escape(char c, uint8_t set[32])
{
	uint8_t s[32] = {0};
	switch (c | 0x20) {
	case 'd':
		set_range(s, '0', '9');
		break;
	case 'w':
		set_range(s, '0', '9');
		set_range(s, 'a', 'z');
		set_range(s, 'A', 'Z');
		set_add(s, '_');
		break;
	case 's':
		set_range(s, '\t', '\r');
		set_add(s, ' ');
		break;
	default:
		return false;
	}
	if (c >= 'A' && c <= 'Z')
		set_invert(s);
	for (int i = 0; i < 32; i++)
		set[i] |= s[i];
	return true;
}

/* One escaped byte after the backslash: -1 when it is not one we know. */
static int char_escape(char c)
{
	static const char controls[] = "n\nt\tr\rf\fv\v0";
	const char *k = c ? strchr(controls, c) : NULL;
	if (k && (k - controls) % 2 == 0)
		return c == '0' ? 0 : k[1];
	if ((c >= 0x21 && c <= 0x2f) || (c >= 0x3a && c <= 0x40) || (c >= 0x5b && c <= 0x60) ||
	    (c >= 0x7b && c <= 0x7e))
		return (unsigned char)c;
	return -1;
}

/* After "\": a class escape into t->set, or one byte. */
static int parse_escape(struct parser *ps, uint8_t set[32], int *byte)
{
	char c = *ps->p;
	*byte = -1;
	if (class_escape(c, set)) {
		ps->p++;
		return 0;
	}
	if ((*byte = char_escape(c)) < 0)
		return fail(ps, "an escape this matcher does not support");
	ps->p++;
	return 0;
}

static int parse_class(struct parser *ps, struct term *t)
{
	bool negate = *ps->p == '^';
	if (negate)
		ps->p++;
	bool first = true;
	while (*ps->p != ']' || first) {
		int lo, hi;
		first = false;
		if (!*ps->p)
			return fail(ps, "an unterminated [class]");
		if (*ps->p == '\\') {
			ps->p++;
			if (parse_escape(ps, t->set, &lo) < 0)
				return -EINVAL;
			if (lo < 0)
				continue; /* \d and friends end no range */
		} else {
			lo = (unsigned char)*ps->p++;
		}
		if (ps->p[0] != '-' || ps->p[1] == ']' || !ps->p[1]) {
			set_add(t->set, (unsigned)lo);
			continue;
		}
		ps->p++;
		if (*ps->p == '\\') {
			ps->p++;
			uint8_t ignored[32] = {0};
			if (parse_escape(ps, ignored, &hi) < 0)
				return -EINVAL;
			if (hi < 0)
				return fail(ps, "a class escape as the end of a range");
		} else {
			hi = (unsigned char)*ps->p++;
		}
		if (hi < lo)
			return fail(ps, "a range out of order");
		set_range(t->set, (unsigned)lo, (unsigned)hi);
	}
	ps->p++;
	if (negate)
		set_invert(t->set);
	return 0;
}

static int parse_alts(struct parser *ps, struct term *group);

static bool parse_number(struct parser *ps, unsigned *n)
{
	if (*ps->p < '0' || *ps->p > '9')
		return false;
	unsigned long v = strtoul(ps->p, (char **)&ps->p, 10);
	*n = v > REPEAT_MAX ? REPEAT_MAX + 1 : (unsigned)v;
	return true;
}

static int parse_quantifier(struct parser *ps, struct term *t)
{
	t->min = t->max = 1;
	switch (*ps->p) {
	case '*':
		t->min = 0, t->max = UINT_MAX;
		break;
	case '+':
		t->max = UINT_MAX;
		break;
	case '?':
		t->min = 0;
		break;
	case '{':
		ps->p++;
		if (!parse_number(ps, &t->min))
			return fail(ps, "a {repeat} without its count");
		t->max = t->min;
		if (*ps->p == ',') {
			ps->p++;
			if (!parse_number(ps, &t->max))
				t->max = UINT_MAX;
		}
		if (*ps->p != '}')
			return fail(ps, "an unterminated {repeat}");
		if (t->min > REPEAT_MAX || (t->max != UINT_MAX && t->max > REPEAT_MAX))
			return fail(ps, "a repeat count over 100000");
		if (t->max < t->min)
			return fail(ps, "a {min,max} with max below min");
		break;
	default:
		return 0;
	}
	ps->p++;
	if (t->kind == T_BOL || t->kind == T_EOL || t->kind == T_AHEAD || t->kind == T_NOT_AHEAD)
		return fail(ps, "a quantifier on an assertion");
	if (*ps->p == '?')
		return fail(ps, "a lazy quantifier");
	if (*ps->p && strchr("*+?{", *ps->p))
		return fail(ps, "nothing to repeat");
	return 0;
}

static int parse_atom(struct parser *ps, struct term *t)
{
	char c = *ps->p++;
	int byte;
	switch (c) {
	case '(':
		t->kind = T_GROUP;
		if (*ps->p == '?') {
			if (ps->p[1] == ':')
				t->kind = T_GROUP;
			else if (ps->p[1] == '=')
				t->kind = T_AHEAD;
			else if (ps->p[1] == '!')
				t->kind = T_NOT_AHEAD;
			else
				return fail(ps, "a (? group this matcher does not support");
			ps->p += 2;
		}
		if (++ps->depth > NESTING_MAX)
			return fail(ps, "groups nested too deep");
		if (parse_alts(ps, t) < 0)
			return -EINVAL;
		if (*ps->p != ')')
			return fail(ps, "an unterminated group");
		ps->p++;
		ps->depth--;
		return 0;
	case '[':
		t->kind = T_BYTES;
		return parse_class(ps, t);
	case '.':
		t->kind = T_BYTES;
		set_range(t->set, 0, 255);
		t->set['\n' / 8] &= (uint8_t) ~(1u << ('\n' % 8));
		t->set['\r' / 8] &= (uint8_t) ~(1u << ('\r' % 8));
		return 0;
	case '^':
		t->kind = T_BOL;
		return 0;
	case '$':
		t->kind = T_EOL;
		return 0;
	case '\\':
		t->kind = T_BYTES;
		if (parse_escape(ps, t->set, &byte) < 0)
			return -EINVAL;
		if (byte >= 0)
			set_add(t->set, (unsigned)byte);
		return 0;
	case '*':
	case '+':
	case '?':
		ps->p--;
		return fail(ps, "nothing to repeat");
	default:
		t->kind = T_BYTES;
		set_add(t->set, (unsigned char)c);
		return 0;
	}
}

static void group_free(struct term *t);

static int parse_seq(struct parser *ps, struct seq *s)
{
	while (*ps->p && *ps->p != '|' && *ps->p != ')') {
		struct term *more = realloc(s->t, (s->n + 1) * sizeof(*s->t));
		if (!more)
			return errbuf_set(ps->why, ENOMEM, "out of memory");
		s->t = more;
		struct term *t = &s->t[s->n++];
		memset(t, 0, sizeof(*t));
		if (parse_atom(ps, t) < 0 || parse_quantifier(ps, t) < 0)
			return -EINVAL;
	}
	return 0;
}

static int parse_alts(struct parser *ps, struct term *group)
{
	for (;;) {
		struct seq *more = realloc(group->alts, (group->nalts + 1) * sizeof(*group->alts));
		if (!more)
			return errbuf_set(ps->why, ENOMEM, "out of memory");
		group->alts = more;
		struct seq *s = &group->alts[group->nalts++];
		*s = (struct seq){0};
		if (parse_seq(ps, s) < 0)
			return -EINVAL;
		if (*ps->p != '|')
			return 0;
		ps->p++;
	}
}

static void group_free(struct term *t)
{
	for (size_t a = 0; a < t->nalts; a++) {
		for (size_t i = 0; i < t->alts[a].n; i++)
			group_free(&t->alts[a].t[i]);
		free(t->alts[a].t);
	}
	free(t->alts);
}

void jregex_free(struct jregex *re)
{
	if (!re)
		return;
	group_free(&re->root);
	free(re);
}

struct jregex *jregex_compile(const char *pattern, struct errbuf *why)
{
	struct jregex *re = calloc(1, sizeof(*re));
	struct parser ps = {pattern, pattern, 0, why};
	if (!re) {
		errbuf_set(why, ENOMEM, "out of memory");
		return NULL;
	}
	re->root.kind = T_GROUP;
	re->root.min = re->root.max = 1;
	if (parse_alts(&ps, &re->root) < 0 || (*ps.p == ')' && fail(&ps, "an unmatched )") < 0)) {
		jregex_free(re);
		return NULL;
	}
	re->anchored = true;
	for (size_t a = 0; a < re->root.nalts; a++)
		if (!re->root.alts[a].n || re->root.alts[a].t[0].kind != T_BOL)
			re->anchored = false;
	return re;
}

/* ---- matching ------------------------------------------------------------- */

struct subject {
	const unsigned char *s;
	size_t len;
};

/* What to match once a group's alternative has matched: the group again
 * (count repetitions so far, the last of which started at start), then the
 * rest of the sequence it is in, then whatever is above. */
struct cont {
	const struct seq *seq;
	size_t idx;
	unsigned count;
	size_t start;
	const struct cont *up;
};

static bool match_seq(const struct subject *sb, const struct seq *seq, size_t idx, size_t pos,
		      const struct cont *up);

static bool lookahead(const struct subject *sb, const struct term *t, size_t pos)
{
	for (size_t a = 0; a < t->nalts; a++)
		if (match_seq(sb, &t->alts[a], 0, pos, NULL))
			return true;
	return false;
}

static bool repeat_group(const struct subject *sb, const struct seq *seq, size_t idx, unsigned count,
			 size_t pos, const struct cont *up)
{
	const struct term *t = &seq->t[idx];
	if (count < t->max) {
		struct cont k = {seq, idx, count + 1, pos, up};
		for (size_t a = 0; a < t->nalts; a++)
			if (match_seq(sb, &t->alts[a], 0, pos, &k))
				return true;
	}
	return count >= t->min && match_seq(sb, seq, idx + 1, pos, up);
}

static bool match_seq(const struct subject *sb, const struct seq *seq, size_t idx, size_t pos,
		      const struct cont *up)
{
	if (idx == seq->n) {
		if (!up)
			return true;
		/* once the minimum is met, a repetition that matched nothing
		 * fails (ECMA-262's rule): it would loop forever */
		if (pos == up->start && up->count > up->seq->t[up->idx].min)
			return false;
		return repeat_group(sb, up->seq, up->idx, up->count, pos, up->up);
	}
	const struct term *t = &seq->t[idx];
	switch (t->kind) {
	case T_BOL:
		return pos == 0 && match_seq(sb, seq, idx + 1, pos, up);
	case T_EOL:
		return pos == sb->len && match_seq(sb, seq, idx + 1, pos, up);
	case T_AHEAD:
	case T_NOT_AHEAD:
		return lookahead(sb, t, pos) == (t->kind == T_AHEAD) &&
		       match_seq(sb, seq, idx + 1, pos, up);
	case T_GROUP:
		return repeat_group(sb, seq, idx, 0, pos, up);
	case T_BYTES:
		break;
	}
	size_t run = 0;
	while (run < t->max && pos + run < sb->len && set_has(t->set, sb->s[pos + run]))
		run++;
	if (run < t->min)
		return false;
	for (size_t n = run + 1; n-- > t->min;)
		if (match_seq(sb, seq, idx + 1, pos + n, up))
			return true;
	return false;
}

bool jregex_search(const struct jregex *re, const char *s, size_t len)
{
	struct subject sb = {(const unsigned char *)s, len};
	struct seq top = {(struct term *)&re->root, 1};
	size_t last = re->anchored ? 0 : len;
	for (size_t pos = 0; pos <= last; pos++)
		if (match_seq(&sb, &top, 0, pos, NULL))
			return true;
	return false;
}
