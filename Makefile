# rdnafix top-level Makefile.  `make status` and `make test` do all set-up
# on a fresh Debian 12 machine (as root).  Dependencies: userspace/deps/packages.txt,
# by group: `make build`/`make status`/`make install` install only the [build]
# group, `make test` every group.  On other distributions install.sh prints the
# packages to install and changes nothing.
PREFIX   ?= /usr/local
DESTDIR  ?=
BUILD    ?= build
KVER     ?= $(shell uname -r)
CMAKE_FLAGS ?=

RDNACTL := $(BUILD)/userspace/rdnactl

.PHONY: all deps deps-module deps-test build configure-tests status test uninstall test-unit test-fuzz test-kernel test-e2e test-distro test-kmod-style test-style test-dkms test-deb install kmod clean help dkms-install dkms-remove dkms-source deb format

all: build

help:
	@echo "make deps      install the Debian packages rdnactl needs to build and run (userspace/deps/packages.txt [build])"
	@echo "make deps-module  also those of the kernel module ([module]: dkms, kmod)"
	@echo "make deps-test    also those of the tests ([test]: Catch2, QEMU, debootstrap, ...)"
	@echo "make build     build rdnactl (CMake+Ninja into $(BUILD)/userspace)"
	@echo "make status    deps + build + run 'rdnactl status'"
	@echo "make test      deps-test + build with tests + every test (unit, fixtures, ROCm chroot, kernel VMs, booted Debian system, packages, newer distributions, fuzzing, checkpatch, DKMS), with a time table"
	@echo "make test-fuzz GCC's ASan/UBSan -Werror guard, then clang libFuzzer: a bounded run of every fuzz target (tests/fuzz)"
	@echo "make test-e2e  only the booted end-to-end test of rdnactl config/fix and of the .deb install + kernel upgrade (tests/e2e, images cached in /var/cache/rdnafix/e2e)"
	@echo "make format    clang-format every userspace/tests C++ file (.clang-format)"
	@echo "make install   install rdnactl (stripped), man page, completion under PREFIX=$(PREFIX); kernel hook, udev, systemd units under /etc (DESTDIR)"
	@echo "make uninstall remove exactly the files 'make install' installed ($(BUILD)/userspace/install_manifest.txt)"
	@echo "make kmod      build the rdnafix kernel module for KVER=$(KVER)"
	@echo "make dkms-install  register rdnafix with DKMS (/usr/src/rdnafix-<ver>), build+install for KVER"
	@echo "make dkms-remove   remove rdnafix from DKMS for every kernel and delete /usr/src/rdnafix-<ver>"
	@echo "make deb       Debian packages rdnactl, rdnactl-dbgsym, rdnafix-dkms in $(BUILD)/deb (docs/packaging.md)"
	@echo "make test-deb  build the packages, lintian, install/upgrade/remove/purge in a Debian 12 chroot"
	@echo "make test-distro  build rdnactl in Debian 13 (trixie) and sid chroots (newer CLI11, fmt, GCC) and run it there (docs/building.md)"

deps:
	@bash userspace/deps/install.sh build

deps-module:
	@bash userspace/deps/install.sh build module

deps-test:
	@bash userspace/deps/install.sh build module test

$(BUILD)/userspace/build.ninja:
	cmake -S userspace -B $(BUILD)/userspace -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS)

build: deps $(BUILD)/userspace/build.ninja
	cmake --build $(BUILD)/userspace

# The unit tests are built when Catch2 is installed (RDNAFIX_TESTS=AUTO); `make test` requires them.
configure-tests:
	cmake -S userspace -B $(BUILD)/userspace -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRDNAFIX_TESTS=ON $(CMAKE_FLAGS)

# rdnactl's exit code is the recipe's: 0 passes; 1 (warnings/errors) and 2
# (could not run) fail the target, and make names the code in its last line
# ("[Makefile:NN: status] Error 1"); GNU make itself exits 2 for any failed
# recipe.  STATUS_ARGS: more arguments for rdnactl status (e.g. --no-coverage).
STATUS_ARGS ?=
status: build
	@$(RDNACTL) status $(STATUS_ARGS)

# Every stage, ordered and overlapped (downloads beside the compile, the VM
# boots on one core beside the rest), with a time table at the end:
# tests/make-test.sh; RDNAFIX_TEST_STAGES selects a subset.
test: deps-test
	@BUILD=$(BUILD) bash tests/make-test.sh

test-unit:
	ctest --test-dir $(BUILD)/userspace --output-on-failure

# GCC's ASan/UBSan compile of explain/run.cpp under -Werror (issue N16;
# RDNAFIX_FUZZ_STAGES="sanitize fuzz": every target, replaying the corpora),
# then each libFuzzer target for RDNAFIX_FUZZ_SECONDS (default 15);
# a finding's reproducer stays in $(BUILD)/fuzz/crashes/ (tests/README.md "fuzz/").
test-fuzz:
	BUILD=$(BUILD) bash tests/fuzz/run.sh

test-kernel:
	@if [ -x tests/kernel/run.sh ]; then tests/kernel/run.sh; else echo "test-kernel: no kernel tests yet"; fi

# The booted end-to-end test: a debootstrap'ed Debian bookworm image with the
# project installed by its own install targets (phase upgrade: by its .debs,
# `make deb`), configured and booted under QEMU.
test-e2e:
	bash tests/e2e/run.sh

