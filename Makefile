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

modules:
	$(MAKE) -C $(KDIR) M=$(PWD) modules

clean:
	$(MAKE) -C $(KDIR) M=$(PWD) clean

# Install kstats.ko and kstats_tramp.ko, its direct trampolines (not the
# test or example modules), for the running kernel (or KDIR's), then
# depmod, and the kstats command (install-tool).
install: install-tool
	$(MAKE) -C $(KDIR) M=$(PWD) KSTATS_CORE_ONLY=1 modules
	$(MAKE) -C $(KDIR) M=$(PWD) KSTATS_CORE_ONLY=1 KERNELRELEASE=$(KRELEASE) \
		$(if $(DESTDIR),INSTALL_MOD_PATH=$(DESTDIR)) modules_install
	depmod $(if $(DESTDIR),-b $(DESTDIR)) -a $(KRELEASE)

# The kstats command into $(PREFIX)/bin, its man page kstats(1) (rst2man,
# Debian: python3-docutils), its bash completion, and the systemd service
# and timer of a continuous export (enabled by the user).
SYSTEMD_DIR ?= $(PREFIX)/lib/systemd/system
MAN1 = $(DESTDIR)$(PREFIX)/share/man/man1
install-tool:
	install -d $(DESTDIR)$(PREFIX)/bin
	scripts/mkzipapp.sh $(DESTDIR)$(PREFIX)/bin/kstats
	install -d $(MAN1) \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(SYSTEMD_DIR)
	scripts/mkman.sh >$(MAN1)/kstats.1.tmp || { rm -f $(MAN1)/kstats.1.tmp; exit 1; }
	mv $(MAN1)/kstats.1.tmp $(MAN1)/kstats.1
	python3 $(DESTDIR)$(PREFIX)/bin/kstats completion bash \
		>$(DESTDIR)$(PREFIX)/share/bash-completion/completions/kstats
	sed 's|@BINDIR@|$(PREFIX)/bin|' scripts/systemd/kstats-export.service \
		>$(DESTDIR)$(SYSTEMD_DIR)/kstats-export.service
	install -m 0644 scripts/systemd/kstats-export.timer $(DESTDIR)$(SYSTEMD_DIR)/

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

# The kstats_record() microbenchmark of tests/kstats_bench.c.
bench-record:
	KSTATS_DEMO_SCRIPT=$(PWD)/tests/bench-guest.sh scripts/demo.sh $(or $(TARGET),deb612)

# Every test on every target kernel, in QEMU guests.
check:
	scripts/check.sh

.PHONY: all modules clean install install-tool tool dkms demo bench bench-record check
