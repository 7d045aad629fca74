// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: front end. Pure: calls nothing of kstats but the
 * core's name check.
 *
 * kstats _control parser: one command line into a struct kstats_cmd.
 *
 *   trace FUNC [bits N] [via kretprobe|fprobe|direct] [as NAME] [clock mono|tsc]
 *              [value argN|retval [type u8..s64]] [counter EVENT] [FILTER...]
 *   trace pcpu:FUNC [bits N] [as NAME] [clock local|mono|tsc] [counter EVENT]
 *              [FILTER...]
 *   trace NAME start X end Y [bits N] [key cpu|task|argN] [slots N]
 *                            [expire N] [clock C]
 *              [counter EVENT] [FILTER...]
 *   (each trace form but the gap also [by comm|pid|tid|cpu|cgroup [keys N]];
 *   trace FUNC and pcpu:FUNC also [by retval [type T]]; trace FUNC and
 *   pairs also [by argN [type T]]; a key task pair ending at
 *   __tracepoint_sys_exit also [by syscall])
 *   trace NAME gap X [bits N] [clock local|mono|tsc] [FILTER...]
 *   remove NAME
 *   start NAME | stop NAME | reset NAME
 *   calibrate [samples N]
 *
 * Keywords are case-insensitive, words are separated by whitespace and the
 * options after the second word come in any order, each at most once.
 * X and Y are SYMBOL, SYMBOL+OFFSET or __tracepoint_NAME; a FILTER is
 * pid N, tid N, comm NAME or cpu N (kstats_filter.c). Nothing here
 * looks at the running kernel: symbols are only checked for their syntax.
 */
#include <kunit/visibility.h>
#include <linux/ctype.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/string.h>
#include "kstats_cycles.h"
#include "kstats_internal.h"
#include "kstats_parse.h"
#include "kstats_req.h"

/* The longest valid command has 34 words; one more is enough to refuse. */
#define KSTATS_MAX_WORDS	35

