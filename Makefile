# SPDX-License-Identifier: GPL-2.0
# Out-of-tree build of kstats; the kbuild part lives in Kbuild.
KDIR ?= /lib/modules/$(shell uname -r)/build
PWD := $(shell pwd)
# Release of KDIR's kernel, for modules_install and depmod: from the
# /lib/modules/RELEASE/build path (Debian's headers record another string
# in include/config/kernel.release), else from the tree.
KRELEASE ?= $(or $(patsubst /lib/modules/%/build,%,$(filter /lib/modules/%/build,$(KDIR:/=))),\
	$(shell cat $(KDIR)/include/config/kernel.release 2>/dev/null))
# Where "make install" puts the kstats command; DESTDIR stages everything.
PREFIX ?= /usr/local
DKMS_VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf 2>/dev/null)

all: modules

# kstats.ko and kstats_tramp.ko, its direct trampolines, alone.
modules:
	$(MAKE) -C $(KDIR) M=$(PWD) modules

# Every module of Kbuild: the two above, the KUnit suite (on a kernel with
# KUnit), the test, bench and example modules (KSTATS_TEST_MODULES=1;
# scripts/build-modules.sh passes it for make check and make bench).
test-modules:
	$(MAKE) -C $(KDIR) M=$(PWD) KSTATS_TEST_MODULES=1 modules

clean:
	$(MAKE) -C $(KDIR) M=$(PWD) clean

# Install kstats.ko and kstats_tramp.ko (not the test or example modules),
# for the running kernel (or KDIR's), then depmod (install-modules), and
# the kstats command with its man page, completions and units
# (install-tool). Neither needs the other: without rst2man the modules and
# the rest of the tool still install.
install: install-modules install-tool

# KSTATS_CORE_ONLY=1: the two modules even where KSTATS_TEST_MODULES is
# set. INSTALL_MOD_DIR: the kernel's default (extra, or updates on 6.x).
install-modules:
	$(MAKE) -C $(KDIR) M=$(PWD) KSTATS_CORE_ONLY=1 modules
	$(MAKE) -C $(KDIR) M=$(PWD) KSTATS_CORE_ONLY=1 KERNELRELEASE=$(KRELEASE) \
		$(if $(DESTDIR),INSTALL_MOD_PATH=$(DESTDIR)) modules_install
	depmod $(if $(DESTDIR),-b $(DESTDIR)) -a $(KRELEASE)

# The kstats command into $(PREFIX)/bin, its man page kstats(1) (rst2man,
# Debian: python3-docutils; without it, one warning line and no man page),
# its bash and zsh completions, and the systemd service and timer of a
# continuous export (enabled by the user).
SYSTEMD_DIR ?= $(PREFIX)/lib/systemd/system
MAN1 = $(DESTDIR)$(PREFIX)/share/man/man1
BASH_COMPLETION = $(DESTDIR)$(PREFIX)/share/bash-completion/completions/kstats
ZSH_COMPLETION = $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_kstats
install-tool:
	install -d $(DESTDIR)$(PREFIX)/bin
	scripts/mkzipapp.sh $(DESTDIR)$(PREFIX)/bin/kstats
	install -d $(dir $(BASH_COMPLETION)) $(dir $(ZSH_COMPLETION)) $(DESTDIR)$(SYSTEMD_DIR)
	python3 $(DESTDIR)$(PREFIX)/bin/kstats completion bash >$(BASH_COMPLETION)
	python3 $(DESTDIR)$(PREFIX)/bin/kstats completion zsh >$(ZSH_COMPLETION)
	sed 's|@BINDIR@|$(PREFIX)/bin|' scripts/systemd/kstats-export.service \
		>$(DESTDIR)$(SYSTEMD_DIR)/kstats-export.service
	install -m 0644 scripts/systemd/kstats-export.timer $(DESTDIR)$(SYSTEMD_DIR)/
	@if scripts/mkman.sh --which >/dev/null; then \
		install -d $(MAN1) && \
		{ scripts/mkman.sh >$(MAN1)/kstats.1.tmp || { rm -f $(MAN1)/kstats.1.tmp; exit 1; }; } && \
		mv $(MAN1)/kstats.1.tmp $(MAN1)/kstats.1; \
	else \
		echo "warning: rst2man not found (Debian: apt-get install python3-docutils): the man page kstats(1) is not installed" >&2; \
	fi

