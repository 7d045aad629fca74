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
 * files that every user reads). Without BTF (a module built without it,
 * or a compiler clone such as foo.isra.0) the user must say the type:
 * the upper bits of a narrow type are garbage, and a clone may take its
 * arguments in other registers than its source says. A type given where
 * BTF is known must agree with it.
 */
#include <linux/ctype.h>
#include <linux/errno.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include "kstats_btf.h"
#include "kstats_parse.h"
#include "kstats_probe.h"
#include "kstats_target.h"
#include "kstats_value.h"

int kstats_parse_arg(const char *val, unsigned int *arg)
{
	unsigned int n;

	if (strncasecmp(val, "arg", 3) || !isdigit(val[3]) ||
	    kstrtouint(val + 3, 10, &n) || n < 1 || n > KSTATS_REG_ARGS)
		return -EINVAL;
	*arg = n;
	return 0;
}

int kstats_parse_value(struct kstats_cmd *cmd, const char *val)
{
	unsigned int n;

	if (cmd->op != KSTATS_CMD_TRACE && cmd->op != KSTATS_CMD_TRACE_USER)
		return kstats_fail(cmd, -EINVAL,
				   "value is only for trace FUNC and PATH:SYMBOL");
	if (!strcasecmp(val, "retval")) {
		cmd->value = KSTATS_VALUE_RETVAL;
		return 0;
	}
	if (kstats_parse_arg(val, &n))
		return kstats_fail(cmd, -EINVAL,
				   "value must be retval or arg1 to arg%d (the register arguments)",
				   KSTATS_REG_ARGS);
	cmd->value = KSTATS_VALUE_ARG;
	cmd->arg = n;
	return 0;
}

/* "type u8|u16|u32|u64|s8|s16|s32|s64" */
int kstats_parse_value_type(struct kstats_cmd *cmd, const char *val)
{
	unsigned int bits;

	if ((tolower(val[0]) != 'u' && tolower(val[0]) != 's') ||
	    !isdigit(val[1]) || kstrtouint(val + 1, 10, &bits) ||
	    (bits != 8 && bits != 16 && bits != 32 && bits != 64))
		return kstats_fail(cmd, -EINVAL,
				   "type must be u8, u16, u32, u64, s8, s16, s32 or s64");
	cmd->vbytes = bits / 8;
	cmd->vsigned = tolower(val[0]) == 's';
	return 0;
}

static char kstats_sign(bool is_signed)
{
	return is_signed ? 's' : 'u';
}

/*
 * A user function's: "type", which the parser made sure of (no BTF
 * describes a process's code). Its registers hold the process's values,
 * no kernel address: not raw.
 */
static bool kstats_user_type(const struct kstats_cmd *cmd,
			     struct kstats_btf_int *type)
{
	if (cmd->op != KSTATS_CMD_TRACE_USER)
		return false;
	type->bytes = cmd->vbytes;
	type->is_signed = cmd->vsigned;
	return true;
}

/*
 * The type of argument @arg of @p's FUNC, or of its return value (@arg
 * 0), from BTF or @cmd's "type"; see kstats_value_setup().
 */
int kstats_value_type(struct kstats_probe *p, struct kstats_cmd *cmd,
		      unsigned int arg, struct kstats_btf_int *type)
{
	char sym[KSYM_SYMBOL_LEN];
	const char *mod;
	int ret;

	if (kstats_user_type(cmd, type))
		return 0;
	mod = kstats_btf_module_of(p->addr, sym);
	ret = kstats_btf_value_type(p->start.target.sym, mod, arg, type,
				    cmd->why, sizeof(cmd->why));
	if (ret == -ENOENT) {
		if (!cmd->vbytes)
			return kstats_fail(cmd, -EINVAL,
					   "%s has no BTF (a module without it, or a compiler clone): give the value's type, type u8 to s64",
					   p->start.target.sym);
		cmd->why[0] = '\0';
		cmd->raw = true;
		type->bytes = cmd->vbytes;
		type->is_signed = cmd->vsigned;
	} else if (ret) {
		return ret;
	} else if (cmd->vbytes && (cmd->vbytes != type->bytes ||
				   cmd->vsigned != type->is_signed)) {
		return kstats_fail(cmd, -EINVAL,
				   "%s: BTF says type %c%u, not %c%u",
				   p->start.target.sym,
				   kstats_sign(type->is_signed), type->bytes * 8,
				   kstats_sign(cmd->vsigned), cmd->vbytes * 8);
	}
	return 0;
}