# Every style check runs; the target fails if any of them failed.
test-style:
	@rc=0; for t in check-format.sh check-size.sh check-citations.sh check-layers.sh test-checks.sh; do \
		bash tests/style/$$t || rc=1; \
	done; exit $$rc

format:
	git ls-files '*.cpp' '*.hpp' | grep -v '^kmod/' | xargs clang-format -i

test-kmod-style:
	bash kmod/scripts/checkpatch.sh

test-dkms:
	bash tests/dkms/run.sh

# Debian packages (debian/): built from an exported copy of the tree in
# $(BUILD)/deb/src; a second call on an unchanged tree does nothing.
deb:
	@bash debian/make-deb.sh $(BUILD)/deb

# rdnactl built (-O0, only the rdnactl target) and run in Debian trixie and sid
# chroots (/var/cache/rdnafix/build-{trixie,sid}): newer CLI11, fmt and GCC
# than bookworm's.  Exit 2 (cannot run: no root, no network) fails it too.
test-distro:
	bash tests/distro/run.sh

# The packages' life cycle in a chroot of the e2e Debian 12 image: lintian,
# install, upgrade from a previous version, remove, purge (nothing left).
test-deb:
	bash tests/deb/run.sh

# PREFIX is configured into the build (the hook and the units name
# $(PREFIX)/bin/rdnactl); the kernel hook, udev and systemd files go to /etc
# whatever PREFIX is (README.md, "make install").
install: build
	@if [ "$$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' $(BUILD)/userspace/CMakeCache.txt)" != "$(PREFIX)" ]; then \
		echo "cmake: configuring CMAKE_INSTALL_PREFIX=$(PREFIX)"; \
		cmake -S userspace -B $(BUILD)/userspace -DCMAKE_INSTALL_PREFIX=$(PREFIX) >/dev/null && \
		cmake --build $(BUILD)/userspace; fi
	DESTDIR=$(DESTDIR) cmake --install $(BUILD)/userspace --strip

# Removes the files listed in the manifest of the last `make install` (with the same DESTDIR), nothing else.
uninstall:
	@m=$(BUILD)/userspace/install_manifest.txt; \
	[ -f "$$m" ] || { echo "uninstall: $$m missing: nothing was installed from $(BUILD) (make install writes it)" >&2; exit 2; }; \
	while IFS= read -r f || [ -n "$$f" ]; do \
		[ -z "$$f" ] && continue; \
		if [ -e "$(DESTDIR)$$f" ] || [ -L "$(DESTDIR)$$f" ]; then rm -f "$(DESTDIR)$$f" && echo "removed $(DESTDIR)$$f"; fi; \
	done <"$$m"

kmod:
	$(MAKE) -C kmod KVER=$(KVER)

# DKMS: the version is kmod/VERSION; dkms.conf gets it substituted.
RDNAFIX_VERSION := $(shell cat kmod/VERSION)
DKMS_SRC := /usr/src/rdnafix-$(RDNAFIX_VERSION)

dkms-install:
	@command -v dkms >/dev/null || { echo "dkms-install: dkms missing (make deps-module)" >&2; exit 2; }
	-dkms remove -m rdnafix -v $(RDNAFIX_VERSION) --all >/dev/null 2>&1
	rm -rf $(DKMS_SRC)
	$(MAKE) --no-print-directory dkms-source DKMS_DEST=$(DKMS_SRC)
	dkms add -m rdnafix -v $(RDNAFIX_VERSION)
	@if [ -d /lib/modules/$(KVER)/build ]; then \
		dkms install -m rdnafix -v $(RDNAFIX_VERSION) -k $(KVER); \
	else \
		echo "dkms-install: no headers for $(KVER); DKMS builds rdnafix when they are installed"; \
	fi

# The DKMS source tree of rdnafix in DKMS_DEST (make dkms-install: /usr/src;
# the rdnafix-dkms package: debian/rules): kmod's sources, the BTF conftest
# script its Makefile runs, and dkms.conf with the version of kmod/VERSION.
DKMS_DEST ?= $(DKMS_SRC)
dkms-source:
	install -d $(DKMS_DEST) $(DKMS_DEST)/scripts
	install -m 0644 kmod/Kbuild kmod/Makefile kmod/VERSION kmod/*.c kmod/*.h $(DKMS_DEST)/
	install -m 0644 kmod/scripts/pte-conftest.py kmod/scripts/kelf.py kmod/scripts/amdgpu_audit.py \
		kmod/scripts/amdgpu_disasm.py $(DKMS_DEST)/scripts/
	sed 's/#VERSION#/$(RDNAFIX_VERSION)/' dkms.conf >$(DKMS_DEST)/dkms.conf

dkms-remove:
	@command -v dkms >/dev/null || { echo "dkms-remove: dkms missing" >&2; exit 2; }
	@if dkms status -m rdnafix -v $(RDNAFIX_VERSION) | grep -q .; then \
		dkms remove -m rdnafix -v $(RDNAFIX_VERSION) --all; fi
	rm -rf $(DKMS_SRC)

clean:
	rm -rf $(BUILD)
	-$(MAKE) -C kmod clean KVER=$(KVER) 2>/dev/null
