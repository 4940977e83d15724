# LAM/Go — build, install and test.
#
#   make build                 every tool in ./bin
#   make install PREFIX=/usr   binaries, man pages, configuration (/etc/lam for
#                              PREFIX=/usr, else PREFIX/etc), the C library
#   make deb                   dist/lam-go_<version>_<arch>.deb (scripts/mkdeb);
#                              scripts/deb-smoke tries it in a fresh Debian
#   make test                  the whole suite: installs what the tests need
#                              (scripts/test-deps), then every module's tests,
#                              the race detector on the core, module and
#                              dependency checks
#   make test-faults           the fault-injection suite alone (part of make test)
#   make fuzz FUZZTIME=30s     every fuzz target for FUZZTIME each

GO       ?= go
PREFIX   ?= /usr/local
DESTDIR  ?=
FUZZTIME ?= 20s

TOOLS := lamboot lamd hboot lamhalt lamnodes tping lamwipe recon lamclean tkill \
         lamexec lamgrow lamshrink mpitask mpimsg lamtrace mpirun mpiexec laminfo \
         crcheckpoint crrestart mpicc
# The wrapper compiler's other names (symbolic links to mpicc).
WRAPPERS := hcc mpiCC mpic++ hcp mpif77 hf77
# LAM's names of the checkpoint tools (symbolic links).
CRLINKS := lamcheckpoint:crcheckpoint lamrestart:crrestart
LIBS  := shared libmpi
EXAMPLES := hello ring pi
BENCHES := pingpong coll
MODULES := $(LIBS) examples bench $(TOOLS)
MODPATH := github.com/lamgo/lam

# The ofi rpi module (libmpi/rpi/ofi) is compiled in where pkg-config
# finds libfabric (Debian: libfabric-dev); elsewhere it declines at run
# time. GOTAGS= builds without it.
GOTAGS ?= $(shell pkg-config --exists libfabric 2>/dev/null && echo ofi)

BUILD_USER := $(shell id -un 2>/dev/null || echo unknown)
BUILD_DATE := $(shell LC_ALL=C date -u '+%a %b %e %H:%M:%S UTC %Y')
BUILD_HOST := $(shell hostname 2>/dev/null || echo unknown)
BI := $(MODPATH)/shared/buildinfo
LDFLAGS := -X '$(BI).ConfiguredBy=$(BUILD_USER)' -X '$(BI).ConfiguredOn=$(BUILD_DATE)' -X '$(BI).ConfigureHost=$(BUILD_HOST)'


.PHONY: tidy
.PHONY: all build capi install install-files deb test test-suite test-deps test-unit test-race test-faults check-modules check-deps check-tools check-deb vet fmt-check fuzz clean

all: build

