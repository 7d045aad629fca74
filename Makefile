# SPDX-License-Identifier: GPL-2.0
# Out-of-tree build of kstats; the kbuild part lives in Kbuild.
KDIR ?= /lib/modules/$(shell uname -r)/build
PWD := $(shell pwd)

all: modules

modules:
	$(MAKE) -C $(KDIR) M=$(PWD) modules

clean:
	$(MAKE) -C $(KDIR) M=$(PWD) clean

# Install kstats.ko for the running kernel (or KDIR's).
install: modules
	$(MAKE) -C $(KDIR) M=$(PWD) modules_install

# Boot the stock Debian kernel in QEMU and show a histogram.
demo:
	scripts/demo.sh

# Cost of kstats_record() per sample, in a guest of TARGET (default deb612).
bench:
	KSTATS_DEMO_SCRIPT=$(PWD)/tests/bench-guest.sh scripts/demo.sh $(or $(TARGET),deb612)

# Every test on every target kernel, in QEMU guests.
check:
	scripts/check.sh

.PHONY: all modules clean install demo bench check