int kstats_site_arg_type(struct kstats_cmd *cmd, struct kstats_site *site,
			 const char *what, const char *opt, unsigned int arg,
			 struct kstats_btf_path *path, bool ptr_ok,
			 struct kstats_btf_int *type)
{
	char sym[KSYM_SYMBOL_LEN];
	const char *mod;
	int ret;

	if (kstats_user_type(cmd, type))
		return 0;
	if (site->target.tracepoint) {
		if (arg > KSTATS_TP_ARGS)
			return kstats_fail(cmd, -EOPNOTSUPP,
					   "%s arg%u: a tracepoint's probe has arg1 to arg%d in registers",
					   opt, arg, KSTATS_TP_ARGS);
		if (!site->tp)
			site->tp = kstats_find_tp(site->target.sym, &site->tp_mod);
		if (!site->tp)
			return kstats_fail(cmd, -ENOENT, "%s: no tracepoint %s",
					   what, site->target.sym);
		mod = site->tp_mod ? module_name(site->tp_mod) : NULL;
	} else {
		if (!site->addr) {
			ret = kstats_resolve(cmd, what, &site->target,
					     &site->addr);
			if (ret)
				return ret;
		}
		mod = kstats_btf_module_of(site->addr, sym);
	}
	ret = kstats_btf_key_type(site->target.sym, mod,
				  site->target.tracepoint, arg, path, ptr_ok,
				  type, cmd->why, sizeof(cmd->why));
	if (ret == -ENOENT && path && path->names[0])
		return kstats_fail(cmd, -EOPNOTSUPP,
				   "%s arg%u%s: %s has no BTF, which a field path needs",
				   opt, arg, path->names, site->target.sym);
	if (ret == -ENOENT) {
		if (!cmd->vbytes)
			return kstats_fail(cmd, -EINVAL,
					   "%s arg%u: %s has no BTF: give the argument's type, type u8 to %s",
					   opt, arg, site->target.sym,
					   ptr_ok ? "u64 (u64 for a pointer)" : "s64");
		cmd->why[0] = '\0';
		/* key argN's is only compared, never shown. */
		if (!ptr_ok)
			cmd->raw = true;
		type->bytes = cmd->vbytes;
		type->is_signed = cmd->vsigned;
	} else if (ret) {
		return ret;
	} else if (cmd->vbytes && cmd->vbytes != type->bytes) {
		return kstats_fail(cmd, -EINVAL,
				   "%s arg%u: BTF says %u bytes at %s, not %u",
				   opt, arg, type->bytes, site->target.sym,
				   cmd->vbytes);
	}
	return 0;
}

void kstats_path_set(struct kstats_path *pth,
		     const struct kstats_btf_path *path, u8 bytes)
{
	pth->n = path->n;
	pth->bytes = bytes;
	pth->str = path->str;
	memcpy(pth->off, path->off, sizeof(pth->off));
	strscpy(pth->names, path->names, sizeof(pth->names));
}

int kstats_value_setup(struct kstats_probe *p, struct kstats_cmd *cmd)
{
	struct kstats_btf_int type = {};
	int ret;

	p->vbits = 0;
	p->vsigned = false;
	p->vmask = ~0ULL;
	p->verrors = true;
	if (p->value == KSTATS_VALUE_TIME)
		return 0;
	ret = kstats_value_type(p, cmd,
				p->value == KSTATS_VALUE_ARG ? p->arg : 0, &type);
	if (ret)
		return ret;
	p->vbits = type.bytes * 8;
	p->vsigned = type.is_signed;
	p->vmask = kstats_int_mask(p->vbits);
	/* A bool, char or short -1 is no errno. */
	p->verrors = p->vbits >= 32;
	return 0;
}

/* " type s32": the type from BTF, or given where there is none. */
static void kstats_value_show_type(struct seq_file *m,
				   const struct kstats_probe *p)
{
	seq_printf(m, " type %c%u", kstats_sign(p->vsigned), p->vbits);
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
