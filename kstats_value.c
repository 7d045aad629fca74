// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: shared probe helpers. Calls the BTF helpers
 * (kstats_btf.c).
 *
 * Value entries: "trace FUNC value argN|retval" samples FUNC's Nth
 * argument (1-based) at its entry, or its return value, instead of its
 * runtime. Only N up to the register arguments is accepted: arguments
 * past them are on the stack, where regs_get_kernel_argument() guesses.
 *
 * Where the kernel has FUNC's BTF, its type says how many bits of the
 * register are the value and whether it is signed; the argument must
 * exist and be in register N, and pointers are refused (addresses in
 * files that every user reads). Without BTF (a module built without it)
 * the whole register is taken.
 */
#include <linux/ctype.h>
#include <linux/errno.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include "kstats_btf.h"
#include "kstats_parse.h"
#include "kstats_probe.h"
#include "kstats_value.h"

int kstats_parse_value(struct kstats_cmd *cmd, const char *val)
{
	unsigned int n;

	if (cmd->op != KSTATS_CMD_TRACE)
		return kstats_fail(cmd, -EINVAL, "value is only for trace FUNC");
	if (!strcasecmp(val, "retval")) {
		cmd->value = KSTATS_VALUE_RETVAL;
		return 0;
	}
	if (strncasecmp(val, "arg", 3) || !isdigit(val[3]) ||
	    kstrtouint(val + 3, 10, &n) || n < 1 || n > KSTATS_REG_ARGS)
		return kstats_fail(cmd, -EINVAL,
				   "value must be retval or arg1 to arg%d (the register arguments)",
				   KSTATS_REG_ARGS);
	cmd->value = KSTATS_VALUE_ARG;
	cmd->arg = n;
	return 0;
}

int kstats_value_setup(struct kstats_probe *p, struct kstats_cmd *cmd)
{
	struct kstats_btf_int type = {};
	char sym[KSYM_SYMBOL_LEN];
	const char *mod;
	int ret;

	p->vbits = 0;
	p->vsigned = false;
	p->vmask = ~0ULL;
	p->verrors = true;
	if (p->value == KSTATS_VALUE_TIME)
		return 0;
	mod = kstats_btf_module_of(p->addr, sym);
	ret = kstats_btf_value_type(p->start.target.sym, mod,
				    p->value == KSTATS_VALUE_ARG ? p->arg : 0,
				    &type, cmd->why, sizeof(cmd->why));
	if (ret == -ENOENT) {
		cmd->why[0] = '\0';
		return 0;	/* no BTF: the whole register */
	}
	if (ret)
		return ret;
	p->vbits = type.bytes * 8;
	p->vsigned = type.is_signed;
	p->vmask = p->vbits == 64 ? ~0ULL : BIT_ULL(p->vbits) - 1;
	/* A bool, char or short -1 is no errno. */
	p->verrors = p->vbits >= 32;
	return 0;
}

/* " type s32": the type taken from BTF; "reg" for the whole register. */
static void kstats_value_show_type(struct seq_file *m,
				   const struct kstats_probe *p)
{
	if (!p->vbits)
		seq_puts(m, " type reg");
	else
		seq_printf(m, " type %c%u", p->vsigned ? 's' : 'u', p->vbits);
}

void kstats_value_show(struct seq_file *m, const struct kstats_probe *p,
		       unsigned long errors)
{
	if (p->value == KSTATS_VALUE_ARG) {
		seq_printf(m, " value arg%u", p->arg);
		kstats_value_show_type(m, p);
	} else if (p->value == KSTATS_VALUE_RETVAL) {
		seq_puts(m, " value retval");
		kstats_value_show_type(m, p);
		seq_printf(m, " errors %lu", errors);
	}
}
