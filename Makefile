# rdnafix top-level Makefile.  `make status` and `make test` do all set-up
# on a fresh Debian 12 machine (as root).
PREFIX   ?= /usr/local
DESTDIR  ?=
BUILD    ?= build
KVER     ?= $(shell uname -r)
CMAKE_FLAGS ?=

RDNACTL := $(BUILD)/userspace/rdnactl

.PHONY: all deps build status test test-unit test-kernel install kmod clean help

all: build

help:
	@echo "make deps      install the Debian packages in userspace/deps/packages.txt"
	@echo "make build     build rdnactl (CMake+Ninja into $(BUILD)/userspace)"
	@echo "make status    deps + build + run 'rdnactl status'"
	@echo "make test      deps + build + every test (unit, fixtures, kernel/VM)"
	@echo "make install   install rdnactl, man page, completion (PREFIX, DESTDIR)"
	@echo "make kmod      build the rdnafix kernel module for KVER=$(KVER)"

deps:
	@bash userspace/deps/install.sh

$(BUILD)/userspace/build.ninja:
	cmake -S userspace -B $(BUILD)/userspace -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS)

build: deps $(BUILD)/userspace/build.ninja
	cmake --build $(BUILD)/userspace

status: build
	@$(RDNACTL) status; rc=$$?; [ $$rc -le 1 ] || exit $$rc

test: build
	$(MAKE) --no-print-directory test-unit
	$(MAKE) --no-print-directory test-kernel

test-unit:
	ctest --test-dir $(BUILD)/userspace --output-on-failure

test-kernel:
	@if [ -x tests/kernel/run.sh ]; then tests/kernel/run.sh; else echo "test-kernel: no kernel tests yet"; fi

install: build
	DESTDIR=$(DESTDIR) cmake --install $(BUILD)/userspace --prefix $(PREFIX)

kmod:
	$(MAKE) -C kmod KVER=$(KVER)

clean:
	rm -rf $(BUILD)
	-$(MAKE) -C kmod clean KVER=$(KVER) 2>/dev/null