# What install put there, from DESTDIR, PREFIX and KDIR's release alike:
# the two modules (in INSTALL_MOD_DIR, else extra/ or updates/; not DKMS's
# updates/dkms/), then depmod; the command, its man page, completions and
# units.
uninstall: uninstall-modules uninstall-tool

MODDIR = $(DESTDIR)/lib/modules/$(KRELEASE)
uninstall-modules:
	rm -f $(foreach d,$(or $(INSTALL_MOD_DIR),extra updates),\
		$(wildcard $(MODDIR)/$(d)/kstats.ko* $(MODDIR)/$(d)/kstats_tramp.ko*))
	if [ -d $(MODDIR)/kernel ] || [ -e $(MODDIR)/modules.dep ]; then \
		depmod $(if $(DESTDIR),-b $(DESTDIR)) -a $(KRELEASE); fi

uninstall-tool:
	rm -f $(DESTDIR)$(PREFIX)/bin/kstats $(MAN1)/kstats.1 $(BASH_COMPLETION) \
		$(ZSH_COMPLETION) $(DESTDIR)$(SYSTEMD_DIR)/kstats-export.service \
		$(DESTDIR)$(SYSTEMD_DIR)/kstats-export.timer

# DKMS: the sources into /usr/src/kstats-VERSION, then built and installed
# for the running kernel and, from then on, for every new one.
dkms:
	scripts/dkms-sources.sh /usr/src/kstats-$(DKMS_VERSION)
	dkms install kstats/$(DKMS_VERSION)

# The kstats command as one file (a zipapp of tool/kstats), to copy onto a
# host: build/kstats. From the checkout: PYTHONPATH=tool python3 -m kstats.
tool:
	mkdir -p build
	scripts/mkzipapp.sh build/kstats

# Boot the stock Debian kernel in QEMU and show a histogram.
demo:
	scripts/demo.sh

# The probe effect of kstats against the bare mechanisms, ftrace and
# bpftrace, in instructions (QEMU plugin) and time, on deb61, deb612 and deb7x
# (scripts/bench.sh). QUICK=1: shorter. HOST=1: on this machine's own
# kernel (loads modules; for real hardware only, scripts/bench-host.sh).
bench:
ifeq ($(HOST),1)
	scripts/bench-host.sh
else
	QUICK=$(QUICK) scripts/bench.sh
endif

# kstats' request pair and bpftrace side by side on a null_blk disk's
# requests (biolatency's question), in QEMU guests with Debian 12's
# bpftrace: counts and distributions (scripts/compare-biolatency.sh).
# KSTATS_TARGETS: deb612 and deb61 (the default), either or both.
compare-biolatency:
	scripts/compare-biolatency.sh

# The kstats tool's runqlat, cpudist, offcpu and biolatency beside
# bpftrace's answers, both attached around one run of a real workload
# (hackbench, a CPU hog, naps, a virtio disk's reads) in the same guest
# (scripts/compare-sched.sh). KSTATS_TARGETS: deb612 (the default), deb61.
compare-sched:
	scripts/compare-sched.sh

# The kstats_record() microbenchmark of tests/kstats_bench.c.
bench-record:
	KSTATS_DEMO_SCRIPT=$(PWD)/tests/bench-guest.sh scripts/demo.sh $(or $(TARGET),deb612)

# Every test on every target kernel, in QEMU guests.
check:
	scripts/check.sh

.PHONY: all modules test-modules clean install install-modules install-tool uninstall \
	uninstall-modules uninstall-tool tool dkms demo bench bench-record \
	compare-biolatency compare-sched check
