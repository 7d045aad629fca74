// SPDX-License-Identifier: GPL-2.0
/*
 * Value entries: "trace FUNC value argN|retval" samples FUNC's Nth
 * argument (1-based) at its entry, or its return value, instead of its
 * runtime. Only N up to the register arguments is accepted: arguments
 * past them are on the stack, where regs_get_kernel_argument() guesses.
 * The function's own argument count is not checked: of the kernel's BTF
 * only btf_type_by_id() is exported to modules on 6.1 and 6.12, with no
 * way to get vmlinux's BTF or to look a function up by name.
 */
#include <linux/ctype.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/seq_file.h>
#include <linux/string.h>
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

void kstats_value_show(struct seq_file *m, const struct kstats_probe *p,
		       unsigned long errors)
{
	if (p->value == KSTATS_VALUE_ARG)
		seq_printf(m, " value arg%u", p->arg);
	else if (p->value == KSTATS_VALUE_RETVAL)
		seq_printf(m, " value retval errors %lu", errors);
}