build:
	@mkdir -p bin
	$(GO) build -trimpath -tags '$(GOTAGS)' -ldflags "$(LDFLAGS)" -o bin/ $(TOOLS:%=./%) $(EXAMPLES:%=./examples/%) $(BENCHES:%=./bench/%)
	@for w in $(WRAPPERS); do ln -sfn mpicc bin/$$w; done
	@for l in $(CRLINKS); do ln -sfn $${l#*:} bin/$${l%%:*}; done
	$(MAKE) --no-print-directory capi

# The C interface: lib/libmpi.so and include/mpi.h (libmpi/capi).
capi:
	@mkdir -p lib include
	$(GO) build -trimpath -tags '$(GOTAGS)' -buildmode=c-shared -o lib/libmpi.so ./libmpi/capi
	@rm -f lib/libmpi.h
	cp libmpi/capi/include/*.h include/

# Where install puts things: for PREFIX=/usr the configuration goes to
# /etc/lam and the C library and headers to /usr/lib/lam-go (as
# shared/install finds them); otherwise PREFIX/etc, PREFIX/lib,
# PREFIX/include. Man pages go to PREFIX/share/man.
SYSTEM     := $(filter /usr /usr/,$(PREFIX))
SYSCONFDIR := $(if $(SYSTEM),/etc/lam,$(PREFIX)/etc)
CLIBDIR    := $(if $(SYSTEM),/usr/lib/lam-go/lib,$(PREFIX)/lib)
CINCDIR    := $(if $(SYSTEM),/usr/lib/lam-go/include,$(PREFIX)/include)
MANDIR     := $(PREFIX)/share/man

install: build install-files

# install-files installs what build made (no build).
install-files:
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(SYSCONFDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man7
	install -m 0755 $(TOOLS:%=bin/%) $(DESTDIR)$(PREFIX)/bin/
	for w in $(WRAPPERS); do ln -sfn mpicc $(DESTDIR)$(PREFIX)/bin/$$w; done
	for l in $(CRLINKS); do ln -sfn $${l#*:} $(DESTDIR)$(PREFIX)/bin/$${l%%:*}; done
	install -m 0644 etc/lam-bhost.def etc/lam-conf.lamd $(DESTDIR)$(SYSCONFDIR)/
	install -m 0644 docs/man/man1/*.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 docs/man/man5/*.5 $(DESTDIR)$(MANDIR)/man5/
	install -m 0644 docs/man/man7/*.7 $(DESTDIR)$(MANDIR)/man7/
	install -d $(DESTDIR)$(CLIBDIR) $(DESTDIR)$(CINCDIR)
	install -m 0755 lib/libmpi.so $(DESTDIR)$(CLIBDIR)/
	install -m 0644 include/*.h $(DESTDIR)$(CINCDIR)/

# A Debian package of the tree, dist/lam-go_<version>_<arch>.deb
# (scripts/mkdeb, with dpkg-deb); scripts/deb-smoke installs it in a
# fresh Debian chroot and runs a job from /usr/bin.
deb: build
	./scripts/mkdeb

# scripts/test-deps installs what the tests need (or says what to install)
# and answers whether the privileged tests (namespaces, sshd, other uids)
# can run here: where they can, LAM_TEST_STRICT=1 turns their skips into
# failures, so the whole suite really runs.
test:
	@strict=$$(./scripts/test-deps) && $(MAKE) --no-print-directory test-suite LAM_TEST_STRICT=$$strict

test-deps:
	@./scripts/test-deps >/dev/null

export LAM_TEST_STRICT

test-suite: fmt-check vet check-modules check-deps test-unit test-race check-tools check-deb test-faults

test-unit:
	$(GO) test -count=1 -timeout 30m -tags '$(GOTAGS)' $(MODULES:%=./%/...)

# The race detector on the core packages (the integration tests run the
# real binaries and are covered by test-unit).
test-race:
	$(GO) test -count=1 -race -tags '$(GOTAGS)' $$($(GO) list ./shared/... | grep -v '/integration\|/faults') ./libmpi/...

# The fault-injection suite (shared/faults, docs/faults.md) against the real
# binaries: floods, killed and stopped lamds and ranks, a full session file
# system, 100 cycles, 50 concurrent jobs; a minute or two (root for the
# tmpfs and the namespace hosts). FAULTS_TABLE=file also writes the table.
test-faults:
	LAM_TEST_FAULTS=1 $(GO) test -count=1 -timeout 15m ./shared/faults/ $(if $(FAULTS_TABLE),-args -faults.table=$(abspath $(FAULTS_TABLE)))

vet:
	$(GO) vet -tags '$(GOTAGS)' $(MODULES:%=./%/...)

fmt-check:
	@out=$$(gofmt -l $(MODULES)); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# Every module must build and pass vet on its own, as a distribution
# packager builds it (no go.work; replace directives to its siblings).
check-modules:
	@set -e; for m in $(MODULES); do \
		(cd $$m && GOWORK=off $(GO) build -o /dev/null ./... && GOWORK=off $(GO) vet ./...) || { echo "module $$m does not build on its own"; exit 1; }; \
	done; echo "every module builds with GOWORK=off"

# The dependency rules of DESIGN.md §2 (listed in the script).
check-deps:
	@GO=$(GO) TOOLS="$(TOOLS)" ./scripts/check-deps

# Every tool binary answers -h with its framed usage (exit 0; 226 for lamd
# and laminfo, as LAM). A tool that has not landed must say so and fail.
STUBS :=
check-tools: build
	@set -e; for t in $(TOOLS); do \
		want=0; case $$t in lamd|laminfo) want=226;; esac; \
		rc=0; bin/$$t -h >/dev/null 2>bin/.help || rc=$$?; \
		[ $$rc = $$want ] || { echo "$$t -h exited $$rc, want $$want"; exit 1; }; \
		grep -q '^Synopsis:' bin/.help || { echo "$$t -h printed no usage"; exit 1; }; \
	done; \
	for t in $(STUBS); do \
		rc=0; bin/$$t >/dev/null 2>bin/.err || rc=$$?; \
		if [ $$rc = 0 ]; then echo "$$t succeeded without doing anything"; exit 1; fi; \
		grep -q "not implemented yet" bin/.err || { echo "$$t does not say it is not implemented"; exit 1; }; \
	done; rm -f bin/.help bin/.err; echo "every tool answers -h; unfinished tools say so"

# The package's Suggests: libfabric1 exactly when the ofi module is built
# in, no Depends on it (scripts/check-deb).
check-deb: build
	@GOTAGS='$(GOTAGS)' ./scripts/check-deb

fuzz:
	@set -e; for m in $(MODULES); do \
		for pkg in $$(cd $$m && $(GO) list ./...); do \
			dir=$$(cd $$m && $(GO) list -f '{{.Dir}}' $$pkg); \
			for f in $$(grep -ho '^func Fuzz[A-Za-z0-9_]*' $$dir/*_test.go 2>/dev/null | sed 's/func //'); do \
				echo "== $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg; \
			done; \
		done; \
	done

# Refresh every module's go.mod and go.sum (needed after imports change,
# so that each module still builds on its own).
tidy:
	@set -e; for m in $(MODULES); do (cd $$m && GOWORK=off $(GO) mod tidy); done

clean:
	rm -rf bin