#define kstats_why(cmd, fmt, ...)					\
	({								\
		snprintf((cmd)->why, sizeof((cmd)->why), fmt, ##__VA_ARGS__); \
		-EINVAL;						\
	})

/* Kernel symbols are made of [A-Za-z0-9_.]: "foo.isra.0" is one. */
static bool kstats_sym_valid(const char *s, size_t len, bool dots)
{
	size_t i;

	if (!len || len > KSTATS_SYM_MAX)
		return false;
	for (i = 0; i < len; i++)
		if (!isascii(s[i]) ||
		    (!isalnum(s[i]) && s[i] != '_' && (!dots || s[i] != '.')))
			return false;
	return !isdigit(s[0]);
}

/* X or Y of a pair: SYMBOL, SYMBOL+OFFSET or __tracepoint_NAME. */
static int kstats_parse_target(struct kstats_cmd *cmd, const char *word,
			       const char *what, struct kstats_target *t)
{
	const char *plus = strchr(word, '+');
	size_t len = plus ? plus - word : strlen(word);
	size_t pfx = strlen(KSTATS_TP_PREFIX);

	memset(t, 0, sizeof(*t));
	if (!strncmp(word, KSTATS_TP_PREFIX, pfx)) {
		if (plus)
			return kstats_why(cmd, "%s: a tracepoint takes no offset",
					  what);
		if (!kstats_sym_valid(word + pfx, len - pfx, false))
			return kstats_why(cmd, "%s: bad tracepoint name", what);
		t->tracepoint = true;
		strscpy(t->sym, word + pfx, sizeof(t->sym));
		return 0;
	}
	if (!kstats_sym_valid(word, len, true))
		return kstats_why(cmd, "%s: bad symbol", what);
	/* Decimal, or hex after 0x: a leading 0 is no octal prefix. */
	if (plus && (strncasecmp(plus + 1, "0x", 2) ?
		     kstrtouint(plus + 1, 10, &t->offset) :
		     kstrtouint(plus + 3, 16, &t->offset)))
		return kstats_why(cmd, "%s: bad offset", what);
	memcpy(t->sym, word, len);
	t->sym[len] = '\0';
	return 0;
}

/*
 * PATH:SYMBOL or PATH:0xOFFSET of "trace": a function of the file PATH
 * (absolute), and SYMBOL the entry name unless it cannot be one.
 */
static int kstats_parse_user(struct kstats_cmd *cmd, const char *word)
{
	const char *colon = strrchr(word, ':');
	size_t len = colon ? colon - word : 0;

	if (!colon || len < 2 || !colon[1])
		return kstats_why(cmd, "a user function is PATH:SYMBOL or PATH:0xOFFSET");
	if (len > KSTATS_UPATH_MAX)
		return kstats_why(cmd, "PATH of PATH:SYMBOL is longer than %d bytes",
				  KSTATS_UPATH_MAX);
	memcpy(cmd->upath, word, len);
	cmd->upath[len] = '\0';
	if (!strncasecmp(colon + 1, "0x", 2))
		return kstrtou64(colon + 3, 16, &cmd->uoffset) ?
		       kstats_why(cmd, "bad offset in PATH:0xOFFSET") : 0;
	if (!kstats_sym_valid(colon + 1, strlen(colon + 1), true))
		return kstats_why(cmd, "bad symbol in PATH:SYMBOL");
	if (kstats_name_valid(colon + 1))
		strscpy(cmd->name, colon + 1, sizeof(cmd->name));
	strscpy(cmd->start.sym, colon + 1, sizeof(cmd->start.sym));
	return 0;
}

/*
 * What a user function's entry serves: its time or an integer argument or
 * return value, in keys of the task that called it, of an argument or of
 * the return value, and its outliers (with the caller's address, no
 * stack). No BTF describes a process's code, so "type" gives the width
 * of a register that is read.
 */
static int kstats_parse_user_check(struct kstats_cmd *cmd)
{
	if (cmd->counter)
		return kstats_why(cmd, "counter: not for PATH:SYMBOL (time only)");
	switch (cmd->by) {
	case KSTATS_BY_NONE:
	case KSTATS_BY_COMM:
	case KSTATS_BY_PID:
	case KSTATS_BY_TID:
	case KSTATS_BY_CPU:
	case KSTATS_BY_CGROUP:
	case KSTATS_BY_RETVAL:
	case KSTATS_BY_ARG:
		break;
	default:
		return kstats_why(cmd,
				  "by: PATH:SYMBOL takes by comm, pid, tid, cpu, cgroup, retval or argN");
	}
	if (cmd->by_path[0])
		return kstats_why(cmd,
				  "by argN->MEMBER: a user function's pointer is the process's");
	if (!cmd->vbytes && (cmd->value != KSTATS_VALUE_TIME ||
			     cmd->by == KSTATS_BY_RETVAL ||
			     cmd->by == KSTATS_BY_ARG))
		return kstats_why(cmd,
				  "PATH:SYMBOL has no BTF: value and by retval|argN need type u8 to s64");
	return 0;
}

/*
 * FUNC of "trace FUNC" and "trace pcpu:FUNC": a symbol, and the entry name
 * unless it cannot be one (leading _, too long): "as NAME" then names it.
 */
static int kstats_parse_func(struct kstats_cmd *cmd, const char *func)
{
	size_t len = strlen(func);

	if (!strncmp(func, KSTATS_TP_PREFIX, strlen(KSTATS_TP_PREFIX)))
		return kstats_why(cmd, "trace FUNC takes a function, not a tracepoint");
	if (!kstats_sym_valid(func, len, true))
		return kstats_why(cmd, "bad function name");
	if (kstats_name_valid(func))
		strscpy(cmd->name, func, sizeof(cmd->name));
	strscpy(cmd->start.sym, func, sizeof(cmd->start.sym));
	return 0;
}

const char * const kstats_cond_ops[] = {
	[KSTATS_COND_EQ] = "==", [KSTATS_COND_NE] = "!=",
	[KSTATS_COND_LT] = "<", [KSTATS_COND_GT] = ">",
};

/* Where key argN written before every site of a pair goes. */
#define KSTATS_KEY_ALL	KSTATS_PAIR_SITES

/*
 * EXPR: "argN", then at most KSTATS_PATH_STEPS "->MEMBER", into @arg and
 * @path ("" or "->a->b"); 0 or -EINVAL with @cmd->why set (for @opt).
 */
static int kstats_parse_expr(struct kstats_cmd *cmd, const char *opt,
			     const char *v, unsigned int *arg, char *path)
{
	const char *arrow = strstr(v, "->"), *s;
	unsigned int steps = 0;
	char n[8];

	path[0] = '\0';
	if (arrow && arrow - v < sizeof(n)) {
		memcpy(n, v, arrow - v);
		n[arrow - v] = '\0';
	}
	if (arrow ? arrow - v >= sizeof(n) || kstats_parse_arg(n, arg) :
	    kstats_parse_arg(v, arg))
		return kstats_why(cmd, "%s: arg1 to arg%d, then ->MEMBER..., not '%.40s'",
				  opt, KSTATS_REG_ARGS, v);
	if (!arrow)
		return 0;
	if (strlen(arrow) >= KSTATS_PATH_LEN)
		return kstats_why(cmd, "%s: a field path of over %d characters",
				  opt, KSTATS_PATH_LEN - 1);
	for (s = arrow; *s; steps++) {
		if (strncmp(s, "->", 2) || !(isalpha(s[2]) || s[2] == '_'))
			return kstats_why(cmd, "%s: bad field path '%.40s'", opt, arrow);
		for (s += 3; isalnum(*s) || *s == '_'; s++)
			;
	}
	if (steps > KSTATS_PATH_STEPS)
		return kstats_why(cmd, "%s: a field path of at most %d members",
				  opt, KSTATS_PATH_STEPS);
	strscpy(path, arrow, KSTATS_PATH_LEN);
	return 0;
}

/*
 * "key cpu|task|EXPR". key EXPR written after a site is that site's,
 * before every site @all's; kstats_key_sites() spreads them once the line
 * is read. @all->key_arg is UINT_MAX once key cpu or task was written.
 */
static int kstats_parse_key(struct kstats_cmd *cmd, const char *v,
			    unsigned int site, struct kstats_cmd_side *all)
{
	struct kstats_cmd_side *sd = site == KSTATS_KEY_ALL ? all : &cmd->side[site];
	unsigned int i;

	if (!strcasecmp(v, "cpu") || !strcasecmp(v, "task")) {
		for (i = 0; i < KSTATS_PAIR_SITES; i++)
			if (cmd->side[i].key_arg)
				break;
		if (cmd->key != KSTATS_KEY_CPU || all->key_arg ||
		    i < KSTATS_PAIR_SITES)
			return kstats_why(cmd, "key given twice");
		cmd->key = tolower(v[0]) == 'c' ? KSTATS_KEY_CPU : KSTATS_KEY_TASK;
		/* key cpu, the default, written: a key argN may not follow. */
		all->key_arg = UINT_MAX;
		return 0;
	}
	if (!strstr(v, "->") && kstats_parse_arg(v, &i))
		return kstats_why(cmd, "key must be cpu, task or arg1 to arg%d",
				  KSTATS_REG_ARGS);
	if (cmd->key != KSTATS_KEY_CPU || all->key_arg == UINT_MAX ||
	    sd->key_arg)
		return kstats_why(cmd, "key given twice%s",
				  site == KSTATS_KEY_ALL ? "" :
				  site == KSTATS_SIDE_END ? " for end" : " for a start");
	return kstats_parse_expr(cmd, "key", v, &sd->key_arg, sd->key_path);
}

static bool kstats_same_key(const struct kstats_cmd_side *a,
			    const struct kstats_cmd_side *b)
{
	return a->key_arg == b->key_arg && !strcmp(a->key_path, b->key_path);
}

/*
 * Each site's key: the end's own, else the one written before every
 * site, else the starts' if they agree; a start's own, else the one
 * written before every site, else the end's.
 */
static int kstats_key_sites(struct kstats_cmd *cmd,
			    const struct kstats_cmd_side *all)
{
	struct kstats_cmd_side *end = &cmd->side[KSTATS_SIDE_END];
	const struct kstats_cmd_side *key = NULL, *sd;
	unsigned int i;

	if (all->key_arg == UINT_MAX)
		return 0;
	if (end->key_arg)
		key = end;
	else if (all->key_arg)
		key = all;
	for (i = 0; !key && i < KSTATS_NR_SIDES + cmd->nr_more; i++) {
		sd = &cmd->side[i];
		if (!sd->key_arg)
			continue;
		for (; i < KSTATS_NR_SIDES + cmd->nr_more; i++)
			if (cmd->side[i].key_arg && !kstats_same_key(sd, &cmd->side[i]))
				return kstats_why(cmd,
						  "the starts have keys of their own that differ: give the end one");
		key = sd;
	}
	if (!key)
		return 0;
	cmd->key = KSTATS_KEY_ARG;
	for (i = 0; i < KSTATS_NR_SIDES + cmd->nr_more; i++) {
		sd = i != KSTATS_SIDE_END && all->key_arg ? all : key;
		if (cmd->side[i].key_arg)
			continue;
		cmd->side[i].key_arg = sd->key_arg;
		strscpy(cmd->side[i].key_path, sd->key_path,
			sizeof(cmd->side[i].key_path));
	}
	return 0;
}

/*
 * Past a function's entry its argument registers may be reused: key argN
 * and if argN need every site at an entry or a tracepoint. The options
 * read at "the" start are refused with several.
 */
static int kstats_parse_more_check(struct kstats_cmd *cmd)
{
	const struct kstats_target *t;
	unsigned int i;

	for (i = 0; i < KSTATS_NR_SIDES + cmd->nr_more; i++) {
		t = i == KSTATS_SIDE_BEGIN ? &cmd->start :
		    i == KSTATS_SIDE_END ? &cmd->end : &cmd->more[i - KSTATS_NR_SIDES];
		if (t->offset && (cmd->key == KSTATS_KEY_ARG || cmd->side[i].cond))
			return kstats_why(cmd,
					  "key argN, if argN: %s is SYMBOL+OFFSET, where the argument registers may hold anything",
					  i == KSTATS_SIDE_END ? "end" : "start");
	}
	if (cmd->nr_more && cmd->by == KSTATS_BY_ARG &&
	    cmd->by_site != KSTATS_SIDE_END)
		return kstats_why(cmd,
				  "by argN at a start: one start only (each start's argument N may differ); write it after the end");
	return 0;
}

/*
 * The site of by argN and by stack, @site being the one written before
 * it: the end's or the starts'. A bare argN after the end of a pair with
 * one start is the start's, as it was before sites had options.
 */
static void kstats_by_site(struct kstats_cmd *cmd, unsigned int site)
{
	if (cmd->by != KSTATS_BY_ARG && cmd->by != KSTATS_BY_STACK)
		return;
	if (cmd->by == KSTATS_BY_ARG && !cmd->by_path[0] && !cmd->nr_more)
		return;
	cmd->by_site = site == KSTATS_SIDE_END ? KSTATS_SIDE_END :
		       KSTATS_SIDE_BEGIN;
}

/*
 * The "STRING" of "if argN->NAME OP "STRING"": 1 to KSTATS_STR_KEY - 1
 * printable bytes in double quotes, none of them a quote, a comma or a
 * '|' (the listing's separators), into @sd without its quotes.
 */
static int kstats_parse_cond_str(struct kstats_cmd *cmd,
				 struct kstats_cmd_side *sd, const char *w,
				 unsigned int op)
{
	size_t len = strlen(w), i;

	if (op != KSTATS_COND_EQ && op != KSTATS_COND_NE)
		return kstats_why(cmd, "if: a string compares with == or != only");
	if (len < 3 || w[len - 1] != '"' || len - 2 >= KSTATS_STR_KEY)
		return kstats_why(cmd, "if: a string is 1 to %d characters in double quotes",
				  KSTATS_STR_KEY - 1);
	for (i = 1; i < len - 1; i++)
		if (!isprint(w[i]) || strchr("\",|", w[i]))
			return kstats_why(cmd,
					  "if: a string has no quote, comma, | or unprintable byte");
	memcpy(sd->cond_str, w + 1, len - 2);
	sd->cond_str[len - 2] = '\0';
	return 0;
}

/*
 * "if argN OP NUMBER" or "if argN->NAME OP "STRING"", @w at argN and @n
 * words from there, into @sd.
 */
static int kstats_parse_cond(struct kstats_cmd *cmd, struct kstats_cmd_side *sd,
			     char **w, int n)
{
	const char * const *ops = kstats_cond_ops;
	unsigned int op;
	u64 u;

	if (sd->cond)
		return kstats_why(cmd, "if given twice for one side");
	if (n < 3)
		return kstats_why(cmd, "if takes argN OP NUMBER");
	if (kstats_parse_expr(cmd, "if", w[0], &sd->cond_arg, sd->cond_path))
		return -EINVAL;
	for (op = KSTATS_COND_EQ; op <= KSTATS_COND_GT; op++)
		if (!strcmp(w[1], ops[op]))
			break;
	if (op > KSTATS_COND_GT)
		return kstats_why(cmd, "if: OP must be ==, !=, < or >, not '%.20s'",
				  w[1]);
	if (w[2][0] == '"') {
		if (kstats_parse_cond_str(cmd, sd, w[2], op))
			return -EINVAL;
		sd->cond = op;
		return 0;
	}
	if (w[2][0] == '-' ? kstrtos64(w[2], 0, &sd->cond_val) :
	    kstrtou64(w[2], 0, &u))
		return kstats_why(cmd, "if: bad NUMBER '%.24s'", w[2]);
	sd->cond_neg = w[2][0] == '-';
	if (!sd->cond_neg)
		sd->cond_val = (s64)u;
	sd->cond = op;
	return 0;
}

static int kstats_parse_trace(struct kstats_cmd *cmd, char **w, int n)
{
	struct kstats_cmd_side all = {};	/* key written before every site */
	unsigned int site = KSTATS_KEY_ALL;	/* where options go */
	unsigned int by_site = KSTATS_KEY_ALL;	/* where by was */
	bool pair = false, have_bits = false, have_via = false, have_as = false,
	     have_start = false, have_end = false,
	     have_slots = false, have_clock = false, have_value = false,
	     have_type = false, have_expire = false, gap = false;
	unsigned int bits, slots, expire;
	int i, ret;

	if (n < 2)
		return kstats_why(cmd, "trace: what to trace is missing");
	if ((n - 2) % 2)
		return kstats_why(cmd, "trace: options come as keyword and value");
	for (i = 2; i < n; i += 2)
		if (!strcasecmp(w[i], "start") || !strcasecmp(w[i], "end"))
			pair = true;
		else if (!strcasecmp(w[i], "gap"))
			gap = true;
	if (pair && gap)
		return kstats_why(cmd, "a gap takes no start or end");

	if (!strncasecmp(w[1], KSTATS_PCPU_PREFIX, strlen(KSTATS_PCPU_PREFIX))) {
		if (pair || gap)
			return kstats_why(cmd, "trace pcpu:FUNC takes no start, end or gap");
		cmd->op = KSTATS_CMD_TRACE_PCPU;
		ret = kstats_parse_func(cmd, w[1] + strlen(KSTATS_PCPU_PREFIX));
	} else if (pair || gap) {
		cmd->op = gap ? KSTATS_CMD_TRACE_GAP : KSTATS_CMD_TRACE_PAIR;
		if (!kstats_name_valid(w[1]))
			return kstats_why(cmd, "bad entry name (see kstats_new())");
		strscpy(cmd->name, w[1], sizeof(cmd->name));
		ret = 0;
	} else if (w[1][0] == '/') {
		cmd->op = KSTATS_CMD_TRACE_USER;
		ret = kstats_parse_user(cmd, w[1]);
	} else {
		cmd->op = KSTATS_CMD_TRACE;
		ret = kstats_parse_func(cmd, w[1]);
	}
	if (ret)
		return ret;

	for (i = 2; i < n; i += 2) {
		const char *k = w[i], *v = w[i + 1];

		if (!strcasecmp(k, "by"))
			by_site = site;
		if (!strcasecmp(k, "by") && strstr(v, "->")) {
			if (cmd->by)
				return kstats_why(cmd, "by given twice");
			ret = kstats_parse_expr(cmd, "by", v, &cmd->by_arg,
						cmd->by_path);
			if (ret)
				return ret;
			cmd->by = KSTATS_BY_ARG;
		} else if (!strcasecmp(k, "bits")) {
			if (have_bits)
				return kstats_why(cmd, "bits given twice");
			have_bits = true;
			if (kstrtouint(v, 10, &bits) || bits > KSTATS_MAX_FRAC_BITS)
				return kstats_why(cmd, "bits must be 0 to %d",
						  KSTATS_MAX_FRAC_BITS);
			cmd->bits = bits;
		} else if (!strcasecmp(k, "via")) {
			if (cmd->op != KSTATS_CMD_TRACE)
				return kstats_why(cmd, "via is only for trace FUNC");
			if (have_via)
				return kstats_why(cmd, "via given twice");
			have_via = true;
			if (!strcasecmp(v, "kretprobe"))
				cmd->via = KSTATS_VIA_KRETPROBE;
			else if (!strcasecmp(v, "fprobe"))
				cmd->via = KSTATS_VIA_FPROBE;
			else if (!strcasecmp(v, "direct"))
				cmd->via = KSTATS_VIA_DIRECT;
			else
				return kstats_why(cmd, "via must be kretprobe, fprobe or direct");
		} else if (!strcasecmp(k, "as")) {
			if (cmd->op == KSTATS_CMD_TRACE_PAIR ||
			    cmd->op == KSTATS_CMD_TRACE_GAP)
				return kstats_why(cmd, "as is only for trace FUNC");
			if (have_as)
				return kstats_why(cmd, "as given twice");
			have_as = true;
			if (!kstats_name_valid(v))
				return kstats_why(cmd, "as: bad entry name (see kstats_new())");
			strscpy(cmd->name, v, sizeof(cmd->name));
		} else if (!strcasecmp(k, "key")) {
			if (cmd->op != KSTATS_CMD_TRACE_PAIR)
				return kstats_why(cmd, "key is only for start/end pairs");
			ret = kstats_parse_key(cmd, v, site, &all);
			if (ret)
				return ret;
		} else if (!strcasecmp(k, "if")) {
			if (cmd->op != KSTATS_CMD_TRACE_PAIR)
				return kstats_why(cmd, "if is only for start/end pairs");
			if (site == KSTATS_KEY_ALL)
				return kstats_why(cmd, "if must follow start SITE or end SITE");
			ret = kstats_parse_cond(cmd, &cmd->side[site], w + i + 1,
						n - i - 1);
			if (ret)
				return ret;
			i += 2;		/* argN OP NUMBER: two words more */
		} else if (!strcasecmp(k, "expire")) {
			if (have_expire)
				return kstats_why(cmd, "expire given twice");
			have_expire = true;
			if (kstrtouint(v, 10, &expire) ||
			    expire < KSTATS_REQ_EXPIRE_MIN ||
			    expire > KSTATS_REQ_EXPIRE_MAX)
				return kstats_why(cmd, "expire must be %d to %d seconds",
						  KSTATS_REQ_EXPIRE_MIN,
						  KSTATS_REQ_EXPIRE_MAX);
			cmd->expire = expire;
		} else if (!strcasecmp(k, "clock")) {
			if (have_clock)
				return kstats_why(cmd, "clock given twice");
			have_clock = true;
			if (!strcasecmp(v, "local"))
				cmd->clock = KSTATS_CLOCK_LOCAL;
			else if (!strcasecmp(v, "mono"))
				cmd->clock = KSTATS_CLOCK_MONO;
			else if (!strcasecmp(v, KSTATS_CYCLES_NAME))
				cmd->clock = KSTATS_CLOCK_TSC;
			else
				return kstats_why(cmd, "clock must be local, mono or "
						  KSTATS_CYCLES_NAME);
		} else if (!strcasecmp(k, "slots")) {
			if (cmd->op != KSTATS_CMD_TRACE_PAIR)
				return kstats_why(cmd, "slots is only for start/end pairs");
			if (have_slots)
				return kstats_why(cmd, "slots given twice");
			have_slots = true;
			if (kstrtouint(v, 10, &slots) ||
			    slots < KSTATS_TASK_SLOTS_MIN ||
			    slots > KSTATS_TASK_SLOTS_MAX)
				return kstats_why(cmd, "slots must be %u to %lu",
						  KSTATS_TASK_SLOTS_MIN,
						  KSTATS_TASK_SLOTS_MAX);
			cmd->slots = slots;
		} else if (!strcasecmp(k, "start")) {
			if (!have_start) {
				site = KSTATS_SIDE_BEGIN;
				ret = kstats_parse_target(cmd, v, "start",
							  &cmd->start);
			} else if (cmd->nr_more < KSTATS_MORE_STARTS) {
				site = KSTATS_NR_SIDES + cmd->nr_more;
				ret = kstats_parse_target(cmd, v, "start",
							  &cmd->more[cmd->nr_more++]);
			} else {
				return kstats_why(cmd, "at most %d starts",
						  KSTATS_MORE_STARTS + 1);
			}
			have_start = true;
			if (ret)
				return ret;
		} else if (!strcasecmp(k, "end")) {
			if (have_end)
				return kstats_why(cmd, "end given twice");
			have_end = true;
			site = KSTATS_SIDE_END;
			ret = kstats_parse_target(cmd, v, "end", &cmd->end);
			if (ret)
				return ret;
		} else if (!strcasecmp(k, "gap")) {
			if (cmd->start.sym[0])
				return kstats_why(cmd, "gap given twice");
			ret = kstats_parse_target(cmd, v, "gap", &cmd->start);
			if (ret)
				return ret;
		} else if (!strcasecmp(k, "value")) {
			if (have_value)
				return kstats_why(cmd, "value given twice");
			have_value = true;
			ret = kstats_parse_value(cmd, v);
			if (ret)
				return ret;
		} else if (!strcasecmp(k, "type")) {
			if (have_type)
				return kstats_why(cmd, "type given twice");
			have_type = true;
			ret = kstats_parse_value_type(cmd, v);
			if (ret)
				return ret;
		} else if (!strcasecmp(k, "counter")) {
			ret = kstats_parse_counter(cmd, v);
			if (ret)
				return ret;
		} else {
			ret = kstats_parse_filter(cmd, k, v);
			if (ret == -ENOENT)
				ret = kstats_parse_keys(cmd, k, v);
			if (ret == -ENOENT)
				ret = kstats_parse_outliers(cmd, k, v);
			if (ret == -ENOENT)
				return kstats_why(cmd, "unknown option '%.20s'", k);
			if (ret)
				return ret;
		}
	}
	if (pair && (!have_start || !have_end))
		return kstats_why(cmd, "a pair needs both start and end");
	if (cmd->op == KSTATS_CMD_TRACE_USER) {
		ret = kstats_parse_user_check(cmd);
		if (ret)
			return ret;
	}
	ret = kstats_key_sites(cmd, &all);
	if (ret)
		return ret;
	kstats_by_site(cmd, by_site);
	ret = kstats_parse_more_check(cmd);
	if (ret)
		return ret;
	if (have_slots && cmd->key == KSTATS_KEY_CPU)
		return kstats_why(cmd, "slots is only for key task and key argN");
	if (have_expire && cmd->key != KSTATS_KEY_ARG)
		return kstats_why(cmd, "expire is only for key argN");
	if (cmd->by == KSTATS_BY_ARG &&
	    (cmd->by_site == KSTATS_SIDE_END ? &cmd->end : &cmd->start)->offset)
		return kstats_why(cmd,
				  "by argN: %s is SYMBOL+OFFSET, where the argument registers may hold anything",
				  !pair ? "FUNC" : cmd->by_site ? "end" : "start");
	/*
	 * A call of FUNC or of a user function may end on another CPU, and
	 * so may a task's pair.
	 */
	if (cmd->clock == KSTATS_CLOCK_LOCAL &&
	    (cmd->op == KSTATS_CMD_TRACE || cmd->op == KSTATS_CMD_TRACE_USER ||
	     cmd->key != KSTATS_KEY_CPU))
		return kstats_why(cmd, "clock local is only for pcpu: and key cpu");
	if (have_value && have_clock)
		return kstats_why(cmd, "a value entry reads no clock");
	if (have_type && !have_value && cmd->by != KSTATS_BY_RETVAL &&
	    cmd->by != KSTATS_BY_ARG && cmd->key != KSTATS_KEY_ARG &&
	    !cmd->side[KSTATS_SIDE_BEGIN].cond && !cmd->side[KSTATS_SIDE_END].cond)
		return kstats_why(cmd,
				  "type is only for value argN|retval, by retval|argN, key argN and if argN");
	if (cmd->keys && !cmd->by)
		return kstats_why(cmd, "keys is only for by KEY");
	ret = kstats_parse_counter_check(cmd);
	if (ret)
		return ret;
	if (!cmd->name[0])
		return kstats_why(cmd, "FUNC needs 'as NAME' (leading _ or over %d chars)",
				  KSTATS_NAME_MAX);
	return 0;
}

/* The commands that take one entry name. */
static const struct {
	const char *word;
	enum kstats_cmd_op op;
} kstats_named_ops[] = {
	{ "remove", KSTATS_CMD_REMOVE },
	{ "start", KSTATS_CMD_START },
	{ "stop", KSTATS_CMD_STOP },
	{ "reset", KSTATS_CMD_RESET },
};

int kstats_parse(const char *line, size_t len, struct kstats_cmd *cmd)
{
	char buf[KSTATS_CMD_LEN + 1], *w[KSTATS_MAX_WORDS], *p;
	int n = 0;
	size_t i;

	memset(cmd, 0, sizeof(*cmd));
	cmd->bits = KSTATS_DEFAULT_BITS;
	if (len > KSTATS_CMD_LEN)
		return kstats_why(cmd, "command longer than %d bytes",
				  KSTATS_CMD_LEN);
	memcpy(buf, line, len);
	buf[len] = '\0';
	if (strlen(buf) != len)
		return kstats_why(cmd, "NUL byte in command");

	for (p = buf; n < KSTATS_MAX_WORDS;) {
		while (isspace(*p))
			p++;
		if (!*p)
			break;
		w[n++] = p;
		while (*p && !isspace(*p))
			p++;
		if (*p)
			*p++ = '\0';
	}
	if (!n)
		return kstats_why(cmd, "empty command");
	if (n == KSTATS_MAX_WORDS)
		return kstats_why(cmd, "too many words");

	if (!strcasecmp(w[0], "trace"))
		return kstats_parse_trace(cmd, w, n);
	for (i = 0; i < ARRAY_SIZE(kstats_named_ops); i++) {
		if (strcasecmp(w[0], kstats_named_ops[i].word))
			continue;
		cmd->op = kstats_named_ops[i].op;
		if (n != 2)
			return kstats_why(cmd, "usage: %s NAME",
					  kstats_named_ops[i].word);
		if (strlen(w[1]) > KSTATS_NAME_MAX)
			return kstats_why(cmd, "name longer than %d characters",
					  KSTATS_NAME_MAX);
		strscpy(cmd->name, w[1], sizeof(cmd->name));
		return 0;
	}
	if (!strcasecmp(w[0], "calibrate")) {
		cmd->op = KSTATS_CMD_CALIBRATE;
		cmd->samples = KSTATS_CALIB_SAMPLES;
		if (n == 1)
			return 0;
		if (n != 3 || strcasecmp(w[1], "samples") ||
		    kstrtouint(w[2], 10, &cmd->samples) ||
		    cmd->samples < KSTATS_CALIB_MIN ||
		    cmd->samples > KSTATS_CALIB_MAX)
			return kstats_why(cmd, "usage: calibrate [samples %u..%u]",
					  KSTATS_CALIB_MIN, KSTATS_CALIB_MAX);
		return 0;
	}
	return kstats_why(cmd,
			  "unknown command, expected trace, remove, start, stop, reset or calibrate");
}
EXPORT_SYMBOL_IF_KUNIT(kstats_parse);
